namespace xlate_compat {
// CUDA's __stcg (store, cache at the global level): agent-scope relaxed atomic stores.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value>::type stcg(T* p, typename detail::same<T>::type value) {
  detail::scoped_store<__HIP_MEMORY_SCOPE_AGENT>(p, value);
}
}  // namespace xlate_compat

namespace xlate_compat {
// CUDA's __stwt (store, write through to system memory): system-scope relaxed atomic stores.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value>::type stwt(T* p, typename detail::same<T>::type value) {
  detail::scoped_store<__HIP_MEMORY_SCOPE_SYSTEM>(p, value);
}
}  // namespace xlate_compat

namespace xlate_compat {
// CUDA's __ldcg (load, cache at the global level, not in L1): agent-scope relaxed atomic loads.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value, T>::type ldcg(const T* p) {
  return detail::scoped_load<__HIP_MEMORY_SCOPE_AGENT>(p);
}
}  // namespace xlate_compat

namespace xlate_compat {
// CUDA's __ldcv (load, volatile: fetch again): system-scope relaxed atomic loads.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value, T>::type ldcv(const T* p) {
  return detail::scoped_load<__HIP_MEMORY_SCOPE_SYSTEM>(p);
}
}  // namespace xlate_compat

namespace xlate_compat {
// CUDA's __ldlu (load, last use): on global memory PTX performs it as the streaming load, as here.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value, T>::type ldlu(const T* p) {
  return detail::stream_load(p);
}
}  // namespace xlate_compat

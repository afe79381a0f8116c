namespace xlate_compat {
// CUDA's __ldca (load, cache at all levels): what a plain load does.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value, T>::type ldca(const T* p) {
  return *p;
}
}  // namespace xlate_compat

namespace xlate_compat {
// CUDA's __ldcs (load, streaming: evict first): clang's nontemporal load where it takes the type.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value, T>::type ldcs(const T* p) {
  return detail::stream_load(p);
}
}  // namespace xlate_compat

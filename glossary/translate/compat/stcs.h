namespace xlate_compat {
// CUDA's __stcs (store, streaming: evict first): clang's nontemporal store where it takes the type.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value>::type stcs(T* p, typename detail::same<T>::type value) {
  detail::stream_store(p, value);
}
}  // namespace xlate_compat

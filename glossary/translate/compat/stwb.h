namespace xlate_compat {
// CUDA's __stwb (store, write back): what a plain store does.
template <class T>
__device__ inline typename std::enable_if<detail::hinted_type<T>::value>::type stwb(T* p, typename detail::same<T>::type value) {
  *p = value;
}
}  // namespace xlate_compat

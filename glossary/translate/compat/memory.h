#include <hip/hip_runtime.h>
#include <type_traits>

namespace xlate_compat {
namespace detail {

// Pointees clang's streaming builtins take as they are: integer, floating-point and pointer scalars.
template <class T>
struct streams_directly
    : std::integral_constant<bool, std::is_arithmetic<T>::value || std::is_pointer<T>::value> {};

// HIP's struct vectors of 1, 2 or 4 arithmetic elements have the size and alignment of a clang ext
// vector of the same shape, which the streaming builtins take; the value is moved through one. (The
// vector's own members differ between HIP releases: ROCm 6.4 has a `data` member, HIP 7.1 does not.)
template <class T>
struct native_vector {
  static const bool exists = false;
};
template <class E, unsigned int N>
struct native_vector<HIP_vector_type<E, N>> {
  typedef E type __attribute__((ext_vector_type(N)));
  static const bool exists = N != 3 && std::is_arithmetic<E>::value &&
                             sizeof(type) == sizeof(HIP_vector_type<E, N>) &&
                             alignof(type) == alignof(HIP_vector_type<E, N>);
};
template <class T>
struct streams_through_data : std::integral_constant<bool, native_vector<T>::exists> {};

template <class T>
struct plain_only
    : std::integral_constant<bool, !streams_directly<T>::value && !streams_through_data<T>::value> {};

template <class T>
__device__ inline typename std::enable_if<streams_directly<T>::value, T>::type stream_load(const T* p) {
  return __builtin_nontemporal_load(p);
}
template <class T>
__device__ inline typename std::enable_if<streams_through_data<T>::value, T>::type stream_load(const T* p) {
  typedef typename native_vector<T>::type V;
  V v = __builtin_nontemporal_load(reinterpret_cast<const V*>(p));
  T value;
  __builtin_memcpy(&value, &v, sizeof(T));
  return value;
}
template <class T>
__device__ inline typename std::enable_if<plain_only<T>::value, T>::type stream_load(const T* p) {
  return *p;  // no streaming form for this type: a plain load (the hint is a performance hint only)
}

template <class T>
__device__ inline typename std::enable_if<streams_directly<T>::value>::type stream_store(T* p, T value) {
  __builtin_nontemporal_store(value, p);
}
template <class T>
__device__ inline typename std::enable_if<streams_through_data<T>::value>::type stream_store(T* p, T value) {
  typedef typename native_vector<T>::type V;
  V v;
  __builtin_memcpy(&v, &value, sizeof(T));
  __builtin_nontemporal_store(v, reinterpret_cast<V*>(p));
}
template <class T>
__device__ inline typename std::enable_if<plain_only<T>::value>::type stream_store(T* p, T value) {
  *p = value;  // no streaming form for this type: a plain store (the hint is a performance hint only)
}

// Words a value is moved in when it is wider than one scoped load or store, or not a scalar: the
// widest of 8, 4, 2 and 1 bytes that divides both its size and its alignment. may_alias: the words
// read and write the bytes of an object of another type.
typedef unsigned char __attribute__((may_alias)) word1;
typedef unsigned short __attribute__((may_alias)) word2;
typedef unsigned int __attribute__((may_alias)) word4;
typedef unsigned long long __attribute__((may_alias)) word8;
template <unsigned long N> struct word_of_size;
template <> struct word_of_size<1> { typedef word1 type; };
template <> struct word_of_size<2> { typedef word2 type; };
template <> struct word_of_size<4> { typedef word4 type; };
template <> struct word_of_size<8> { typedef word8 type; };
template <class T>
struct words {
  static constexpr unsigned long size =
      (sizeof(T) % 8 == 0 && alignof(T) % 8 == 0) ? 8
      : (sizeof(T) % 4 == 0 && alignof(T) % 4 == 0) ? 4
      : (sizeof(T) % 2 == 0 && alignof(T) % 2 == 0) ? 2 : 1;
  typedef typename word_of_size<size>::type word;
  struct bytes { word w[sizeof(T) / size]; };
};

template <class T>
struct one_scoped_access
    : std::integral_constant<bool, streams_directly<T>::value && sizeof(T) <= 8> {};

// Relaxed atomic loads and stores at a memory scope (__HIP_MEMORY_SCOPE_AGENT, _SYSTEM): on gfx942
// the agent scope sets sc1 and the system scope sc0 sc1 on the instruction (read from L2, or from
// memory, not from a CU's L1). Each word of a wider value is its own access.
template <int Scope, class T>
__device__ inline typename std::enable_if<one_scoped_access<T>::value, T>::type scoped_load(const T* p) {
  return __hip_atomic_load(p, __ATOMIC_RELAXED, Scope);
}
template <int Scope, class T>
__device__ inline typename std::enable_if<!one_scoped_access<T>::value, T>::type scoped_load(const T* p) {
  typedef words<T> W;
  typename W::bytes in;
  const typename W::word* from = reinterpret_cast<const typename W::word*>(p);
  for (unsigned long i = 0; i < sizeof(T) / W::size; ++i) in.w[i] = __hip_atomic_load(from + i, __ATOMIC_RELAXED, Scope);
  T out;  // the value's bytes, as a copy of it has them (some of HIP's types are not trivially copyable)
  __builtin_memcpy(static_cast<void*>(&out), &in, sizeof(T));
  return out;
}
template <int Scope, class T>
__device__ inline typename std::enable_if<one_scoped_access<T>::value>::type scoped_store(T* p, T value) {
  __hip_atomic_store(p, value, __ATOMIC_RELAXED, Scope);
}
template <int Scope, class T>
__device__ inline typename std::enable_if<!one_scoped_access<T>::value>::type scoped_store(T* p, T value) {
  typedef words<T> W;
  typename W::bytes out;
  __builtin_memcpy(&out, static_cast<const void*>(&value), sizeof(T));
  typename W::word* to = reinterpret_cast<typename W::word*>(p);
  for (unsigned long i = 0; i < sizeof(T) / W::size; ++i) __hip_atomic_store(to + i, out.w[i], __ATOMIC_RELAXED, Scope);
}

// CUDA declares the cache-hinted loads and stores for unqualified types only.
template <class T>
struct hinted_type : std::integral_constant<bool, !std::is_volatile<T>::value && !std::is_const<T>::value> {};

// The value argument of a store is not deduced: CUDA's overloads convert it to the pointee type.
template <class T> struct same { typedef T type; };

}  // namespace detail
}  // namespace xlate_compat

#pragma once
// Cache hints for streaming kernels, plain accesses where they do not apply.
//
//   load_read_only(p)      *p through the read-only (non-coherent) data path: __ldg on a CUDA
//                          device. Only for memory no thread writes during the kernel, or writes
//                          only after its own last read of it (the partitioned solver's staged
//                          loads: each position read once, by the warp that later writes x there).
//   store_streaming(p, v)  *p = v with the evict-first hint (__stcs): data written once and not
//                          read again by the kernel, so it need not displace lines still in use.
//
// Measured on the H100 (docs/performance.md, 2026-11-24): the partitioned solver, double 256,000 x
// 512 on the flat layout, 2.18 ms with plain accesses, 2.12 with __ldg loads, 2.10 with __ldcs
// loads and __stcs stores, __ldcs or __ldlu loads alone no change (a driver built for the
// experiment); with these two, at d7f181c, 2.10-2.12 ms (4.07-4.10x gtsv2StridedBatch).
// Float and double only (the CUDA intrinsics' types); other scalars (complex) are read and
// written plainly.

#include <Kokkos_Core.hpp>
#include <type_traits>

namespace tridiag::impl {

template <class T>
inline constexpr bool has_cache_hints = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_read_only(const T* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (has_cache_hints<T>) return __ldg(p);
#endif
  return *p;
}

/// Asks the memory system to bring *p towards the thread (a CUDA device: into L2, no register
/// written, no wait, never a fault); nothing elsewhere. For loops whose next loads cannot be issued
/// early (they follow stores the compiler cannot tell apart from them).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void prefetch(const T& v) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.L2 [%0];" ::"l"(&v));  // generic: a shared-memory address is a no-op
#else
  (void)v;
#endif
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION void store_streaming(T* p, const T& v) {
#if defined(__CUDA_ARCH__)
  if constexpr (has_cache_hints<T>) {
    __stcs(p, v);
    return;
  }
#endif
  *p = v;
}

}  // namespace tridiag::impl

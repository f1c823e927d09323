#pragma once
// Warp shuffles (CUDA) for the cooperative kernels: the one place where tridiag uses a backend
// intrinsic directly. Kokkos 3.4 has Kokkos::shfl_up/down, but they are not part of the API that
// later versions keep, so tridiag calls __shfl_*_sync itself.
//
// Only meaningful inside CUDA device code with all 32 lanes of the warp converged (the callers
// guarantee it: team sizes are multiples of 32 and every lane takes the same path). The host
// versions exist so that host compilation passes of a kernel compile; they are never called.

#include <Kokkos_Core.hpp>
#include <type_traits>

namespace tridiag::compat {

/// True in the device pass of a CUDA compilation.
#if defined(__CUDA_ARCH__)
inline constexpr bool warp_shuffles_available = true;
#else
inline constexpr bool warp_shuffles_available = false;
#endif

/// True for execution spaces whose team threads run in warps of 32 lanes (CUDA).
template <class ExecSpace>
inline constexpr bool runs_in_warps =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<ExecSpace, Kokkos::Cuda>;
#else
    false;
#endif

namespace impl {
enum class ShuffleKind { up, down, xor_lane };

template <ShuffleKind Kind, class T>
KOKKOS_FORCEINLINE_FUNCTION T shuffle_scalar(const T& v, int delta) {
#if defined(__CUDA_ARCH__)
  constexpr unsigned all = 0xffffffffu;
  if constexpr (Kind == ShuffleKind::up) return __shfl_up_sync(all, v, delta);
  else if constexpr (Kind == ShuffleKind::down) return __shfl_down_sync(all, v, delta);
  else return __shfl_xor_sync(all, v, delta);
#else
  (void)delta;
  Kokkos::abort("tridiag: warp shuffle called outside CUDA device code");
  return v;
#endif
}

/// float, double and int shuffle as they are; a Kokkos::complex shuffles its two parts.
template <ShuffleKind Kind, class T>
struct Shuffle {
  KOKKOS_FORCEINLINE_FUNCTION static T apply(const T& v, int delta) { return shuffle_scalar<Kind>(v, delta); }
};
template <ShuffleKind Kind, class Real>
struct Shuffle<Kind, Kokkos::complex<Real>> {
  KOKKOS_FORCEINLINE_FUNCTION static Kokkos::complex<Real> apply(const Kokkos::complex<Real>& v, int delta) {
    return Kokkos::complex<Real>(shuffle_scalar<Kind>(v.real(), delta), shuffle_scalar<Kind>(v.imag(), delta));
  }
};
}  // namespace impl

/// v of lane (this lane - delta); lanes below delta get their own v back.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T shuffle_up(const T& v, int delta) {
  return impl::Shuffle<impl::ShuffleKind::up, T>::apply(v, delta);
}
/// v of lane (this lane + delta); lanes at or above 32 - delta get their own v back.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T shuffle_down(const T& v, int delta) {
  return impl::Shuffle<impl::ShuffleKind::down, T>::apply(v, delta);
}
/// v of lane (this lane ^ mask).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T shuffle_xor(const T& v, int mask) {
  return impl::Shuffle<impl::ShuffleKind::xor_lane, T>::apply(v, mask);
}

/// Orders the lanes of a warp (CUDA __syncwarp); nothing elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void sync_warp() {
#if defined(__CUDA_ARCH__)
  __syncwarp();
#endif
}

}  // namespace tridiag::compat

#pragma once
// The one place where tridiag adapts to differences between Kokkos versions (3.4 ... 5.x).
// Everything else in tridiag uses only API that is stable across that range, plus what this
// header provides under tridiag::compat.

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <map>
#include <mutex>

// Kernels are functors. Every parallel_for / parallel_reduce body inside tridiag's headers is a
// named functor, never KOKKOS_LAMBDA: nvcc's extended __host__ __device__ lambdas inside a
// template that several translation units instantiate alike keep per-unit helper state, and after
// the linker merges the template one unit can call a null function pointer on a host backend
// (seen here: Serial/OpenMP tests segfaulting in a CUDA build, 2026-11-23; the same mechanism is
// described in IPPL-framework/ippl#564). Applications include these headers from many files.

namespace tridiag::compat {

// Mathematical functions: Kokkos::Experimental:: in 3.x (before 3.7), Kokkos:: from 3.7 on.
#if KOKKOS_VERSION >= 30700
namespace kokkos_math = ::Kokkos;
#else
namespace kokkos_math = ::Kokkos::Experimental;
#endif

/// |x| for real scalars, on host and device.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real abs(Real x) {
  return kokkos_math::fabs(x);
}
/// |z| for complex scalars (Kokkos::abs(complex) exists in every supported version).
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real abs(const Kokkos::complex<Real>& z) {
  return Kokkos::abs(z);
}

/// True when x is neither infinite nor NaN.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION bool isfinite(Real x) {
  return kokkos_math::isfinite(x);
}
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION bool isfinite(const Kokkos::complex<Real>& z) {
  return kokkos_math::isfinite(z.real()) && kokkos_math::isfinite(z.imag());
}

/// Quiet NaN of a real or complex scalar (both parts NaN). std::numeric_limits is not usable in
/// device code without relaxed constexpr, and Kokkos' quiet_NaN trait only exists from 3.6 on.
template <class Scalar>
struct nan_value {
  KOKKOS_FORCEINLINE_FUNCTION static Scalar get() { return kokkos_math::nan(""); }
};
template <>
struct nan_value<float> {
  KOKKOS_FORCEINLINE_FUNCTION static float get() { return kokkos_math::nanf(""); }
};
template <class Real>
struct nan_value<Kokkos::complex<Real>> {
  KOKKOS_FORCEINLINE_FUNCTION static Kokkos::complex<Real> get() {
    return Kokkos::complex<Real>(nan_value<Real>::get(), nan_value<Real>::get());
  }
};
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION Scalar quiet_nan() {
  return nan_value<Scalar>::get();
}

/// Number of threads (host) or resident thread slots (device) of an execution space instance.
/// In 3.x concurrency() is static; in 4.x it is a member. Calling through an instance works in both.
template <class ExecSpace>
int concurrency(const ExecSpace& exec) {
  return exec.concurrency();
}

/// What occupancy estimates need of a GPU (algo::Automatic's staging rule, hines_solve.hpp): its
/// multiprocessors, the threads and blocks one runs at once, its shared memory and what the
/// runtime reserves of it per block. All zero on spaces that are not a GPU (or unknown here).
struct GpuFacts {
  int multiprocessors = 0;
  int threads_per_multiprocessor = 0;
  int blocks_per_multiprocessor = 0;
  std::size_t shared_per_multiprocessor = 0;
  std::size_t shared_reserved_per_block = 0;
};
template <class ExecSpace>
GpuFacts gpu_facts(const ExecSpace&) {
  return {};
}
#if defined(KOKKOS_ENABLE_CUDA)
namespace detail {
/// Asks the CUDA runtime for `device`'s facts. Zeros where it does not answer.
inline GpuFacts query_gpu_facts(int device) {
  auto attribute = [device](cudaDeviceAttr what) {
    int value = 0;
    return cudaDeviceGetAttribute(&value, what, device) == cudaSuccess ? value : 0;
  };
  GpuFacts facts;
  facts.multiprocessors = attribute(cudaDevAttrMultiProcessorCount);
  facts.threads_per_multiprocessor = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  facts.blocks_per_multiprocessor = attribute(cudaDevAttrMaxBlocksPerMultiprocessor);
  facts.shared_per_multiprocessor = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  facts.shared_reserved_per_block = static_cast<std::size_t>(attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  return facts;
}
}  // namespace detail

/// From the CUDA runtime (the device Kokkos made current), not from Kokkos, whose accessors for
/// it differ between versions. Zeros where the runtime does not answer. A device's facts do not
/// change, and a solve inside a time loop asks for them every step: the runtime is asked once
/// per device (a complete answer is kept; an incomplete one is asked again next time).
inline GpuFacts gpu_facts(const Kokkos::Cuda&) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return {};
  static std::mutex mutex;
  static std::map<int, GpuFacts> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = known.find(device); found != known.end()) return found->second;
  const GpuFacts facts = detail::query_gpu_facts(device);
  const bool complete = facts.multiprocessors > 0 && facts.threads_per_multiprocessor > 0 &&
                        facts.blocks_per_multiprocessor > 0 && facts.shared_per_multiprocessor > 0;
  if (complete) known.emplace(device, facts);
  return facts;
}
#endif

/// `policy` with the hint that its kernel is light (Kokkos::Experimental::WorkItemProperty::
/// HintLightWeight, 3.4 ... 5.x): on CUDA the functor then travels as a kernel argument. Without it
/// Kokkos 3.4 copies a functor of 512 bytes or more to constant memory before the launch and
/// waits on the previous such launch (measured for algo::WarpStaged: about 1% of a 0.53 ms solve).
template <class Policy>
auto light_weight(const Policy& policy) {
  return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

}  // namespace tridiag::compat

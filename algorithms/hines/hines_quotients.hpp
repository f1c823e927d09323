#pragma once
// A Hines row's two quotients, r = x / w and c = a / w, correctly rounded (the bits of `/`), for
// the sweeps that gain by it (warp_staged_kernel.hpp; serial_hines.hpp HinesElimination with
// OneReciprocal, which algo::SubtreeParallel uses and algo::PerNeuron does not). On a
// CUDA device, in double, CUDA's own division fast path (div.rn.f64 as ptxas expands it) split so
// that one refined reciprocal serves both quotients and their refinements overlap; where CUDA's
// own checks of that path fail, `/`. Elsewhere, and in float, `/` twice.

#include <Kokkos_Core.hpp>
#include <type_traits>

namespace tridiag::hines::impl {

#if defined(__CUDA_ARCH__)
/// r = x / w and c = a / w in double, each correctly rounded (the bits of `/`): CUDA's division
/// fast path (div.rn.f64 as ptxas expands it) split so that one refined reciprocal serves both
/// quotients and their refinements overlap; where CUDA's own checks of that path fail (a tiny
/// nonzero numerator, a quotient's exponent out of range, w not finite), `/`.
__device__ __forceinline__ void device_quotients(double x, double a, double w, double& r, double& c) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(w));
  double e = fma(-w, y, 1.0);
  e = fma(e, e, e);
  y = fma(y, e, y);
  e = fma(-w, y, 1.0);
  y = fma(y, e, y);
  // A zero numerator (the zero-area nodes of a cell, a root's a, a dummy step) fails CUDA's
  // check but its quotient is exact: 0 y is the zero of the right sign (y has w's sign; w
  // infinite, zero or NaN give 0, NaN, NaN as 0 / w does; a subnormal w, flushed here, fails
  // usable_pivot and the neuron is solved again).
  // Branch-free (selp, bitwise &, |): written with ?: and ||, the compiler branched around the
  // refinement for v == 0, four branches per row on the chain of the elimination.
  auto quotient = [&](double v, double& q) {
    const double q0 = v * y;
    const double q1 = fma(y, fma(-w, q0, v), q0);
    asm("{\n\t.reg .pred z;\n\tsetp.eq.f64 z, %3, 0d0000000000000000;\n\tselp.f64 %0, %1, %2, z;\n\t}"
        : "=d"(q)
        : "d"(q0), "d"(q1), "d"(v));
    const float v_hi = __int_as_float(__double2hiint(v)), q_hi = __int_as_float(__double2hiint(q));
    const float w_hi = __int_as_float(__double2hiint(w));
    return (v == 0.0) | ((fabsf(v_hi) >= 6.5827683646048100446e-37f) &
                         (fabsf(fmaf(0.0f, w_hi, q_hi)) > 1.469367938527859385e-39f));
  };
  if (!quotient(x, r) | !quotient(a, c)) {
    r = x / w;
    c = a / w;
  }
}
#endif

template <class Value, class Matrix>
KOKKOS_FORCEINLINE_FUNCTION void quotients(const Value& x, const Matrix& a, const Matrix& w, Value& r, Matrix& c) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<Value, double> && std::is_same_v<Matrix, double>) {
    device_quotients(x, a, w, r, c);
    return;
  }
#endif
  r = x / w;
  c = a / w;
}

}  // namespace tridiag::hines::impl

#pragma once
// The Thomas algorithm for one tridiagonal system, run by one thread (cuThomasBatch, Section 2;
// LAPACK equivalent: ?gtsv without pivoting, or ?pttrf/?pttrs for SPD matrices).
//
// Stable without pivoting for diagonally dominant and symmetric positive definite matrices; for
// other matrices use the pivoting solver. Breakdown is detected, never silent: a zero, tiny
// (below the smallest normal number) or non-finite pivot at row k returns k (1-based), a
// non-finite value in the forward sweep returns -k (its first row), and an overflow in the back
// substitution returns -1 (it reaches row 1: finite - g Inf is not finite); the solution is then
// set to NaN.
//
// Written once against row accessors (callables r(i) returning a reference), so one source
// serves every layout, fixed and variable batches, host and device.

#include <type_traits>

#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::thomas {

namespace impl {
using tridiag::impl::usable_pivot;  // core/breakdown.hpp
using tridiag::impl::poison_solution;  // core/breakdown.hpp

/// The status of a back substitution x_i = x_i - g_i x_{i+1} (i = n-2 .. 0) whose forward sweep
/// was finite, given x_0 (its last value): a value that overflowed there makes every row above it
/// non-finite (finite - g Inf is Inf, or NaN where g = 0), so x_0 tells, and row 1 is the first
/// non-finite row: returns -1 after poisoning x, else ok (0).
template <class X, class Value>
KOKKOS_INLINE_FUNCTION int back_substitution_status(index_type n, const X& x, const Value& x0) {
  if (compat::isfinite(x0)) return status_code::ok;
  poison_solution(n, x);
  return -1;
}

}  // namespace impl

/// One thread solves one system of n rows:
///   a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i),  i = 0..n-1  (a(0), c(n-1) never read).
/// g is scratch of n rows (matrix scalar type) for the modified upper diagonal c'; x may be the
/// same storage as d (in place). Returns a status code (core/status.hpp).
/// Memory traffic: reads a, b, c, d; writes g, x; reads g, x back; writes x (9 values per row).
struct SerialThomas {
  static constexpr const char* name() { return "thomas"; }

  template <class A, class B, class C, class D, class X, class G>
  KOKKOS_INLINE_FUNCTION static int invoke(index_type n, const A& a, const B& b, const C& c, const D& d, const X& x,
                                           const G& g) {
    using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(b(0))>>;
    using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
    if (n <= 0) return status_code::ok;
    Matrix w = b(0);
    if (!impl::usable_pivot(w)) {
      impl::poison_solution(n, x);
      return 1;
    }
    Matrix inv = Matrix(1) / w;
    Matrix g_prev = n > 1 ? c(0) * inv : Matrix(0);
    Value x_prev = Value(d(0)) * inv;
    if (n > 1) g(0) = g_prev;
    x(0) = x_prev;
    // Forward elimination: w_i = b_i - a_i g_{i-1}, g_i = c_i / w_i, x_i = (d_i - a_i x_{i-1}) / w_i.
    for (index_type i = 1; i < n; ++i) {
      const Matrix ai = a(i);
      w = b(i) - ai * g_prev;
      if (!impl::usable_pivot(w)) {
        impl::poison_solution(n, x);
        return static_cast<int>(i + 1);
      }
      inv = Matrix(1) / w;
      x_prev = (Value(d(i)) - ai * x_prev) * inv;
      x(i) = x_prev;
      if (i + 1 < n) {
        g_prev = c(i) * inv;
        g(i) = g_prev;
      }
    }
    // A NaN or infinity anywhere in d (or overflow) reaches the last row: one check suffices.
    if (!compat::isfinite(x_prev)) {
      index_type first = 0;
      while (first < n && compat::isfinite(x(first))) ++first;
      impl::poison_solution(n, x);
      return -static_cast<int>(first + 1);
    }
    // Back substitution: x_i = x_i - g_i x_{i+1}.
    for (index_type i = n - 2; i >= 0; --i) {
      x_prev = x(i) - g(i) * x_prev;
      x(i) = x_prev;
    }
    return impl::back_substitution_status(n, x, x_prev);
  }
};

}  // namespace tridiag::thomas

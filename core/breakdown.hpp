#pragma once
// What every solver without pivoting calls a breakdown, in one place: a pivot that is zero, tiny
// (below the smallest normal number) or non-finite; and what a failed system's solution becomes
// (NaN on every row), so that no failure is silent.

#include <type_traits>

#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::impl {

/// False for a zero, tiny or non-finite pivot.
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION bool usable_pivot(const Scalar& w) {
  using Real = real_type_t<Scalar>;
  return compat::abs(w) >= real_constants<Real>::tiny && compat::isfinite(w);
}

/// Fills rows [0, n) of x (a row accessor) with NaN: the documented result of a failed system.
template <class X>
KOKKOS_INLINE_FUNCTION void poison_solution(index_type n, const X& x) {
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
  for (index_type i = 0; i < n; ++i) x(i) = compat::quiet_nan<Value>();
}

}  // namespace tridiag::impl

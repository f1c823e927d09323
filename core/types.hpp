#pragma once
// Index and scalar conventions shared by every part of tridiag.

#include <cfloat>
#include <complex>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

namespace tridiag {

/// Signed 64-bit index for systems, rows and storage offsets: a batch of 256,000 systems of
/// 512 rows in a padded layout already needs more than 2^31 scalars for several vectors.
using index_type = std::int64_t;

/// The real type underneath a scalar: double for double and Kokkos::complex<double>.
template <class Scalar>
struct real_type {
  using type = Scalar;
};
template <class Real>
struct real_type<Kokkos::complex<Real>> {
  using type = Real;
};
template <class Real>
struct real_type<std::complex<Real>> {
  using type = Real;
};
template <class Scalar>
using real_type_t = typename real_type<Scalar>::type;

/// float or double: the matrix scalars of the solvers documented for real matrices (cyclic,
/// periodic, pivoting).
template <class Scalar>
inline constexpr bool is_real_scalar_v = std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>;

/// The right-hand side scalars those solvers take with a matrix of scalar Matrix: Matrix itself,
/// or Kokkos::complex<Matrix> (a real matrix with a complex right-hand side).
template <class Value, class Matrix>
inline constexpr bool is_rhs_scalar_of_v =
    std::is_same_v<Value, Matrix> || std::is_same_v<Value, Kokkos::complex<Matrix>>;

/// Machine constants of a real type, usable in device code (plain constants, no numeric_limits).
template <class Real>
struct real_constants;
template <>
struct real_constants<float> {
  static constexpr float epsilon = FLT_EPSILON;  ///< unit roundoff x 2
  static constexpr float tiny = FLT_MIN;         ///< smallest normal number
};
template <>
struct real_constants<double> {
  static constexpr double epsilon = DBL_EPSILON;
  static constexpr double tiny = DBL_MIN;
};

}  // namespace tridiag

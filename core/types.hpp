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

#pragma once
// LAPACK as an oracle (Debian's LAPACKE over OpenBLAS / reference LAPACK): ?gtsv solves one
// tridiagonal system with partial pivoting; ?gttrf + ?gtcon estimate its condition number, from
// which the tests derive their forward-error bounds.

#include <complex>
#include <vector>

namespace tridiag::test {

/// x solves the system (a[0], c[n-1] ignored) with LAPACK ?gtsv in precision T; returns LAPACK's
/// info (0 = success, k > 0 = exactly singular U(k,k)).
template <class T>
int lapack_gtsv(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c, const std::vector<T>& d,
                std::vector<T>& x);

/// Real matrix (T), complex right-hand side, through ?gtsv in complex<T>.
template <class T>
int lapack_gtsv(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
                const std::vector<std::complex<T>>& d, std::vector<std::complex<T>>& x);

/// Reciprocal condition number in the infinity norm (dgtcon after dgttrf), 0 if singular.
double lapack_rcond_inf(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c);

}  // namespace tridiag::test

#pragma once
// Test oracle, independent of tridiag's code and of Kokkos: Gaussian elimination with partial
// pivoting on the tridiagonal band (the algorithm of LAPACK ?gtsv), carried out in long double.
// Obviously right, never optimised. Flat std::vector input, one system at a time.

#include <complex>
#include <vector>

namespace tridiag::test {

/// Solves the system a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i) (a[0] and c[n-1] ignored).
/// Returns false if the matrix is exactly singular in long double.
bool banded_lu_solve(const std::vector<long double>& a, const std::vector<long double>& b,
                     const std::vector<long double>& c, const std::vector<long double>& d,
                     std::vector<long double>& x);

/// Complex right-hand side, real matrix.
bool banded_lu_solve(const std::vector<long double>& a, const std::vector<long double>& b,
                     const std::vector<long double>& c, const std::vector<std::complex<long double>>& d,
                     std::vector<std::complex<long double>>& x);

}  // namespace tridiag::test

#pragma once
// Test oracle for periodic tridiagonal systems, independent of tridiag's code and of Kokkos: the
// system is assembled as a dense n x n matrix in long double (indices modulo n, entries that land
// on the same position added up) and solved by dense Gaussian elimination with partial pivoting.
// A different algorithm from the solver's (Sherman-Morrison + Thomas). Obviously right, never
// optimised beyond skipping rows whose multiplier is exactly zero (which keeps n = 512 cheap, as
// only rows i+1 and n-1 have nonzeros below the diagonal of column i).

#include <complex>
#include <vector>

namespace tridiag::test {

/// Row-major dense matrix of the periodic system a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i),
/// indices modulo n: A(0, n-1) += a(0), A(n-1, 0) += c(n-1).
std::vector<long double> assemble_periodic(const std::vector<long double>& a, const std::vector<long double>& b,
                                           const std::vector<long double>& c);

/// Solves the dense n x n system A x = d (A row-major) by Gaussian elimination with partial
/// pivoting in long double. Returns false when a pivot is exactly zero (singular).
bool dense_solve(std::vector<long double> A, const std::vector<long double>& d, std::vector<long double>& x);
bool dense_solve(std::vector<long double> A, const std::vector<std::complex<long double>>& d,
                 std::vector<std::complex<long double>>& x);

/// Upper bound on the infinity-norm condition number of a strictly row diagonally dominant dense
/// matrix: ||A||_inf / min_i (|A(i,i)| - sum_{j != i} |A(i,j)|) (Varah's bound on ||A^-1||_inf).
/// Returns infinity when A is not strictly diagonally dominant.
long double dominant_condition_bound(const std::vector<long double>& A, std::size_t n);

}  // namespace tridiag::test

#pragma once
// Test-only oracle: the plain sequential Hines solve of ICCS 2017 (Valero-Lara et al.,
// "cuHinesBatch"), Algorithm 1, on std::vector, in long double. Kokkos-free, never optimised.
// It is itself checked against dense Gaussian elimination in test_discretization.cpp.

#include <cstddef>
#include <vector>

namespace tridiag::hines::test {

/// Solves A x = rhs for a Hines matrix: row i has d[i] on the diagonal and a[i] (lower) at
/// column parent[i]; row parent[i] has b[i] (upper) at column i; parent[i] < i, parent[0] = -1.
/// A row with parent -1 is the root of its own tree (row 0 always; several make a forest).
/// Returns x. No pivoting (Hines matrices from cables are diagonally dominant).
inline std::vector<double> hines_solve_reference(const std::vector<double>& a,
                                                 const std::vector<double>& b,
                                                 const std::vector<double>& d,
                                                 const std::vector<double>& rhs,
                                                 const std::vector<int>& parent) {
  const std::size_t n = d.size();
  std::vector<long double> dd(d.begin(), d.end());
  std::vector<long double> r(rhs.begin(), rhs.end());
  // Backward sweep: eliminate each row's upper entry in its parent's row, leaves first.
  for (std::size_t i = n; i-- > 1;) {
    if (parent[i] < 0) continue;
    const long double factor = b[i] / dd[i];
    dd[parent[i]] -= factor * a[i];
    r[parent[i]] -= factor * r[i];
  }
  // Forward sweep: root first.
  std::vector<double> x(n);
  if (n == 0) return x;
  r[0] /= dd[0];
  for (std::size_t i = 1; i < n; ++i) {
    if (parent[i] >= 0) r[i] -= a[i] * r[parent[i]];
    r[i] /= dd[i];
  }
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(r[i]);
  return x;
}

}  // namespace tridiag::hines::test

#pragma once
// Test oracle: the sequential Thomas algorithm, written plainly on std::vector in the working
// precision, Kokkos-free and independent of tridiag's kernels. It is the reference the batched
// Thomas-class solvers must agree with to a few units of roundoff (same algorithm, so a much
// tighter check than the one against the pivoting LU).

#include <vector>

namespace tridiag::test {

/// Solves a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i) (a[0], c[n-1] ignored); no pivoting.
template <class T>
std::vector<T> reference_thomas(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
                                const std::vector<T>& d) {
  const std::size_t n = b.size();
  std::vector<T> cp(n), x(n);
  if (n == 0) return x;
  cp[0] = n > 1 ? c[0] / b[0] : T(0);
  x[0] = d[0] / b[0];
  for (std::size_t i = 1; i < n; ++i) {
    const T w = b[i] - a[i] * cp[i - 1];
    cp[i] = i + 1 < n ? c[i] / w : T(0);
    x[i] = (d[i] - a[i] * x[i - 1]) / w;
  }
  for (std::size_t i = n - 1; i-- > 0;) x[i] -= cp[i] * x[i + 1];
  return x;
}

}  // namespace tridiag::test

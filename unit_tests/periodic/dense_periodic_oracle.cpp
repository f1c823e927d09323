#include "periodic/dense_periodic_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace tridiag::test {

std::vector<long double> assemble_periodic(const std::vector<long double>& a, const std::vector<long double>& b,
                                           const std::vector<long double>& c) {
  const std::size_t n = b.size();
  std::vector<long double> A(n * n, 0.0L);
  for (std::size_t i = 0; i < n; ++i) {
    A[i * n + (i + n - 1) % n] += a[i];
    A[i * n + i] += b[i];
    A[i * n + (i + 1) % n] += c[i];
  }
  return A;
}

namespace {
template <class Value>
bool solve(std::vector<long double> A, const std::vector<Value>& d_in, std::vector<Value>& x) {
  const std::size_t n = d_in.size();
  std::vector<Value> d(d_in);
  x.assign(n, Value(0));
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::fabs(A[r * n + k]) > std::fabs(A[p * n + k])) p = r;
    if (A[p * n + k] == 0) return false;
    if (p != k) {
      for (std::size_t j = 0; j < n; ++j) std::swap(A[k * n + j], A[p * n + j]);
      std::swap(d[k], d[p]);
    }
    for (std::size_t r = k + 1; r < n; ++r) {
      const long double m = A[r * n + k] / A[k * n + k];
      if (m == 0) continue;
      for (std::size_t j = k; j < n; ++j) A[r * n + j] -= m * A[k * n + j];
      d[r] -= m * d[k];
    }
  }
  for (std::size_t k = n; k-- > 0;) {
    Value v = d[k];
    for (std::size_t j = k + 1; j < n; ++j) v -= A[k * n + j] * x[j];
    x[k] = v / A[k * n + k];
  }
  return true;
}
}  // namespace

bool dense_solve(std::vector<long double> A, const std::vector<long double>& d, std::vector<long double>& x) {
  return solve(std::move(A), d, x);
}

bool dense_solve(std::vector<long double> A, const std::vector<std::complex<long double>>& d,
                 std::vector<std::complex<long double>>& x) {
  return solve(std::move(A), d, x);
}

long double dominant_condition_bound(const std::vector<long double>& A, std::size_t n) {
  long double norm = 0, margin = std::numeric_limits<long double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    long double off = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) off += std::fabs(A[i * n + j]);
    norm = std::max(norm, off + std::fabs(A[i * n + i]));
    margin = std::min(margin, std::fabs(A[i * n + i]) - off);
  }
  if (n == 0) return 1;
  return margin > 0 ? norm / margin : std::numeric_limits<long double>::infinity();
}

}  // namespace tridiag::test

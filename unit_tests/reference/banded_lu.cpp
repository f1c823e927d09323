#include "reference/banded_lu.hpp"

#include <cmath>

namespace tridiag::test {

namespace {
template <class Value>
bool solve(const std::vector<long double>& a_in, const std::vector<long double>& b_in,
           const std::vector<long double>& c_in, const std::vector<Value>& d_in, std::vector<Value>& x) {
  const std::size_t n = b_in.size();
  x.assign(n, Value(0));
  if (n == 0) return true;
  // Band storage of U after pivoting: u0 (diagonal), u1, u2 (two superdiagonals), l (multipliers).
  std::vector<long double> sub(n, 0), u0(b_in), u1(n, 0), u2(n, 0);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    sub[i] = a_in[i + 1];
    u1[i] = c_in[i];
  }
  std::vector<Value> d(d_in);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (std::fabs(u0[i]) >= std::fabs(sub[i])) {
      if (u0[i] == 0) return false;
      const long double m = sub[i] / u0[i];
      u0[i + 1] -= m * u1[i];
      d[i + 1] -= m * d[i];
      u2[i] = 0;
    } else {
      // Swap rows i and i+1.
      const long double m = u0[i] / sub[i];
      u0[i] = sub[i];
      const long double t = u0[i + 1];
      u0[i + 1] = u1[i] - m * t;
      u1[i] = t;
      u2[i] = (i + 2 < n) ? u1[i + 1] : 0;
      if (i + 2 < n) u1[i + 1] = -m * u2[i];
      std::swap(d[i], d[i + 1]);
      d[i + 1] -= m * d[i];
    }
  }
  if (u0[n - 1] == 0) return false;
  for (std::size_t k = n; k-- > 0;) {
    Value v = d[k];
    if (k + 1 < n) v -= u1[k] * x[k + 1];
    if (k + 2 < n) v -= u2[k] * x[k + 2];
    x[k] = v / u0[k];
  }
  return true;
}
}  // namespace

bool banded_lu_solve(const std::vector<long double>& a, const std::vector<long double>& b,
                     const std::vector<long double>& c, const std::vector<long double>& d,
                     std::vector<long double>& x) {
  return solve(a, b, c, d, x);
}

bool banded_lu_solve(const std::vector<long double>& a, const std::vector<long double>& b,
                     const std::vector<long double>& c, const std::vector<std::complex<long double>>& d,
                     std::vector<std::complex<long double>>& x) {
  return solve(a, b, c, d, x);
}

}  // namespace tridiag::test

#include "reference/lapack_oracle.hpp"

#include <algorithm>
#include <cmath>

#include <lapacke.h>

namespace tridiag::test {

namespace {
// LAPACK's dl and du have n-1 entries: dl[i] = A(i+1, i) = a[i+1], du[i] = A(i, i+1) = c[i].
template <class T>
void split(const std::vector<T>& a, const std::vector<T>& c, std::vector<T>& dl, std::vector<T>& du) {
  const std::size_t n = c.size();
  dl.assign(n > 1 ? n - 1 : 1, T(0));
  du.assign(n > 1 ? n - 1 : 1, T(0));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    dl[i] = a[i + 1];
    du[i] = c[i];
  }
}
int gtsv(lapack_int n, float* dl, float* d, float* du, float* b) {
  return LAPACKE_sgtsv(LAPACK_COL_MAJOR, n, 1, dl, d, du, b, std::max<lapack_int>(n, 1));
}
int gtsv(lapack_int n, double* dl, double* d, double* du, double* b) {
  return LAPACKE_dgtsv(LAPACK_COL_MAJOR, n, 1, dl, d, du, b, std::max<lapack_int>(n, 1));
}
int gtsv(lapack_int n, std::complex<float>* dl, std::complex<float>* d, std::complex<float>* du,
         std::complex<float>* b) {
  return LAPACKE_cgtsv(LAPACK_COL_MAJOR, n, 1, reinterpret_cast<lapack_complex_float*>(dl),
                       reinterpret_cast<lapack_complex_float*>(d), reinterpret_cast<lapack_complex_float*>(du),
                       reinterpret_cast<lapack_complex_float*>(b), std::max<lapack_int>(n, 1));
}
int gtsv(lapack_int n, std::complex<double>* dl, std::complex<double>* d, std::complex<double>* du,
         std::complex<double>* b) {
  return LAPACKE_zgtsv(LAPACK_COL_MAJOR, n, 1, reinterpret_cast<lapack_complex_double*>(dl),
                       reinterpret_cast<lapack_complex_double*>(d), reinterpret_cast<lapack_complex_double*>(du),
                       reinterpret_cast<lapack_complex_double*>(b), std::max<lapack_int>(n, 1));
}
}  // namespace

template <class T>
int lapack_gtsv(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c, const std::vector<T>& d,
                std::vector<T>& x) {
  std::vector<T> dl, du, diag(b);
  split(a, c, dl, du);
  x = d;
  if (b.empty()) return 0;
  return gtsv(static_cast<lapack_int>(b.size()), dl.data(), diag.data(), du.data(), x.data());
}

template <class T>
int lapack_gtsv(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
                const std::vector<std::complex<T>>& d, std::vector<std::complex<T>>& x) {
  using C = std::complex<T>;
  std::vector<C> ca(a.begin(), a.end()), cb(b.begin(), b.end()), cc(c.begin(), c.end());
  return lapack_gtsv(ca, cb, cc, d, x);
}

template int lapack_gtsv(const std::vector<float>&, const std::vector<float>&, const std::vector<float>&,
                         const std::vector<float>&, std::vector<float>&);
template int lapack_gtsv(const std::vector<double>&, const std::vector<double>&, const std::vector<double>&,
                         const std::vector<double>&, std::vector<double>&);
template int lapack_gtsv(const std::vector<float>&, const std::vector<float>&, const std::vector<float>&,
                         const std::vector<std::complex<float>>&, std::vector<std::complex<float>>&);
template int lapack_gtsv(const std::vector<double>&, const std::vector<double>&, const std::vector<double>&,
                         const std::vector<std::complex<double>>&, std::vector<std::complex<double>>&);

double lapack_rcond_inf(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c) {
  const lapack_int n = static_cast<lapack_int>(b.size());
  if (n == 0) return 1.0;
  std::vector<double> dl, du, d(b), du2(std::max<lapack_int>(n, 1));
  split(a, c, dl, du);
  double anorm = 0;  // infinity norm: largest row sum
  for (lapack_int i = 0; i < n; ++i) {
    double row = std::fabs(b[i]);
    if (i > 0) row += std::fabs(a[i]);
    if (i + 1 < n) row += std::fabs(c[i]);
    anorm = std::max(anorm, row);
  }
  std::vector<lapack_int> ipiv(n);
  if (LAPACKE_dgttrf(n, dl.data(), d.data(), du.data(), du2.data(), ipiv.data()) != 0) return 0.0;
  double rcond = 0;
  if (LAPACKE_dgtcon('I', n, dl.data(), d.data(), du.data(), du2.data(), ipiv.data(), anorm, &rcond) != 0) return 0.0;
  return rcond;
}

}  // namespace tridiag::test

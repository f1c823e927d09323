// The backward-error readback shared by the weak-dominance probes: reads x and status back to the
// host and measures each solved system against the matrix exactly as stored, with the corner
// entries a(0) and c(n-1) read modulo n. An open (non-periodic) matrix therefore stores zero
// corners, which no solver reads, and one formula serves both.
//
// Backward error of a system: ||A x - d||_inf / (||A||_inf ||x||_inf + ||d||_inf) in long double.
#pragma once

#include <tridiag/tridiag.hpp>

#include <algorithm>
#include <cmath>

struct BatchBackwardError {
  int failed = 0;            // systems with status != 0, not measured
  long double worst = 0.0L;  // the worst backward error over the systems with status 0
};

/// `lower`, `diag`, `upper`, `rhs`: host copies of what was solved; `x`, `status`: the solver's
/// outputs in any memory space (fenced and copied here).
template <class HostVector, class Solution, class Status>
BatchBackwardError batch_backward_error(const HostVector& lower, const HostVector& diag, const HostVector& upper,
                                        const HostVector& rhs, const Solution& x, const Status& status) {
  Kokkos::fence();
  const auto hx = tridiag::create_host_copy(x);
  const auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  const tridiag::index_type systems = x.systems(), n = x.rows();
  BatchBackwardError result;
  for (tridiag::index_type s = 0; s < systems; ++s) {
    if (hs(s) != 0) {
      ++result.failed;
      continue;
    }
    long double res = 0, anorm = 0, xnorm = 0, dnorm = 0;
    for (tridiag::index_type i = 0; i < n; ++i) {
      const tridiag::index_type left = (i + n - 1) % n, right = (i + 1) % n;
      const long double a = lower(s, i), b = diag(s, i), c = upper(s, i);
      const long double r = a * hx(s, left) + b * hx(s, i) + c * hx(s, right) - (long double)rhs(s, i);
      res = std::max(res, std::fabs(r));
      anorm = std::max(anorm, std::fabs(a) + std::fabs(b) + std::fabs(c));
      xnorm = std::max(xnorm, std::fabs((long double)hx(s, i)));
      dnorm = std::max(dnorm, std::fabs((long double)rhs(s, i)));
    }
    result.worst = std::max(result.worst, res / (anorm * xnorm + dnorm));
  }
  return result;
}

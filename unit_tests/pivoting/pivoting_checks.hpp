#pragma once
// Oracle comparison for the pivoting solver. Like thomas_checks.hpp (long-double banded LU with
// partial pivoting, LAPACK ?gtsv in the working precision, bound from LAPACK's condition
// estimate), except that random non-dominant matrices can be arbitrarily badly conditioned: the
// forward error is only checked where rcond >= rcond_floor (the bound 16 (n+1) eps / rcond says
// nothing below that), while the backward error, which partial pivoting keeps at O(eps) whatever
// the conditioning (growth factor <= 2 on tridiagonal matrices), is checked on every system.

#include <string>
#include <type_traits>
#include <vector>

#include "reference/banded_lu.hpp"
#include "reference/lapack_oracle.hpp"
#include "test_support.hpp"

namespace tridiag::test {

/// rcond below which the forward error of a random system is not checked.
template <class R>
double rcond_floor() {
  return std::is_same_v<R, float> ? 1e-3 : 1e-6;
}

/// Checks x (flat, host) against the oracles for every system of h; returns how many systems had
/// their forward error checked (those with rcond >= floor; pass 0 to check all).
template <class R>
index_type expect_solves_like_gtsv(const HostBatch<R>& h, const std::vector<R>& x, const std::string& what,
                                   double floor = rcond_floor<R>()) {
  const index_type n = h.rows;
  const long double eps = eps_of<R>();
  index_type checked = 0;
  for (index_type s = 0; s < h.systems; ++s) {
    std::vector<long double> ref;
    EXPECT_TRUE(banded_lu_solve(h.system(h.a, s), h.system(h.b, s), h.system(h.c, s), h.system(h.d, s), ref))
        << what << ": oracle found system " << s << " singular";
    std::vector<double> ad(h.a.begin() + s * n, h.a.begin() + (s + 1) * n),
        bd(h.b.begin() + s * n, h.b.begin() + (s + 1) * n), cd(h.c.begin() + s * n, h.c.begin() + (s + 1) * n);
    const double rcond = lapack_rcond_inf(ad, bd, cd);
    const long double forward_bound = 16.0L * (n + 1) * eps / rcond;
    const long double backward_bound = 8.0L * (n + 1) * eps;
    const long double bwd = backward_error(h, s, x);
    EXPECT_TRUE(bwd <= backward_bound) << what << ": system " << s << ", n = " << n << ": backward error "
                                       << static_cast<double>(bwd) << " > " << static_cast<double>(backward_bound)
                                       << " (rcond " << rcond << ", seed " << test_seed() << ")";
    if (rcond >= floor) {
      ++checked;
      const long double fwd = forward_error(x, s * n, ref);
      EXPECT_TRUE(fwd <= forward_bound) << what << ": system " << s << " of " << h.systems << ", n = " << n
                                        << ": forward error " << static_cast<double>(fwd) << " > bound "
                                        << static_cast<double>(forward_bound) << " (rcond " << rcond << ", seed "
                                        << test_seed() << ")";
      if (s < 4) {  // LAPACK ?gtsv in the working precision: the same algorithm, agrees to the bound
        std::vector<R> xl;
        EXPECT_EQ(lapack_gtsv(std::vector<R>(h.a.begin() + s * n, h.a.begin() + (s + 1) * n),
                              std::vector<R>(h.b.begin() + s * n, h.b.begin() + (s + 1) * n),
                              std::vector<R>(h.c.begin() + s * n, h.c.begin() + (s + 1) * n),
                              std::vector<R>(h.d.begin() + s * n, h.d.begin() + (s + 1) * n), xl),
                  0);
        const std::vector<long double> xl_ld(xl.begin(), xl.end());
        EXPECT_TRUE(forward_error(x, s * n, xl_ld) <= 2 * forward_bound)
            << what << ": system " << s << " differs from LAPACK ?gtsv beyond the bound";
      }
    }
    if (::testing::Test::HasFailure()) return checked;  // one failing system tells the story
  }
  return checked;
}

}  // namespace tridiag::test

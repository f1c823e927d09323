#pragma once
// Oracle comparison shared by the Thomas tests: every system of a solved batch against the
// long-double banded LU (forward error, bound from LAPACK's condition estimate) and its backward
// error, plus LAPACK ?gtsv in the working precision.

#include "reference/banded_lu.hpp"
#include "reference/lapack_oracle.hpp"
#include "test_support.hpp"

namespace tridiag::test {

/// Checks x (flat, host) against the oracles for every system of h; `what` names the case.
template <class R>
void expect_matches_oracle(const HostBatch<R>& h, const std::vector<R>& x, const std::string& what) {
  const index_type n = h.rows;
  const long double eps = eps_of<R>();
  for (index_type s = 0; s < h.systems; ++s) {
    std::vector<long double> ref;
    ASSERT_TRUE(banded_lu_solve(h.system(h.a, s), h.system(h.b, s), h.system(h.c, s), h.system(h.d, s), ref))
        << what << ": oracle found system " << s << " singular";
    std::vector<double> ad(h.a.begin() + s * n, h.a.begin() + (s + 1) * n),
        bd(h.b.begin() + s * n, h.b.begin() + (s + 1) * n), cd(h.c.begin() + s * n, h.c.begin() + (s + 1) * n);
    const double rcond = lapack_rcond_inf(ad, bd, cd);
    ASSERT_GT(rcond, 0.0) << what << ": system " << s << " singular for LAPACK";
    const long double forward_bound = 16.0L * (n + 1) * eps / rcond;
    const long double backward_bound = 8.0L * (n + 1) * eps;
    const long double fwd = forward_error(x, s * n, ref);
    const long double bwd = backward_error(h, s, x);
    EXPECT_TRUE(fwd <= forward_bound) << what << ": system " << s << " of " << h.systems << ", n = " << n
                                      << ": forward error " << static_cast<double>(fwd) << " > bound "
                                      << static_cast<double>(forward_bound) << " (seed " << test_seed() << ")";
    EXPECT_TRUE(bwd <= backward_bound) << what << ": system " << s << ", n = " << n << ": backward error "
                                       << static_cast<double>(bwd) << " > " << static_cast<double>(backward_bound)
                                       << " (seed " << test_seed() << ")";
    if (s < 4) {  // LAPACK in the working precision: agrees to the same bound
      std::vector<R> xl;
      ASSERT_EQ(lapack_gtsv(std::vector<R>(h.a.begin() + s * n, h.a.begin() + (s + 1) * n),
                            std::vector<R>(h.b.begin() + s * n, h.b.begin() + (s + 1) * n),
                            std::vector<R>(h.c.begin() + s * n, h.c.begin() + (s + 1) * n),
                            std::vector<R>(h.d.begin() + s * n, h.d.begin() + (s + 1) * n), xl),
                0);
      std::vector<long double> xl_ld(xl.begin(), xl.end());
      EXPECT_TRUE(forward_error(x, s * n, xl_ld) <= 2 * forward_bound)
          << what << ": system " << s << " differs from LAPACK ?gtsv beyond the bound";
    }
    if (::testing::Test::HasFailure()) return;  // one failing system tells the story
  }
}

/// Makes system s of h (3 or more rows) one whose forward sweep stays finite but whose back
/// substitution overflows: rows 0-2 are [t 1 0; 0 1 1; 0 0 1] with t = 1/sqrt(max), d = (0, 0,
/// 4 sqrt(max)), so x2 = 4 sqrt(max), x1 = -x2, and x0 = -x1 / t = 4 max (rows 3 on: identity,
/// d = 0, no coupling back). Every pivot is at least t, far above the smallest normal number.
template <class R>
void make_back_substitution_overflow(HostBatch<R>& h, index_type s) {
  const R root = std::sqrt(std::numeric_limits<R>::max());
  for (index_type i = 0; i < h.rows; ++i) {
    h.at(h.a, s, i) = 0;
    h.at(h.b, s, i) = 1;
    h.at(h.c, s, i) = 0;
    h.at(h.d, s, i) = 0;
  }
  h.at(h.b, s, 0) = R(1) / root;
  h.at(h.c, s, 0) = 1;
  h.at(h.c, s, 1) = 1;
  h.at(h.d, s, 2) = 4 * root;
}

}  // namespace tridiag::test

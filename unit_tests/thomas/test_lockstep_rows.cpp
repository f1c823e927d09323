// The lockstep Thomas core (algorithms/thomas/lockstep_rows.hpp), run directly on the host: for a
// system of n rows solved in lockstep for m >= n rows, the real rows are bitwise those of the plain
// Thomas core (status codes included: ok, zero pivot at row k, non-finite input), nothing at or
// beyond row n of x is written and g only at rows < n. The GPU kernels that use it
// (solve_padded, solve_size_aware) are compared with NCP and CP in test_thomas_variable.cpp and
// test_thomas_size_aware.cpp on every built backend.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tridiag/algorithms/thomas/lockstep_rows.hpp>
#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <vector>

namespace tridiag::test {
namespace {

/// Host rows; host-device like every accessor, because the solvers' row functions are (a host-only
/// operator() made this file fail to compile for CUDA).
template <class S>
struct Rows {
  S* p;
  KOKKOS_INLINE_FUNCTION S& operator()(index_type i) const { return p[i]; }
};

template <class S>
struct LockstepCase {
  std::vector<S> a, b, c, d;
};

template <class S>
LockstepCase<S> random_system(index_type n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LockstepCase<S> t;
  for (index_type i = 0; i < n; ++i) {
    t.a.push_back(S(u(rng)));
    t.c.push_back(S(u(rng)));
    t.b.push_back(S(3.0 + u(rng)));
    t.d.push_back(S(10.0 * u(rng)));
  }
  return t;
}

/// Solves t (n rows) plainly and in lockstep for m rows; compares bitwise and checks that the
/// lockstep solve writes x only below n and g only below n.
template <class S>
void expect_lockstep_equals_plain(const LockstepCase<S>& t, index_type n, index_type m, const char* what) {
  const S sentinel = S(-12345.0);
  std::vector<S> x_plain(n + 1, sentinel), g_plain(n + 1, sentinel);
  std::vector<S> a = t.a, b = t.b, c = t.c, d = t.d;  // copies: the accessors take non-const rows
  const int plain = thomas::SerialThomas::invoke(n, Rows<S>{a.data()}, Rows<S>{b.data()}, Rows<S>{c.data()},
                                                 Rows<S>{d.data()}, Rows<S>{x_plain.data()}, Rows<S>{g_plain.data()});
  // Storage of m rows so that a stray write beyond n lands in it and is seen.
  std::vector<S> a_m(m + 1, S(7)), b_m(m + 1, S(7)), c_m(m + 1, S(7)), d_m(m + 1, S(7));
  std::copy(t.a.begin(), t.a.end(), a_m.begin());
  std::copy(t.b.begin(), t.b.end(), b_m.begin());
  std::copy(t.c.begin(), t.c.end(), c_m.begin());
  std::copy(t.d.begin(), t.d.end(), d_m.begin());
  std::vector<S> x(m + 1, sentinel), g(m + 1, sentinel);
  const int lockstep = thomas::impl::lockstep_thomas(m, n, Rows<S>{a_m.data()}, Rows<S>{b_m.data()},
                                                     Rows<S>{c_m.data()}, Rows<S>{d_m.data()}, Rows<S>{x.data()},
                                                     Rows<S>{g.data()});
  EXPECT_EQ(lockstep, plain) << what << " n=" << n << " m=" << m;
  for (index_type i = 0; i < n; ++i)
    EXPECT_EQ(std::memcmp(&x[i], &x_plain[i], sizeof(S)), 0)
        << what << " n=" << n << " m=" << m << ": x(" << i << ") " << x[i] << " vs " << x_plain[i];
  for (index_type i = n; i <= m; ++i) EXPECT_EQ(x[i], sentinel) << what << ": x(" << i << ") written beyond n=" << n;
  for (index_type i = n; i <= m; ++i) EXPECT_EQ(g[i], sentinel) << what << ": g(" << i << ") written beyond n=" << n;
}

template <class S>
class ThomasLockstep : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ThomasLockstep, Scalars);

TYPED_TEST(ThomasLockstep, RealRowsBitwiseEqualPlainThomas) {
  using S = TypeParam;
  std::mt19937_64 rng(20261123);
  for (index_type n : {0, 1, 2, 3, 17, 64}) {
    const auto t = random_system<S>(n, rng);
    for (index_type extra : {0, 1, 2, 13, 64}) expect_lockstep_equals_plain(t, n, n + extra, "random");
  }
}

TYPED_TEST(ThomasLockstep, BreakdownAndNonFiniteReportedLikePlainThomas) {
  using S = TypeParam;
  std::mt19937_64 rng(7);
  for (index_type n : {1, 2, 5, 33}) {
    for (index_type row = 0; row < n; ++row) {
      auto bad_pivot = random_system<S>(n, rng);  // zero at row 0, non-finite further down
      bad_pivot.b[row] = row == 0 ? S(0) : std::numeric_limits<S>::quiet_NaN();
      expect_lockstep_equals_plain(bad_pivot, n, n + 5, "bad pivot");
      auto nan_rhs = random_system<S>(n, rng);
      nan_rhs.d[row] = std::numeric_limits<S>::quiet_NaN();
      expect_lockstep_equals_plain(nan_rhs, n, n + 5, "NaN rhs");
      auto inf_rhs = random_system<S>(n, rng);
      inf_rhs.d[row] = std::numeric_limits<S>::infinity();
      expect_lockstep_equals_plain(inf_rhs, n, n + 3, "infinite rhs");
    }
  }
}

}  // namespace
}  // namespace tridiag::test

// The oracles themselves: banded LU (long double, partial pivoting) against LAPACK and known
// answers, including systems that need pivoting.

#include "reference/banded_lu.hpp"
#include "reference/lapack_oracle.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

TEST(Oracle, BandedLuSolvesAKnownSystem) {
  // [2 1 0; 1 3 1; 0 1 4] x = [3 5 5] has x = [1 1 1].
  std::vector<long double> a = {0, 1, 1}, b = {2, 3, 4}, c = {1, 1, 0}, d = {3, 5, 5}, x;
  ASSERT_TRUE(banded_lu_solve(a, b, c, d, x));
  for (auto v : x) EXPECT_NEAR(static_cast<double>(v), 1.0, 1e-15);
}

TEST(Oracle, BandedLuPivotsWhereTheDiagonalIsZero) {
  // [0 1; 1 0] x = [2 3] has x = [3 2]: impossible without a row interchange.
  std::vector<long double> a = {0, 1}, b = {0, 0}, c = {1, 0}, d = {2, 3}, x;
  ASSERT_TRUE(banded_lu_solve(a, b, c, d, x));
  EXPECT_EQ(static_cast<double>(x[0]), 3.0);
  EXPECT_EQ(static_cast<double>(x[1]), 2.0);
  std::vector<long double> zero = {0, 0};
  EXPECT_FALSE(banded_lu_solve(zero, zero, zero, d, x));
}

TEST(Oracle, BandedLuAgreesWithLapackOnRandomNonDominantSystems) {
  for (index_type n : {1, 2, 3, 10, 100, 1000}) {
    const auto h = make_host_batch<double>(4, n, MatrixKind::non_dominant, test_seed() + n);
    for (index_type s = 0; s < 4; ++s) {
      std::vector<long double> x;
      ASSERT_TRUE(banded_lu_solve(h.system(h.a, s), h.system(h.b, s), h.system(h.c, s), h.system(h.d, s), x));
      std::vector<double> xl;
      const auto cut = [&](const std::vector<double>& v) {
        return std::vector<double>(v.begin() + s * n, v.begin() + (s + 1) * n);
      };
      ASSERT_EQ(lapack_gtsv(cut(h.a), cut(h.b), cut(h.c), cut(h.d), xl), 0);
      const double rcond = lapack_rcond_inf(cut(h.a), cut(h.b), cut(h.c));
      const long double bound = 16.0L * (n + 1) * eps_of<double>() / rcond;
      EXPECT_TRUE(forward_error(xl, 0, x) <= bound) << "n = " << n << ", seed " << test_seed();
    }
  }
}

}  // namespace
}  // namespace tridiag::test

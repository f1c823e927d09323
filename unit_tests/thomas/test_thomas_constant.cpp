// Constant-coefficient batches (thomas::solve_constant, factorize_constant + solve): against the
// long-double banded LU and LAPACK ?gtsv system by system, and bitwise against thomas::solve on
// the batch with the constants filled in (the same arithmetic), one triple per system and one
// triple for the whole batch, on every layout.

#include <algorithm>
#include <climits>
#include <cstring>
#include <tridiag/algorithms/thomas/constant_coefficients.hpp>
#include <utility>

#include "thomas/thomas_checks.hpp"
#include "status_rows_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class ThomasConstant : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, AllLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasConstant, Configs, ConfigNames);

/// `triples` random triples (strictly diagonally dominant, or Poisson's (-1, 2, -1)) and a batch
/// of `systems` whose system s has the constants of triple s % triples, random right-hand sides.
template <class S>
struct ConstantCase {
  std::vector<S> a, b, c;  ///< one entry per triple
  HostBatch<S> h;          ///< the same systems with the constants filled in
};

template <class S>
ConstantCase<S> make_constant_case(index_type systems, index_type n, index_type triples, MatrixKind kind,
                                   std::uint64_t seed) {
  ConstantCase<S> k;
  const auto draw = make_host_batch<S>(1, triples, kind, seed);  // one row per triple
  k.a = draw.a;
  k.b = draw.b;
  k.c = draw.c;
  k.h = make_host_batch<S>(systems, n, kind, seed + 1);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < n; ++i) {
      const index_type t = s % triples;
      k.h.at(k.h.a, s, i) = k.a[t];
      k.h.at(k.h.b, s, i) = k.b[t];
      k.h.at(k.h.c, s, i) = k.c[t];
    }
  return k;
}

template <class S, class M>
thomas::ConstantCoefficients<S, M> upload_coefficients(const ConstantCase<S>& k) {
  thomas::ConstantCoefficients<S, M> coefficients("coefficients", k.a.size());
  auto host = Kokkos::create_mirror_view(coefficients);
  for (std::size_t t = 0; t < k.a.size(); ++t) {
    host(t, 0) = k.a[t];
    host(t, 1) = k.b[t];
    host(t, 2) = k.c[t];
  }
  Kokkos::deep_copy(coefficients, host);
  return coefficients;
}

/// The three solves of a constant case, each on poisoned outputs (solve_poisoned also checks that
/// the inputs stay unmodified and the layout padding unwritten).
template <class C>
struct ConstantSolves {
  SolvedBatch<typename C::scalar> general, direct, factored;
};

template <class C>
ConstantSolves<C> solve_three_ways(const ConstantCase<typename C::scalar>& k) {
  using S = typename C::scalar;
  using L = typename C::layout;
  using M = typename C::memory;
  const auto coefficients = upload_coefficients<S, M>(k);
  ConstantSolves<C> r;
  r.general = solve_poisoned<C>(k.h, [](const auto& exec, const auto& matrix, const auto& rhs, const auto& x,
                                        const auto& status) { thomas::solve(exec, matrix, rhs, x, status); });
  r.direct =
      solve_poisoned<C>(k.h, [&](const auto& exec, const auto&, const auto& rhs, const auto& x, const auto& status) {
        thomas::solve_constant(exec, coefficients, rhs, x, status);
      });
  r.factored =
      solve_poisoned<C>(k.h, [&](const auto& exec, const auto&, const auto& rhs, const auto& x, const auto& status) {
        thomas::ConstantFactorization<S, L, M> factors("f", static_cast<index_type>(k.a.size()), k.h.rows);
        thomas::factorize_constant(exec, coefficients, factors);
        thomas::solve(exec, factors, rhs, x, status);
      });
  return r;
}

template <class S>
bool bitwise_equal(const std::vector<S>& u, const std::vector<S>& v) {
  return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), u.size() * sizeof(S)) == 0);
}

template <class C>
void check_constant_case(index_type systems, index_type n, index_type triples, MatrixKind kind) {
  using S = typename C::scalar;
  const std::string what = std::to_string(systems) + " x " + std::to_string(n) + ", " + std::to_string(triples) +
                           (triples == 1 ? " triple" : " triples");
  const auto k = make_constant_case<S>(systems, n, triples, kind, test_seed() + 131 * n + systems + triples);
  const auto r = solve_three_ways<C>(k);
  for (index_type s = 0; s < systems; ++s) {
    ASSERT_EQ(r.direct.status[s], 0) << what << ": system " << s;
    ASSERT_EQ(r.factored.status[s], 0) << what << ": system " << s;
  }
  EXPECT_TRUE(bitwise_equal(r.direct.x, r.general.x)) << what << ": solve_constant differs from thomas::solve";
  EXPECT_TRUE(bitwise_equal(r.factored.x, r.general.x)) << what << ": factorized differs from thomas::solve";
  expect_matches_oracle(k.h, r.direct.x, "solve_constant " + what);
}

TYPED_TEST(ThomasConstant, OneTriplePerSystemMatchesOracleAndGeneralSolver) {
  for (index_type n : {1, 2, 3, 5, 7, 13, 31, 64, 97, 128, 257, 512})
    for (index_type systems : {1, 37, 70}) {
      check_constant_case<TypeParam>(systems, n, systems, MatrixKind::diagonally_dominant);
      if (this->HasFailure()) return;
    }
}

TYPED_TEST(ThomasConstant, OneTripleForTheWholeBatch) {
  for (index_type n : {1, 2, 3, 11, 64, 200, 512})
    for (index_type systems : {1, 45}) {
      check_constant_case<TypeParam>(systems, n, 1, MatrixKind::diagonally_dominant);
      if (this->HasFailure()) return;
    }
  check_constant_case<TypeParam>(36, 50, 12, MatrixKind::diagonally_dominant);  // triple s % 12
}

TYPED_TEST(ThomasConstant, PoissonMinusOneTwoMinusOne) {
  for (index_type n : {2, 3, 97, 256, 512}) {
    check_constant_case<TypeParam>(33, n, 1, MatrixKind::poisson);
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(ThomasConstant, EmptyBatchesAndEmptySystems) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  for (auto shape : {std::pair<index_type, index_type>{0, 10}, {10, 0}, {0, 0}}) {
    const auto k = make_constant_case<S>(shape.first, shape.second, 1, MatrixKind::diagonally_dominant, 5);
    const auto coefficients = upload_coefficients<S, M>(k);
    const auto r = solve_poisoned<TypeParam>(
        k.h, [&](const auto& exec, const auto&, const auto& rhs, const auto& x, const auto& status) {
          thomas::solve_constant(exec, coefficients, rhs, x, status);
        });
    for (int code : r.status) EXPECT_EQ(code, 0);
  }
}

TYPED_TEST(ThomasConstant, FailedTriplesAreReportedAndLeaveTheirNeighboursExact) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const index_type systems = 9, n = 12;
  auto k = make_constant_case<S>(systems, n, systems, MatrixKind::diagonally_dominant, test_seed());
  const auto clean = solve_three_ways<TypeParam>(k);
  // System 2: zero diagonal (pivot 1). System 5: NaN in the right-hand side at row 8. System 7:
  // w_2 = b - a c / b = 0 (a c = b^2), a zero pivot at row 2.
  k.b[2] = 0;
  k.a[7] = S(2);
  k.b[7] = S(2);
  k.c[7] = S(2);
  for (index_type i = 0; i < n; ++i) {
    k.h.at(k.h.b, 2, i) = 0;
    k.h.at(k.h.a, 7, i) = k.h.at(k.h.b, 7, i) = k.h.at(k.h.c, 7, i) = S(2);
  }
  k.h.at(k.h.d, 5, 7) = std::numeric_limits<S>::quiet_NaN();
  const auto r = solve_three_ways<TypeParam>(k);
  for (const auto* solved : {&r.direct, &r.factored}) {
    EXPECT_EQ(solved->status[2], 1);
    EXPECT_EQ(solved->status[5], -8);
    EXPECT_EQ(solved->status[7], 2);
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < n; ++i) {
        const S v = solved->x[s * n + i];
        if (s == 2 || s == 5 || s == 7) {
          EXPECT_TRUE(std::isnan(v)) << "failed system " << s << " row " << i << " is not NaN";
        } else {
          ASSERT_EQ(solved->status[s], 0);
          EXPECT_EQ(std::memcmp(&v, &clean.direct.x[s * n + i], sizeof(S)), 0) << "neighbour " << s << " changed";
        }
      }
  }
  // factorize_constant reports per triple.
  const auto coefficients = upload_coefficients<S, M>(k);
  thomas::ConstantFactorization<S, L, M> factors("f", systems, n);
  StatusView<M> status("status", systems);
  typename TypeParam::exec exec;
  thomas::factorize_constant(exec, coefficients, factors, status);
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  EXPECT_EQ(st(2), 1);
  EXPECT_EQ(st(7), 2);
  EXPECT_EQ(st(5), 0);
}

// Constant coefficients a = 0, b = 1, c = 2^(e/2) (e = max_exponent): every pivot is 1, the
// forward sweep gives d unchanged, and the back substitution from d = (0, .., 0, 1) multiplies by
// -c per row, overflowing by the third row from the end. Both solves report -1 and NaN
// (before: Inf and NaN with status 0); the neighbouring triple solves normally.
TYPED_TEST(ThomasConstant, OverflowInTheBackSubstitutionIsReported) {
  using S = typename TypeParam::scalar;
  const index_type systems = 4, n = 6;
  auto k = make_constant_case<S>(systems, n, 2, MatrixKind::diagonally_dominant, test_seed());
  const S big = std::ldexp(S(1), std::numeric_limits<S>::max_exponent / 2);
  k.a[1] = 0;
  k.b[1] = 1;
  k.c[1] = big;
  for (index_type s = 1; s < systems; s += 2)
    for (index_type i = 0; i < n; ++i) {
      k.h.at(k.h.a, s, i) = 0;
      k.h.at(k.h.b, s, i) = 1;
      k.h.at(k.h.c, s, i) = big;
      k.h.at(k.h.d, s, i) = i + 1 == n ? S(1) : S(0);
    }
  const auto r = solve_three_ways<TypeParam>(k);
  for (const auto* solved : {&r.direct, &r.factored})
    for (index_type s = 0; s < systems; ++s) {
      EXPECT_EQ(solved->status[s], s % 2 == 1 ? -1 : 0) << "system " << s;
      for (index_type i = 0; i < n; ++i) {
        const S v = solved->x[s * n + i];
        if (s % 2 == 1) {
          EXPECT_TRUE(std::isnan(v)) << "failed system " << s << " row " << i << " is " << v;
        } else {
          EXPECT_EQ(std::memcmp(&v, &r.general.x[s * n + i], sizeof(S)), 0) << "neighbour " << s << " changed";
        }
      }
    }
}

TYPED_TEST(ThomasConstant, InPlaceWithWorkspaceAndRepeatedSolvesGiveTheSameBits) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto k = make_constant_case<S>(45, 33, 1, MatrixKind::diagonally_dominant, test_seed());
  const auto reference = solve_three_ways<TypeParam>(k).general.x;
  const auto coefficients = upload_coefficients<S, M>(k);
  BatchVector<S, L, M> rhs("rhs", 45, 33);
  thomas::Workspace<S, L, M> work("work", 45, 33);
  thomas::ConstantFactorization<S, L, M> factors("f", 1, 33);
  typename TypeParam::exec exec;
  thomas::factorize_constant(exec, coefficients, factors);
  for (int repeat = 0; repeat < 2; ++repeat) {
    upload(k.h.d, rhs);
    thomas::solve_constant(exec, coefficients, rhs, rhs, {}, work);
    exec.fence();
    EXPECT_TRUE(bitwise_equal(download(rhs), reference)) << "direct, in place, repeat " << repeat;
    upload(k.h.d, rhs);
    thomas::solve(exec, factors, rhs, rhs);
    exec.fence();
    EXPECT_TRUE(bitwise_equal(download(rhs), reference)) << "factorized, in place, repeat " << repeat;
  }
}

TYPED_TEST(ThomasConstant, ShapeMismatchThrowsAndWritesNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  const auto k = make_constant_case<S>(8, 16, 8, MatrixKind::diagonally_dominant, 3);
  const auto coefficients = upload_coefficients<S, M>(k);
  BatchVector<S, L, M> rhs("rhs", 8, 16), wrong_systems("x", 7, 16), wrong_rows("x", 8, 15), x("x", 8, 16);
  fill_storage(wrong_systems, S(42));
  fill_storage(wrong_rows, S(42));
  fill_storage(x, S(42));
  EXPECT_THROW(thomas::solve_constant(exec, coefficients, rhs, wrong_systems), tridiag::invalid_argument);
  EXPECT_THROW(thomas::solve_constant(exec, coefficients, rhs, wrong_rows), tridiag::invalid_argument);
  StatusView<M> short_status("status", 7);
  EXPECT_THROW(thomas::solve_constant(exec, coefficients, rhs, x, short_status), tridiag::invalid_argument);
  thomas::ConstantCoefficients<S, M> three("three", 3), none("none", 0);
  EXPECT_THROW(thomas::solve_constant(exec, three, rhs, x), tridiag::invalid_argument);  // 3 does not divide 8
  EXPECT_THROW(thomas::solve_constant(exec, none, rhs, x), tridiag::invalid_argument);
  thomas::Workspace<S, L, M> small_work("work", 8, 15);
  EXPECT_THROW(thomas::solve_constant(exec, coefficients, rhs, x, {}, small_work), tridiag::invalid_argument);
  try {
    thomas::solve_constant(exec, three, rhs, x);
  } catch (const tridiag::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("8 systems"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3 coefficient triples"), std::string::npos) << e.what();
  }
  // The factorized form: not computed, wrong rows, wrong triples.
  thomas::ConstantFactorization<S, L, M> factors("f", 8, 16), other_rows("g", 8, 15), other_triples("h", 3, 16);
  EXPECT_THROW(thomas::solve(exec, factors, rhs, x), tridiag::invalid_argument);
  EXPECT_THROW(thomas::factorize_constant(exec, coefficients, other_triples), tridiag::invalid_argument);
  thomas::factorize_constant(exec, coefficients, other_rows);
  EXPECT_THROW(thomas::solve(exec, other_rows, rhs, x), tridiag::invalid_argument);
  thomas::factorize_constant(exec, coefficients, factors);
  EXPECT_THROW(thomas::solve(exec, factors, rhs, wrong_systems), tridiag::invalid_argument);
  EXPECT_THROW(thomas::solve(exec, factors, rhs, x, short_status), tridiag::invalid_argument);
  exec.fence();
  for (S v : download(wrong_systems)) ASSERT_EQ(v, S(42));
  for (S v : download(wrong_rows)) ASSERT_EQ(v, S(42));
  for (S v : download(x)) ASSERT_EQ(v, S(42));
}

// The factors are public members, their rows taken from inverse_pivot: an upper_factor of fewer
// rows (assigned after construction) was written past its end by factorize_constant (12 of the 28
// scalars after a 4-row upper_factor for 16 rows), and the factorized solve read a lower with too
// few triples or a short upper_factor out of bounds. Every one is rejected before anything runs.
TYPED_TEST(ThomasConstant, FactorsOfAnotherShapeAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using V = BatchVector<S, L, M>;
  typename TypeParam::exec exec;
  const index_type triples = 2, systems = 4, n = 16;
  const auto k = make_constant_case<S>(systems, n, triples, MatrixKind::diagonally_dominant, test_seed());
  const auto coefficients = upload_coefficients<S, M>(k);
  // upper_factor: the first 4-row span of a buffer whose other scalars must stay 42.
  const index_type short_span = L(triples, 4).required_span();
  const typename V::storage_type buffer("buffer", 2 * L(triples, n).required_span());
  Kokkos::deep_copy(buffer, S(42));
  thomas::ConstantFactorization<S, L, M> short_upper("f", triples, n);
  short_upper.upper_factor = V(Kokkos::subview(buffer, std::make_pair(index_type(0), short_span)), L(triples, 4));
  expect_invalid_argument([&] { thomas::factorize_constant(exec, coefficients, short_upper); },
                          "factors.upper_factor is 2 systems x 4 rows, factors.inverse_pivot is 2 systems x 16 rows");
  exec.fence();
  const auto host_buffer = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buffer);
  for (index_type e = short_span; e < index_type(host_buffer.extent(0)); ++e)
    ASSERT_EQ(host_buffer(e), S(42)) << "scalar " << e << " past upper_factor written";
  // The factorized solve: factors of another shape assigned after factorize_constant.
  BatchVector<S, L, M> rhs("rhs", systems, n), x("x", systems, n);
  fill_storage(x, S(42));
  thomas::ConstantFactorization<S, L, M> factors("f", triples, n);
  thomas::factorize_constant(exec, coefficients, factors);
  auto few_lower = factors;
  few_lower.lower = Kokkos::View<S*, M>("few_lower", triples - 1);
  expect_invalid_argument([&] { thomas::solve(exec, few_lower, rhs, x); },
                          "factors.lower has 1 entries, the factorization holds 2 triples");
  auto short_factor = factors;
  short_factor.upper_factor = V("short_factor", triples, 4);
  expect_invalid_argument([&] { thomas::solve(exec, short_factor, rhs, x); },
                          "factors.upper_factor is 2 systems x 4 rows, factors.inverse_pivot is 2 systems x 16 rows");
  exec.fence();
  for (S v : download(x)) ASSERT_EQ(v, S(42));
}

// x may be rhs (in place: each row of rhs is read before that row of x is written); anything else
// an output shares with what the solve reads is rejected before anything is written. Before the
// check (1 and 3 triples, 6 systems): x or the workspace over the coefficients, a workspace that
// is x and x one scalar past rhs gave wrong results with status 0 in solve_constant (a system
// reads its triple when it starts, after others have written theirs); in factorize_constant,
// inverse_pivot = upper_factor, factors.lower over the coefficients or over inverse_pivot, and
// (3 triples) inverse_pivot over the coefficients; in the factorized solve, x over any factor
// array (every system of a triple reads its factors).
TYPED_TEST(ThomasConstant, OutputsThatOverlapTheInputsAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using V = BatchVector<S, L, M>;
  using Factors = thomas::ConstantFactorization<S, L, M>;
  typename TypeParam::exec exec;
  const index_type systems = 6, n = 10, triples = 3;
  const auto k = make_constant_case<S>(systems, n, triples, MatrixKind::diagonally_dominant, test_seed());
  const auto coefficients = upload_coefficients<S, M>(k);
  V rhs("rhs", systems, n), x("x", systems, n);
  upload(k.h.d, rhs);
  // One allocation holding an x (or workspace, or factor array) and, at its start, coefficients.
  const std::size_t span = static_cast<std::size_t>(std::max(L(systems, n).required_span(), 3 * triples));
  const typename V::storage_type big("big", span + 1);
  Kokkos::deep_copy(big, S(42));
  const Kokkos::View<S* [3], Kokkos::LayoutRight, M, Kokkos::MemoryTraits<Kokkos::Unmanaged>> coefficients_in_big(
      big.data(), triples);
  const V x_in_big(big, L(systems, n));
  const V shifted_rhs(Kokkos::subview(big, std::make_pair(std::size_t(0), span)), L(systems, n));
  const V shifted_x(Kokkos::subview(big, std::make_pair(std::size_t(1), span + 1)), L(systems, n));
  // solve_constant
  expect_invalid_argument([&] { thomas::solve_constant(exec, coefficients_in_big, rhs, x_in_big); },
                          "x shares storage with the coefficients");
  expect_invalid_argument([&] { thomas::solve_constant(exec, coefficients, shifted_rhs, shifted_x); },
                          "x overlaps rhs without being it");
  expect_invalid_argument([&] { thomas::solve_constant(exec, coefficients_in_big, rhs, x, {}, x_in_big); },
                          "the workspace shares storage with the coefficients");
  expect_invalid_argument([&] { thomas::solve_constant(exec, coefficients, rhs, x, {}, x); },
                          "the workspace shares storage with x");
  expect_invalid_argument([&] { thomas::solve_constant(exec, coefficients, rhs, x, {}, rhs); },
                          "the workspace shares storage with rhs");
  // factorize_constant
  Factors factors("f", triples, n);
  auto twice = factors;
  twice.upper_factor = twice.inverse_pivot;
  expect_invalid_argument([&] { thomas::factorize_constant(exec, coefficients, twice); },
                          "factors.inverse_pivot shares storage with factors.upper_factor");
  auto pivots_in_big = factors;
  pivots_in_big.inverse_pivot = V(big, L(triples, n));
  expect_invalid_argument([&] { thomas::factorize_constant(exec, coefficients_in_big, pivots_in_big); },
                          "factors.inverse_pivot shares storage with the coefficients");
  auto lower_in_big = factors;
  lower_in_big.lower = Kokkos::View<S*, M>(big, std::make_pair(std::size_t(1), std::size_t(1 + triples)));
  expect_invalid_argument([&] { thomas::factorize_constant(exec, coefficients_in_big, lower_in_big); },
                          "factors.lower shares storage with the coefficients");
  auto lower_on_pivots = factors;
  lower_on_pivots.lower =
      Kokkos::View<S*, M>(factors.inverse_pivot.storage(), std::make_pair(std::size_t(0), std::size_t(triples)));
  expect_invalid_argument([&] { thomas::factorize_constant(exec, coefficients, lower_on_pivots); },
                          "factors.lower shares storage with factors.inverse_pivot");
  // The factorized solve: x over each factor array.
  thomas::factorize_constant(exec, coefficients, factors);
  auto lower_at_x = factors;
  lower_at_x.lower = Kokkos::View<S*, M>(big, std::make_pair(std::size_t(0), std::size_t(triples)));
  expect_invalid_argument([&] { thomas::solve(exec, lower_at_x, rhs, x_in_big); },
                          "x shares storage with factors.lower");
  auto pivots_at_x = factors;
  pivots_at_x.inverse_pivot = V(big, L(triples, n));
  expect_invalid_argument([&] { thomas::solve(exec, pivots_at_x, rhs, x_in_big); },
                          "x shares storage with factors.inverse_pivot");
  auto upper_at_x = factors;
  upper_at_x.upper_factor = V(big, L(triples, n));
  expect_invalid_argument([&] { thomas::solve(exec, upper_at_x, rhs, x_in_big); },
                          "x shares storage with factors.upper_factor");
  expect_invalid_argument([&] { thomas::solve(exec, factors, shifted_rhs, shifted_x); },
                          "x overlaps rhs without being it");
  // Nothing was written: the shared allocation, the coefficients and rhs are intact.
  exec.fence();
  auto big_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), big);
  for (std::size_t e = 0; e < big_host.extent(0); ++e) ASSERT_EQ(big_host(e), S(42)) << "element " << e << " written";
  auto coefficients_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), coefficients);
  for (index_type t = 0; t < triples; ++t) {
    EXPECT_EQ(coefficients_host(t, 0), k.a[t]);
    EXPECT_EQ(coefficients_host(t, 1), k.b[t]);
    EXPECT_EQ(coefficients_host(t, 2), k.c[t]);
  }
  EXPECT_TRUE(bitwise_equal(download(rhs), k.h.d)) << "rhs written";
  // The allowed cases still solve: a workspace of its own, and in place (direct and factorized).
  thomas::Workspace<S, L, M> work("work", systems, n);
  thomas::solve_constant(exec, coefficients, rhs, x, {}, work);
  expect_matches_oracle(k.h, download(x), "solve_constant, own workspace");
  thomas::solve_constant(exec, coefficients, rhs, rhs, {}, work);
  expect_matches_oracle(k.h, download(rhs), "solve_constant, in place");
  upload(k.h.d, rhs);
  thomas::solve(exec, factors, rhs, rhs);
  expect_matches_oracle(k.h, download(rhs), "factorized, in place");
}

template <class C>
class ThomasConstantLongSystem : public KokkosTest {};
using LongSystemConfigs = to_gtest<product<list<float>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasConstantLongSystem, LongSystemConfigs, ConfigNames);

// Constant-coefficient solves of systems of more than INT_MAX rows with a status View: a status
// code (an int row number) could not name their rows (row 2^32 would read 0, "solved"), and
// solve_constant, factorize_constant and the factorized solve ran. Now rejected before anything
// is read or allocated (one system of 2^31 rows in float, storage mapped read-only without reserve, never
// touched). Device spaces skip.
TYPED_TEST(ThomasConstantLongSystem, StatusOfSystemsBeyondIntMaxRowsIsRejected) {
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  with_a_system_beyond_int_max_rows<M>([](const auto& system, const auto& spare, const auto& status) {
    const auto rhs = system.rhs();
    const Kokkos::View<float* [3], M> coefficients("coefficients", 1);
    expect_invalid_argument([&] { thomas::solve_constant(E(), coefficients, rhs, rhs, status); },
                            status_rows_rejected);
    thomas::ConstantFactorization<float, layouts::Flat, M> factors;
    factors.inverse_pivot = spare.matrix().diag;
    factors.upper_factor = spare.rhs();
    expect_invalid_argument([&] { thomas::factorize_constant(E(), coefficients, factors, status); },
                            status_rows_rejected);
    factors.lower = Kokkos::View<float*, M>("lower", 1);  // as factorize_constant leaves it
    expect_invalid_argument([&] { thomas::solve(E(), factors, rhs, rhs, status); }, status_rows_rejected);
  });
}

}  // namespace
}  // namespace tridiag::test

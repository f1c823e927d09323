// The size-aware variable batch (layouts::SizeGroupedPlan + thomas::solve_size_aware): the plan is
// a stable sort by size, pack/unpack round-trip, results bitwise equal to NCP (ragged and padded)
// and CP and right against the oracle, group padding never written, status by system, empty and
// single-row systems, batch 0, and bad input rejected before anything is written.

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <tridiag/algorithms/thomas/size_aware_solve.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/layouts/variable_batch.hpp>
#include <utility>

#include "thomas/variable_checks.hpp"
#include "status_rows_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class ThomasSizeAware : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasSizeAware, Configs, ConfigNames);

/// A variable batch held three ways: the host batch (flat, padded to nmax), ragged storage on the
/// device, and size-grouped storage packed from it.
template <class S, class M>
struct GroupedCase {
  std::vector<index_type> sizes;
  HostBatch<S> h;
  layouts::SizeGroupedPlan<M> plan;
  Kokkos::View<index_type*, M> offsets;
  layouts::RaggedVector<S, M> ra, rb, rc, rd;
  layouts::GroupedVector<S, M> a, b, c, d;
};

template <class S, class M>
layouts::RaggedVector<S, M> ragged_from(const HostBatch<S>& h, const std::vector<S>& flat,
                                        const std::vector<index_type>& sizes,
                                        const Kokkos::View<index_type*, M>& offsets) {
  layouts::RaggedVector<S, M> v("v", offsets);
  auto host = Kokkos::create_mirror_view(v.storage());
  index_type k = 0;
  for (index_type s = 0; s < h.systems; ++s)
    for (index_type i = 0; i < sizes[s]; ++i) host(k++) = flat[s * h.rows + i];
  Kokkos::deep_copy(v.storage(), host);
  return v;
}

/// Ragged x (device) as a flat host array padded to nmax with NaN.
template <class S, class M>
std::vector<S> padded_host(const layouts::RaggedVector<S, M>& x, const std::vector<index_type>& sizes,
                           index_type nmax) {
  auto xs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x.storage());
  std::vector<S> out(sizes.size() * nmax, nan_of<S>());
  index_type k = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s)
    for (index_type i = 0; i < sizes[s]; ++i) out[s * nmax + i] = xs(k++);
  return out;
}

template <class S, class E>
GroupedCase<S, typename E::memory_space> make_grouped_case(const std::vector<index_type>& sizes, index_type width,
                                                           std::uint64_t seed) {
  using M = typename E::memory_space;
  GroupedCase<S, M> g;
  g.sizes = sizes;
  const index_type nmax = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  g.h = make_host_batch<S>(static_cast<index_type>(sizes.size()), nmax, MatrixKind::diagonally_dominant, seed);
  g.plan = layouts::SizeGroupedPlan<M>(sizes, width);
  g.offsets = layouts::make_offsets<M>(sizes);
  g.ra = ragged_from(g.h, g.h.a, sizes, g.offsets);
  g.rb = ragged_from(g.h, g.h.b, sizes, g.offsets);
  g.rc = ragged_from(g.h, g.h.c, sizes, g.offsets);
  g.rd = ragged_from(g.h, g.h.d, sizes, g.offsets);
  E exec;
  for (auto* v : {&g.a, &g.b, &g.c, &g.d}) *v = layouts::GroupedVector<S, M>("g", g.plan);
  layouts::pack(exec, g.ra, g.a);
  layouts::pack(exec, g.rb, g.b);
  layouts::pack(exec, g.rc, g.c);
  layouts::pack(exec, g.rd, g.d);
  exec.fence();
  return g;
}

/// Solves a case size-aware into x (poisoned first), checks that the group padding stayed NaN and
/// returns x unpacked (flat, padded to nmax with NaN) and the status by system.
template <class S, class E>
std::pair<std::vector<S>, std::vector<int>> solve_size_aware_poisoned(
    const GroupedCase<S, typename E::memory_space>& g) {
  using M = typename E::memory_space;
  E exec;
  layouts::GroupedVector<S, M> x("x", g.plan);
  Kokkos::deep_copy(x.storage(), nan_of<S>());
  StatusView<M> status("status", g.plan.systems());
  Kokkos::deep_copy(status, -999);
  thomas::solve_size_aware(exec, g.a, g.b, g.c, g.d, x, status);
  exec.fence();
  // Group padding: every storage element that is no (position, row) of the plan stays NaN.
  auto xs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x.storage());
  std::vector<bool> real(static_cast<std::size_t>(g.plan.required_span()), false);
  auto order = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.plan.order());
  auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.plan.group_offsets());
  const index_type w = g.plan.group_width();
  for (index_type k = 0; k < g.plan.systems(); ++k)
    for (index_type i = 0; i < g.sizes[order(k)]; ++i) real[offsets(k / w) + i * w + k % w] = true;
  for (std::size_t e = 0; e < real.size(); ++e)
    if (!real[e]) EXPECT_TRUE(std::isnan(xs(e))) << "group padding element " << e << " was written";
  layouts::RaggedVector<S, M> xr("xr", g.offsets);
  Kokkos::deep_copy(xr.storage(), nan_of<S>());
  layouts::unpack(exec, x, xr);
  exec.fence();
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  return {padded_host(xr, g.sizes, g.h.rows), std::vector<int>(st.data(), st.data() + st.extent(0))};
}

template <class S>
bool bitwise_equal(const std::vector<S>& u, const std::vector<S>& v) {
  return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), u.size() * sizeof(S)) == 0);
}

TYPED_TEST(ThomasSizeAware, PlanSortsBySizeStablyAndGroupsPadOnlyToTheirLargest) {
  using M = Kokkos::HostSpace;
  const std::vector<index_type> sizes = {5, 9, 0, 9, 1, 7, 5, 3};
  layouts::SizeGroupedPlan<M> plan(sizes, 3);
  ASSERT_EQ(plan.systems(), 8);
  ASSERT_EQ(plan.groups(), 3);
  const std::vector<index_type> expected_order = {1, 3, 5, 0, 6, 7, 4, 2};  // stable: 1 before 3, 0 before 6
  for (index_type k = 0; k < 8; ++k) {
    EXPECT_EQ(plan.order()(k), expected_order[k]);
    EXPECT_EQ(plan.position()(expected_order[k]), k);
    EXPECT_EQ(plan.rows(k), sizes[expected_order[k]]);
  }
  // Groups {9, 9, 7}, {5, 5, 3}, {1, 0}: 9, 5 and 1 rows of width 3.
  EXPECT_EQ(plan.group_offsets()(0), 0);
  EXPECT_EQ(plan.group_offsets()(1), 27);
  EXPECT_EQ(plan.group_offsets()(2), 42);
  EXPECT_EQ(plan.required_span(), 45);
  EXPECT_EQ(plan.largest(), 9);
  EXPECT_EQ(plan.total_rows(), 39);
  EXPECT_EQ(plan.offset(4, 2), 27 + 2 * 3 + 1);
}

TYPED_TEST(ThomasSizeAware, BitwiseEqualToNcpAndCpAndRightAgainstTheOracle) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  const struct {
    index_type systems, lo, hi, width;
  } cases[] = {{200, 256, 512, 32}, {77, 1, 90, 32}, {70, 64, 128, 7}, {33, 1, 40, 1}, {5, 2, 3, 32}};
  for (const auto& cs : cases) {
    const std::string what = std::to_string(cs.systems) + " systems, sizes " + std::to_string(cs.lo) + ".." +
                             std::to_string(cs.hi) + ", group width " + std::to_string(cs.width);
    const auto sizes = random_sizes(cs.systems, cs.lo, cs.hi, test_seed() + cs.systems);
    const auto g = make_grouped_case<S, E>(sizes, cs.width, test_seed() + cs.hi);
    const auto [x, status] = solve_size_aware_poisoned<S, E>(g);
    for (index_type s = 0; s < cs.systems; ++s) ASSERT_EQ(status[s], 0) << what << ": system " << s;
    expect_variable_solution(g.h, sizes, x, "size-aware " + what);
    // NCP on offset-indexed storage.
    E exec;
    layouts::RaggedVector<S, M> xr("xr", g.offsets);
    thomas::solve_ragged(exec, g.ra, g.rb, g.rc, g.rd, xr);
    exec.fence();
    EXPECT_TRUE(bitwise_equal(x, padded_host(xr, sizes, g.h.rows))) << what << ": differs from solve_ragged";
    // NCP and CP on padded interleaved storage.
    using L = layouts::Interleaved;
    const index_type nmax = g.h.rows;
    auto sys = allocate_system<L, S, M>("p", cs.systems, nmax);
    upload(g.h.a, sys.matrix.lower);
    upload(g.h.b, sys.matrix.diag);
    upload(g.h.c, sys.matrix.upper);
    upload(g.h.d, sys.rhs);
    auto sizes_view = layouts::make_sizes<M>(sizes);
    BatchVector<S, L, M> xp("xp", cs.systems, nmax);
    thomas::solve_padded(exec, sys.matrix, sys.rhs, xp, sizes_view);
    layouts::pad_matrix(exec, sys.matrix, sys.rhs, sizes_view);
    BatchVector<S, L, M> xc("xc", cs.systems, nmax);
    thomas::solve(exec, sys.matrix, sys.rhs, xc);
    exec.fence();
    auto real_rows = [&](std::vector<S> v) {
      for (index_type s = 0; s < cs.systems; ++s)
        for (index_type i = sizes[s]; i < nmax; ++i) v[s * nmax + i] = nan_of<S>();
      return v;
    };
    EXPECT_TRUE(bitwise_equal(x, real_rows(download(xp)))) << what << ": differs from solve_padded (NCP)";
    EXPECT_TRUE(bitwise_equal(x, real_rows(download(xc)))) << what << ": differs from CP";
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(ThomasSizeAware, EmptyBatchesAndEmptySystemsAreFine) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  for (const std::vector<index_type>& sizes : {std::vector<index_type>{}, std::vector<index_type>{0, 0, 0},
                                               std::vector<index_type>{1}, std::vector<index_type>{0, 1, 0, 1, 2}}) {
    const auto g = make_grouped_case<S, E>(sizes, 32, test_seed());
    const auto [x, status] = solve_size_aware_poisoned<S, E>(g);
    ASSERT_EQ(status.size(), sizes.size());
    for (int code : status) EXPECT_EQ(code, 0);
    expect_variable_solution(g.h, sizes, x, "tiny sizes");
  }
}

TYPED_TEST(ThomasSizeAware, FailedSystemsAreReportedBySystemAndLeaveTheirNeighboursExact) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  const std::vector<index_type> sizes = {12, 30, 12, 5, 40, 30, 12, 7, 40};
  auto clean_case = make_grouped_case<S, E>(sizes, 4, test_seed());
  const auto clean = solve_size_aware_poisoned<S, E>(clean_case).first;
  auto h = clean_case.h;
  const index_type nmax = h.rows;
  h.at(h.a, 2, 4) = h.at(h.b, 2, 4) = h.at(h.c, 2, 4) = 0;  // zero pivot at row 5
  h.at(h.d, 5, 7) = std::numeric_limits<S>::quiet_NaN();    // non-finite at row 8
  h.at(h.b, 7, 0) = std::numeric_limits<S>::infinity();     // bad pivot at row 1
  // Rebuild the case from the modified host batch (same sizes, hence the same plan order).
  using M = typename TypeParam::memory;
  auto g = clean_case;
  g.h = h;
  g.ra = ragged_from(h, h.a, sizes, g.offsets);
  g.rb = ragged_from(h, h.b, sizes, g.offsets);
  g.rc = ragged_from(h, h.c, sizes, g.offsets);
  g.rd = ragged_from(h, h.d, sizes, g.offsets);
  E exec;
  for (auto* v : {&g.a, &g.b, &g.c, &g.d}) *v = layouts::GroupedVector<S, M>("g", g.plan);
  layouts::pack(exec, g.ra, g.a);
  layouts::pack(exec, g.rb, g.b);
  layouts::pack(exec, g.rc, g.c);
  layouts::pack(exec, g.rd, g.d);
  const auto [x, status] = solve_size_aware_poisoned<S, E>(g);
  EXPECT_EQ(status[2], 5);
  EXPECT_EQ(status[5], -8);
  EXPECT_EQ(status[7], 1);
  for (index_type s = 0; s < static_cast<index_type>(sizes.size()); ++s)
    for (index_type i = 0; i < sizes[s]; ++i) {
      const S v = x[s * nmax + i];
      if (s == 2 || s == 5 || s == 7) {
        EXPECT_TRUE(std::isnan(v)) << "failed system " << s << " row " << i;
      } else {
        EXPECT_EQ(status[s], 0);
        EXPECT_EQ(std::memcmp(&v, &clean[s * nmax + i], sizeof(S)), 0) << "neighbour " << s << " changed";
      }
    }
}

TYPED_TEST(ThomasSizeAware, BadInputThrowsAndWritesNothing) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  EXPECT_THROW(layouts::SizeGroupedPlan<M>({3, -1, 4}), tridiag::invalid_argument);
  EXPECT_THROW(layouts::SizeGroupedPlan<M>({3, 1, 4}, 0), tridiag::invalid_argument);
  const std::vector<index_type> sizes = {3, 4, 5};
  const auto g = make_grouped_case<S, E>(sizes, 32, 1);
  E exec;
  layouts::SizeGroupedPlan<M> other(sizes);  // equal sizes, but another plan
  layouts::GroupedVector<S, M> x("x", g.plan), x_other("x", other);
  Kokkos::deep_copy(x.storage(), S(42));
  Kokkos::deep_copy(x_other.storage(), S(42));
  EXPECT_THROW(thomas::solve_size_aware(exec, g.a, g.b, g.c, g.d, x_other), tridiag::invalid_argument);
  StatusView<M> short_status("status", 2);
  EXPECT_THROW(thomas::solve_size_aware(exec, g.a, g.b, g.c, g.d, x, short_status), tridiag::invalid_argument);
  layouts::GroupedVector<S, M> work_other("w", other);
  EXPECT_THROW(thomas::solve_size_aware(exec, g.a, g.b, g.c, g.d, x, {}, work_other), tridiag::invalid_argument);
  // pack/unpack: ragged batches of other sizes or counts.
  auto offsets = layouts::make_offsets<M>({3, 5, 4});
  auto fewer = layouts::make_offsets<M>({3, 4});
  layouts::RaggedVector<S, M> wrong_sizes("r", offsets), wrong_count("r", fewer);
  EXPECT_THROW(layouts::pack(exec, wrong_sizes, x), tridiag::invalid_argument);
  EXPECT_THROW(layouts::pack(exec, wrong_count, x), tridiag::invalid_argument);
  EXPECT_THROW(layouts::unpack(exec, x, wrong_sizes), tridiag::invalid_argument);
  exec.fence();
  auto xs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x.storage());
  for (std::size_t e = 0; e < xs.extent(0); ++e) ASSERT_EQ(xs(e), S(42));
  auto xo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x_other.storage());
  for (std::size_t e = 0; e < xo.extent(0); ++e) ASSERT_EQ(xo(e), S(42));
}

// x may be rhs (in place: each row of rhs is read before that row of x is written); anything else
// x or the workspace shares with the solve's inputs is rejected before anything is written.
// Before the check: x = upper gave wrong results with status 0 (the Thomas core writes x(i)
// before it reads upper(i)), as did x one scalar past rhs and a workspace that is x; x = lower or
// diag and a workspace on a diagonal or rhs gave the right x but overwrote the inputs.
TYPED_TEST(ThomasSizeAware, OutputsThatOverlapTheInputsAreRejected) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  using V = layouts::GroupedVector<S, M>;
  const std::vector<index_type> sizes = {12, 30, 0, 5, 40, 1, 12, 7, 40, 21};
  const auto g = make_grouped_case<S, E>(sizes, 4, test_seed() + 3);
  const auto reference = solve_size_aware_poisoned<S, E>(g).first;
  E exec;
  const index_type span = g.plan.required_span();
  const typename V::storage_type both("both", span + 1);
  const V shifted_rhs(Kokkos::subview(both, std::make_pair(index_type(0), span)), g.plan);
  const V shifted_x(Kokkos::subview(both, std::make_pair(index_type(1), span + 1)), g.plan);
  V x("x", g.plan), work("w", g.plan);
  const auto size_aware = [&](const V& rhs, const V& out, const V& workspace) {
    return [&, rhs, out, workspace] { thomas::solve_size_aware(exec, g.a, g.b, g.c, rhs, out, {}, workspace); };
  };
  expect_invalid_argument(size_aware(g.d, g.a, {}), "x shares storage with the matrix's lower diagonal");
  expect_invalid_argument(size_aware(g.d, g.b, {}), "x shares storage with the matrix's diagonal");
  expect_invalid_argument(size_aware(g.d, g.c, {}), "x shares storage with the matrix's upper diagonal");
  expect_invalid_argument(size_aware(shifted_rhs, shifted_x, {}), "x overlaps rhs without being it");
  expect_invalid_argument(size_aware(g.d, x, x), "the workspace shares storage with x");
  expect_invalid_argument(size_aware(g.d, x, g.d), "the workspace shares storage with rhs");
  expect_invalid_argument(size_aware(g.d, x, g.c), "the workspace shares storage with the matrix's upper diagonal");
  expect_invalid_argument(size_aware(g.d, x, g.a), "the workspace shares storage with the matrix's lower diagonal");
  // Nothing was written: the inputs are intact.
  const auto unpacked = [&](const V& v) {
    layouts::RaggedVector<S, M> r("r", g.offsets);
    layouts::unpack(exec, v, r);
    exec.fence();
    return padded_host(r, sizes, g.h.rows);
  };
  const auto nan_padded = [&](const std::vector<S>& flat) {
    std::vector<S> v(flat.size(), nan_of<S>());
    for (std::size_t s = 0; s < sizes.size(); ++s)
      for (index_type i = 0; i < sizes[s]; ++i) v[s * g.h.rows + i] = flat[s * g.h.rows + i];
    return v;
  };
  EXPECT_TRUE(bitwise_equal(unpacked(g.a), nan_padded(g.h.a))) << "lower written";
  EXPECT_TRUE(bitwise_equal(unpacked(g.b), nan_padded(g.h.b))) << "diag written";
  EXPECT_TRUE(bitwise_equal(unpacked(g.c), nan_padded(g.h.c))) << "upper written";
  EXPECT_TRUE(bitwise_equal(unpacked(g.d), nan_padded(g.h.d))) << "rhs written";
  // The allowed cases still solve, bitwise as without them: a workspace of its own, and in place.
  thomas::solve_size_aware(exec, g.a, g.b, g.c, g.d, x, {}, work);
  EXPECT_TRUE(bitwise_equal(unpacked(x), reference)) << "own workspace";
  V in_place("in_place", g.plan);
  Kokkos::deep_copy(exec, in_place.storage(), g.d.storage());
  thomas::solve_size_aware(exec, g.a, g.b, g.c, in_place, in_place, {}, work);
  EXPECT_TRUE(bitwise_equal(unpacked(in_place), reference)) << "in place";
  expect_variable_solution(g.h, sizes, unpacked(in_place), "size-aware, in place");
}

template <class C>
class ThomasSizeAwareLongSystem : public KokkosTest {};
using LongSystemConfigs = to_gtest<product<list<float>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasSizeAwareLongSystem, LongSystemConfigs, ConfigNames);

// A size-grouped batch whose largest system has more than INT_MAX rows, with a status View: a
// status code (an int row number) could not name its rows (row 2^32 would read 0, "solved"), and
// the solve ran. Now rejected before anything is read (one system of 2^31 rows in float, groups of
// one, storage mapped read-only without reserve, never touched). Device spaces skip.
TYPED_TEST(ThomasSizeAwareLongSystem, StatusOfSystemsBeyondIntMaxRowsIsRejected) {
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  with_a_system_beyond_int_max_rows<M>([](const auto& system, const auto&, const auto& status) {
    using V = layouts::GroupedVector<float, M>;
    const layouts::SizeGroupedPlan<M> plan({rows_beyond_int_max}, 1);
    ASSERT_EQ(plan.required_span(), rows_beyond_int_max);
    const V matrix(typename V::storage_type(system.matrix_data(), rows_beyond_int_max), plan);
    const V rhs(typename V::storage_type(system.rhs_data(), rows_beyond_int_max), plan);
    expect_invalid_argument([&] { thomas::solve_size_aware(E(), matrix, matrix, matrix, rhs, rhs, status); },
                            status_rows_rejected);
  });
}

}  // namespace
}  // namespace tridiag::test

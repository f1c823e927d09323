// hines::solve (one thread per neuron, PerNeuron and BlockShared kernels) on every layout, float
// and double, against the long-double sequential oracle with error bounds from the algorithm's
// error analysis (hines_checks.hpp), on every shared morphology and two seed size classes; bitwise
// identity across kernels, layouts, runs and groupings; mixed batches (padded, grouped) against
// per-morphology solves; failures, bad input and empty batches.

#include <cstring>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::HinesSystem;
using hines::test::hines_accuracy;
using hines::test::random_step;
using hines::test::random_tree;
using hines::test::rounded;
using hines::test::test_cells;

template <class S>
using Solutions = std::vector<std::vector<S>>;

/// x (caller's order, pads dropped), the whole padded x (storage order, flat slot * rows + i)
/// and the status (caller's order) of one solve.
template <class S>
struct HinesResult {
  Solutions<S> x;
  std::vector<S> padded;
  std::vector<int> status;
};

template <class S>
bool same_bits(const std::vector<S>& u, const std::vector<S>& v) {
  return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), u.size() * sizeof(S)) == 0);
}
template <class S>
bool same_bits(const Solutions<S>& u, const Solutions<S>& v) {
  if (u.size() != v.size()) return false;
  for (std::size_t k = 0; k < u.size(); ++k)
    if (!same_bits(u[k], v[k])) return false;
  return true;
}

/// Raw storage of a BatchVector on the host (padding included), to prove inputs untouched.
template <class V>
std::vector<typename V::value_type> raw(const V& v) {
  auto host = create_host_copy(v);
  return std::vector<typename V::value_type>(host.storage().data(), host.storage().data() + host.storage().extent(0));
}

/// Solves problem with Algorithm into a NaN-poisoned x and a -999 status, checks that the block
/// layouts' padding of x was not written and (check_inputs) that a, b, d, rhs were not modified.
/// Few Kokkos operations per call: on a loaded 2-core machine each OpenMP one costs a time slice.
template <class C, class Algorithm = hines::algo::PerNeuron>
HinesResult<typename C::scalar> run(
    const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
    Algorithm algorithm = {}, bool check_inputs = true) {
  using S = typename C::scalar;
  using M = typename C::memory;
  const auto& batch = problem.matrix;
  std::vector<std::vector<S>> before;
  if (check_inputs) before = {raw(batch.a()), raw(batch.b()), raw(batch.d()), raw(problem.rhs)};
  using X = BatchVector<S, typename C::layout, M>;
  const typename C::layout xmap(batch.systems(), batch.rows());
  const X x(typename X::storage_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x"), xmap.required_span()), xmap);
  fill_storage(x, nan_of<S>());
  StatusView<M> status(Kokkos::view_alloc(Kokkos::WithoutInitializing, "status"), batch.systems());
  Kokkos::deep_copy(status, -999);
  typename C::exec exec;
  hines::solve(exec, batch, problem.rhs, x, status, {}, algorithm);
  exec.fence();
  if (check_inputs) {
    const std::vector<std::vector<S>> after = {raw(batch.a()), raw(batch.b()), raw(batch.d()), raw(problem.rhs)};
    for (int k = 0; k < 4; ++k)
      EXPECT_TRUE(same_bits(before[k], after[k])) << "input "
                                                  << "abdr"[k] << " modified";
  }
  // One host copy of x serves the padding check, the padded and the per-neuron views.
  const auto hx = create_host_copy(x);
  const auto& map = hx.mapping();
  std::vector<bool> real_element(static_cast<std::size_t>(map.required_span()), false);
  HinesResult<S> r;
  r.padded.resize(static_cast<std::size_t>(batch.systems() * batch.rows()));
  r.x.resize(problem.neuron_at_slot.size());
  for (index_type s = 0; s < batch.systems(); ++s) {
    const index_type k = problem.neuron_at_slot[s];
    for (index_type i = 0; i < batch.rows(); ++i) {
      real_element[map.offset(s, i)] = true;
      r.padded[s * batch.rows() + i] = hx(s, i);
    }
    r.x[k].assign(&r.padded[s * batch.rows()], &r.padded[s * batch.rows()] + problem.size_of(k));
  }
  for (std::size_t e = 0; e < real_element.size(); ++e)
    if (!real_element[e]) EXPECT_TRUE(hx.storage()(e) != hx.storage()(e)) << "padding element " << e << " written";
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  r.status.resize(problem.neuron_at_slot.size());
  for (std::size_t s = 0; s < r.status.size(); ++s) r.status[problem.neuron_at_slot[s]] = st(s);
  return r;
}

/// `count` random backward-Euler steps of one cell, rounded to S.
template <class S>
std::vector<HinesSystem> population(const hines::CompartmentalCell& cell, int count, std::uint64_t seed) {
  std::vector<HinesSystem> out;
  for (int k = 0; k < count; ++k) out.push_back(rounded<S>(random_step(cell, seed + k)));
  return out;
}

template <class S>
void expect_accurate(const std::vector<HinesSystem>& systems, const HinesResult<S>& r, const std::string& what) {
  for (std::size_t k = 0; k < systems.size(); ++k) {
    ASSERT_EQ(r.status[k], 0) << what << ", neuron " << k;
    const auto acc = hines_accuracy(systems[k], r.x[k], eps_of<S>());
    ASSERT_TRUE(acc.ok()) << what << ", neuron " << k << ": " << acc << " (seed " << test_seed() << ")";
  }
}

// ---- every layout ------------------------------------------------------------------------------
template <class C>
class HinesSolve : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, AllLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesSolve, Configs, ConfigNames);

TYPED_TEST(HinesSolve, SharedMorphologiesAndSizeClassesMatchTheOracle) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  for (std::size_t c = 0; c < test_cells().size(); ++c) {
    const auto& cell = test_cells()[c];
    SCOPED_TRACE(cell.name);
    const auto systems = population<S>(cell.cell, 19, test_seed() + 100 * c);
    const auto problem = hines::make_problem<S, L, M>(systems);
    ASSERT_EQ(problem.matrix.morphologies().count(), 1);
    const auto r = run<TypeParam>(problem);
    expect_accurate(systems, r, cell.name);
    // The Block-Shared kernel and a second run: the same bits.
    EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::BlockShared<8>{}, false).x, r.x)) << "BlockShared<8>";
    EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::PerNeuron{}, false).x, r.x)) << "repeated run";
    EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::BranchParallel{}, false).x, r.x)) << "BranchParallel";
    EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::BranchParallel{8}, false).x, r.x))
        << "BranchParallel{8}";
  }
}

TYPED_TEST(HinesSolve, RandomTreesAndForestsMatchTheOracle) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  std::vector<HinesSystem> systems;
  for (int n : {1, 2, 3, 7, 64, 200})
    for (int forest : {0, 5}) systems.push_back(rounded<S>(random_tree(n, test_seed() + 7 * n + forest, forest)));
  const auto problem = hines::make_problem<S, L, M>(systems);
  const auto r = run<TypeParam>(problem);
  expect_accurate(systems, r, "random trees");
  EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::BlockShared<32>{}).x, r.x)) << "BlockShared<32>";
  EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::BranchParallel{}).x, r.x)) << "BranchParallel";
  // Several threads per neuron on every backend (host spaces default to one).
  EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::BranchParallel{4}).x, r.x)) << "BranchParallel{4}";
  EXPECT_TRUE(same_bits(run<TypeParam>(problem, hines::algo::Automatic{}).x, r.x)) << "Automatic";
}

TYPED_TEST(HinesSolve, MixedBatchesPaddedAndGroupedEqualPerMorphologySolves) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto& cells = test_cells();
  const int ncells = static_cast<int>(cells.size());
  // Neuron k has cell (5 k) mod ncells: morphologies interleaved, every one twice.
  std::vector<HinesSystem> mixed;
  std::vector<int> cell_of;
  for (int k = 0; k < 2 * ncells; ++k) {
    cell_of.push_back((5 * k) % ncells);
    mixed.push_back(rounded<S>(random_step(cells[cell_of.back()].cell, test_seed() + k)));
  }
  // The reference: each cell's neurons alone, one morphology per batch.
  Solutions<S> expected(mixed.size());
  for (int c = 0; c < ncells; ++c) {
    std::vector<HinesSystem> mine;
    std::vector<int> which;
    for (int k = 0; k < 2 * ncells; ++k)
      if (cell_of[k] == c) {
        mine.push_back(mixed[k]);
        which.push_back(k);
      }
    const auto alone = run<TypeParam>(hines::make_problem<S, L, M>(mine), hines::algo::PerNeuron{}, false);
    for (std::size_t j = 0; j < which.size(); ++j) expected[which[j]] = alone.x[j];
  }
  expect_accurate(mixed, HinesResult<S>{expected, {}, std::vector<int>(mixed.size(), 0)}, "per morphology");

  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    const bool grouped = grouping == hines::Grouping::by_morphology;
    SCOPED_TRACE(grouped ? "grouped" : "padded");
    const auto problem = hines::make_problem<S, L, M>(mixed, grouping);
    ASSERT_EQ(problem.matrix.morphologies().count(), ncells);
    const index_type rows = problem.matrix.rows();
    for (const auto& algorithm_result :
         {run<TypeParam>(problem), run<TypeParam>(problem, hines::algo::BlockShared<32>{}),
          run<TypeParam>(problem, hines::algo::BranchParallel{})}) {
      for (std::size_t k = 0; k < mixed.size(); ++k) {
        ASSERT_EQ(algorithm_result.status[k], 0) << "neuron " << k;
        ASSERT_TRUE(same_bits(algorithm_result.x[k], expected[k])) << "neuron " << k;
      }
      // Pad rows are identity rows with rhs 0: solved, to exactly 0.
      for (std::size_t s = 0; s < mixed.size(); ++s) {
        const index_type n = problem.size_of(problem.neuron_at_slot[s]);
        for (index_type i = n; i < rows; ++i)
          ASSERT_EQ(algorithm_result.padded[s * rows + i], S(0)) << "slot " << s << ", pad row " << i;
      }
    }
    // Grouped storage: sizes never increase from one slot to the next, each morphology contiguous.
    if (grouped) {
      for (std::size_t s = 1; s < mixed.size(); ++s) {
        const auto prev = problem.neuron_at_slot[s - 1], here = problem.neuron_at_slot[s];
        ASSERT_GE(problem.size_of(prev), problem.size_of(here)) << "slot " << s;
        if (problem.size_of(prev) == problem.size_of(here))
          ASSERT_LE(problem.morphology_of_neuron[prev], problem.morphology_of_neuron[here]) << "slot " << s;
      }
    }
  }
}

TYPED_TEST(HinesSolve, FailedNeuronsAreReportedAndLeaveTheirNeighboursExact) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto& cell = test_cells().front().cell;
  auto systems = population<S>(cell, 19, test_seed());
  const auto clean = run<TypeParam>(hines::make_problem<S, L, M>(systems));
  // Neuron 5: zero diagonal on a leaf (its eliminated pivot is d itself). Neuron 11: NaN in rhs.
  int leaf = cell.size() - 1;
  std::vector<bool> has_child(cell.size(), false);
  for (int i = 1; i < cell.size(); ++i) has_child[cell.parent[i]] = true;
  while (has_child[leaf]) --leaf;
  systems[5].d[leaf] = 0;
  systems[11].rhs[3] = std::numeric_limits<double>::quiet_NaN();
  const auto problem = hines::make_problem<S, L, M>(systems);
  for (const auto& r : {run<TypeParam>(problem), run<TypeParam>(problem, hines::algo::BlockShared<8>{}),
                        run<TypeParam>(problem, hines::algo::BranchParallel{})}) {
    EXPECT_EQ(r.status[5], leaf + 1);
    EXPECT_EQ(r.status[11], -4);
    for (int k : {5, 11})
      for (S v : r.x[k]) ASSERT_TRUE(v != v) << "failed neuron " << k << " is not NaN";
    for (std::size_t k = 0; k < systems.size(); ++k) {
      if (k == 5 || k == 11) continue;
      EXPECT_EQ(r.status[k], 0);
      EXPECT_TRUE(same_bits(r.x[k], clean.x[k])) << "neuron " << k;
    }
  }
}

TYPED_TEST(HinesSolve, InPlaceAndWithWorkspaceGiveTheSameBits) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto systems = population<S>(test_cells()[2].cell, 13, test_seed());
  const auto problem = hines::make_problem<S, L, M>(systems);
  const auto reference = run<TypeParam>(problem);
  hines::Workspace<S, L, M> workspace("w", problem.matrix.systems(), problem.matrix.rows());
  typename TypeParam::exec exec;
  // rhs is x: copy the right-hand side first, then solve in place, twice with one workspace.
  for (int repeat = 0; repeat < 2; ++repeat) {
    BatchVector<S, L, M> x("x", problem.matrix.systems(), problem.matrix.rows());
    hines::set_rhs(problem, hines::copy_solution(problem, problem.rhs), x);
    hines::solve(exec, problem.matrix, x, x, {}, workspace);
    EXPECT_TRUE(same_bits(hines::copy_solution(problem, x), reference.x)) << "repeat " << repeat;
  }
}

TYPED_TEST(HinesSolve, EmptyBatchIsFine) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto problem = hines::make_problem<S, L, M>({});
  EXPECT_EQ(problem.matrix.systems(), 0);
  const auto r = run<TypeParam>(problem);
  EXPECT_TRUE(r.x.empty());
  run<TypeParam>(problem, hines::algo::BlockShared<8>{});
}

// ---- across layouts at once -------------------------------------------------------------------
template <class C>
class HinesAcrossLayouts : public KokkosTest {};
using ScalarExecs = to_gtest<product<RealScalars, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesAcrossLayouts, ScalarExecs, ConfigNames);

template <class S, class E, class L, class Algorithm = hines::algo::PerNeuron>
Solutions<S> solve_in(const std::vector<HinesSystem>& systems, hines::Grouping grouping, Algorithm algorithm = {}) {
  using C = Config<S, L, E>;
  return run<C>(hines::make_problem<S, L, typename C::memory>(systems, grouping), algorithm, false).x;
}

TYPED_TEST(HinesAcrossLayouts, ResultsAreBitwiseIdenticalAcrossLayoutsKernelsAndGroupings) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  std::vector<HinesSystem> systems;
  const auto& cells = test_cells();
  for (std::size_t k = 0; k < 2 * cells.size() + 3; ++k)
    systems.push_back(rounded<S>(random_step(cells[(3 * k) % cells.size()].cell, test_seed() + k)));
  using hines::Grouping;
  using hines::algo::BlockShared;
  const auto flat = solve_in<S, E, layouts::Flat>(systems, Grouping::none);
  const std::vector<Solutions<S>> others = {
      solve_in<S, E, layouts::Flat>(systems, Grouping::by_morphology),
      solve_in<S, E, layouts::Interleaved>(systems, Grouping::none),
      solve_in<S, E, layouts::Interleaved>(systems, Grouping::by_morphology, BlockShared<32>{}),
      solve_in<S, E, layouts::BlockInterleaved<8>>(systems, Grouping::by_morphology),
      solve_in<S, E, layouts::BlockInterleaved<32>>(systems, Grouping::none, BlockShared<32>{}),
      solve_in<S, E, layouts::BlockInterleaved<32>>(systems, Grouping::by_morphology),
      solve_in<S, E, layouts::UnifiedVector>(systems, Grouping::none, BlockShared<4>{}),
      solve_in<S, E, layouts::Flat>(systems, Grouping::none, hines::algo::BranchParallel{}),
      solve_in<S, E, layouts::Interleaved>(systems, Grouping::by_morphology, hines::algo::BranchParallel{}),
      solve_in<S, E, layouts::Flat>(systems, Grouping::none, hines::algo::Automatic{})};
  for (std::size_t k = 0; k < others.size(); ++k) EXPECT_TRUE(same_bits(others[k], flat)) << "variant " << k;
}

// ---- bad input --------------------------------------------------------------------------------
template <class C>
class HinesBadInput : public KokkosTest {};
using BadInputConfigs = to_gtest<product<list<double>, list<layouts::BlockInterleaved<8>>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesBadInput, BadInputConfigs, ConfigNames);

TYPED_TEST(HinesBadInput, ShapeMismatchThrowsAndWritesNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto problem = hines::make_problem<S, L, M>(population<S>(test_cells().front().cell, 10, test_seed()));
  const index_type systems = problem.matrix.systems(), rows = problem.matrix.rows();
  typename TypeParam::exec exec;
  BatchVector<S, L, M> x("x", systems, rows), short_x("x", systems, rows - 1), few_x("x", systems - 1, rows);
  fill_storage(x, nan_of<S>());
  StatusView<M> status("status", systems), short_status("status", systems - 1);
  Kokkos::deep_copy(status, -999);
  hines::Workspace<S, L, M> bad_workspace("w", systems + 1, rows);
  const auto untouched = [&] {
    for (S v : download(x)) ASSERT_TRUE(v != v) << "x was written";
    auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
    for (index_type s = 0; s < systems; ++s) ASSERT_EQ(st(s), -999) << "status was written";
  };
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, short_x, status), tridiag::invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, few_x, status), tridiag::invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, few_x, x, status), tridiag::invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, short_status), tridiag::invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, status, bad_workspace), tridiag::invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, status, {}, hines::algo::BlockShared<1 << 20>{}),
               tridiag::invalid_argument);  // scratch too large for any space
  exec.fence();
  untouched();
}

TYPED_TEST(HinesBadInput, BadTopologyAndMorphologyIdsThrow) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using tridiag::invalid_argument;
  // make_morphologies: parent(i) >= i, < -1, rows smaller than a morphology.
  EXPECT_THROW(hines::make_morphologies<M>({{-1, 0, 2}}), invalid_argument);
  EXPECT_THROW(hines::make_morphologies<M>({{-1, 0, 1}, {-1, 3, 0, 1}}), invalid_argument);
  EXPECT_THROW(hines::make_morphologies<M>({{-1, -2}}), invalid_argument);
  EXPECT_THROW(hines::make_morphologies<M>({{-1, 0, 1}}, 2), invalid_argument);
  // Morphologies from raw Views: a pad row with a parent, sizes of the wrong extent.
  typename hines::Morphologies<M>::parent_view parent("p", 1, 3);
  typename hines::Morphologies<M>::size_view sizes("n", 1), two_sizes("n", 2);
  auto hp = Kokkos::create_mirror_view(parent);
  auto hn = Kokkos::create_mirror_view(sizes);
  hp(0, 0) = -1;
  hp(0, 1) = 0;
  hp(0, 2) = 1;  // pad row (size 2) with a parent
  hn(0) = 2;
  Kokkos::deep_copy(parent, hp);
  Kokkos::deep_copy(sizes, hn);
  EXPECT_THROW(hines::Morphologies<M>(parent, sizes), invalid_argument);
  EXPECT_THROW(hines::Morphologies<M>(parent, two_sizes), invalid_argument);
  // HinesBatch: morphology ids out of range or of the wrong extent, mismatched coefficients,
  // several morphologies without ids.
  const auto two = hines::make_morphologies<M>({{-1, 0, 1}, {-1, 0}});
  BatchVector<S, L, M> a("a", 4, 3), b("b", 4, 3), d("d", 4, 3), d5("d", 5, 3);
  BatchVector<S, L, M> a2("a", 4, 2), b2("b", 4, 2), d2("d", 4, 2);
  Kokkos::View<int*, M> ids("ids", 4), short_ids("ids", 3);
  auto hids = Kokkos::create_mirror_view(ids);
  hids(0) = 0;
  hids(1) = 1;
  hids(2) = 2;  // out of range
  hids(3) = 0;
  Kokkos::deep_copy(ids, hids);
  EXPECT_THROW((hines::HinesBatch<S, L, M>(two, ids, a, b, d)), invalid_argument);
  hids(2) = -1;
  Kokkos::deep_copy(ids, hids);
  EXPECT_THROW((hines::HinesBatch<S, L, M>(two, ids, a, b, d)), invalid_argument);
  hids(2) = 1;
  Kokkos::deep_copy(ids, hids);
  EXPECT_NO_THROW((hines::HinesBatch<S, L, M>(two, ids, a, b, d)));
  EXPECT_THROW((hines::HinesBatch<S, L, M>(two, short_ids, a, b, d)), invalid_argument);
  EXPECT_THROW((hines::HinesBatch<S, L, M>(two, ids, a, b, d5)), invalid_argument);
  EXPECT_THROW((hines::HinesBatch<S, L, M>(two, ids, a2, b2, d2)), invalid_argument);  // 2 rows, padded to 3
  EXPECT_THROW((hines::HinesBatch<S, L, M>(two, a, b, d)), invalid_argument);
  // make_problem: a neuron whose vectors disagree, or whose parents are not a Hines numbering.
  auto systems = population<S>(test_cells().front().cell, 3, test_seed());
  systems[1].rhs.pop_back();
  EXPECT_THROW((hines::make_problem<S, L, M>(systems)), invalid_argument);
  systems = population<S>(test_cells().front().cell, 3, test_seed());
  systems[2].parent[7] = 9;
  EXPECT_THROW((hines::make_problem<S, L, M>(systems)), invalid_argument);
}

}  // namespace
}  // namespace tridiag::test

// hines::solve (one thread per neuron, PerNeuron and BlockShared kernels) on every layout, float
// and double, against the long-double sequential oracle with error bounds from the algorithm's
// error analysis (hines_checks.hpp), on every shared morphology and two seed size classes; pad
// rows left alone (solve_padding = false) with the same bits on the real rows; bitwise
// identity across kernels, layouts, runs and groupings; mixed batches (padded, grouped) against
// per-morphology solves; failures, bad input and empty batches; the folded backward sweep
// (serial_hines.hpp) bit for bit against the textbook copy-then-sweep on trees that break a wrong
// fold, in place and not, and its reporting of the lowest non-finite rhs row; the per-morphology
// tree links; the choice of algo::Automatic and its results (PerNeuron's bits, within rounding
// where it splits a trunk: expect_automatic_matches).

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <utility>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/hines_solve_runs.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::test::random_tree;
using hines::test::test_cells;

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
  expect_automatic_matches<TypeParam>(problem, r, "random trees");
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
  const int leaf = leaves_of(cell).back();
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

/// Sets every pad row of v (rows from the slot's neuron size on) to `value`, in place on v's
/// memory space (vectors of one Unified-Vector allocation: one after the other).
template <class Problem, class Vector>
void fill_pad_rows(const Problem& problem, const Vector& v, double value) {
  using S = typename Vector::value_type;
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v.storage());
  const BatchVector<S, typename Vector::layout_type, Kokkos::HostSpace> h(host, v.mapping());
  for (index_type s = 0; s < v.systems(); ++s)
    for (index_type i = problem.size_of(problem.neuron_at_slot[s]); i < v.rows(); ++i) h(s, i) = static_cast<S>(value);
  Kokkos::deep_copy(v.storage(), host);
}

TYPED_TEST(HinesSolve, WithoutPaddingPadRowsAreLeftAloneAndRealRowsGetTheSameBits) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto& cells = test_cells();
  std::vector<HinesSystem> mixed = mixed_population<S>(2 * cells.size(), test_seed());
  // Failures among them: a zero pivot at a leaf, NaN and infinite right-hand sides.
  const auto& cell = cells[(5 * 3) % cells.size()].cell;
  const int leaf = leaves_of(cell).back();
  mixed[3].d[leaf] = 0;
  mixed[7].rhs[2] = std::numeric_limits<double>::quiet_NaN();
  mixed[12].rhs[0] = std::numeric_limits<double>::infinity();
  const S sentinel = S(-12345.5);
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology})
    for (bool in_place : {false, true}) {
      SCOPED_TRACE(std::string(grouping == hines::Grouping::none ? "padded" : "grouped") +
                   (in_place ? ", in place" : ""));
      const auto problem = hines::make_problem<S, L, M>(mixed, grouping);
      const auto padded = solve_over_sentinel<TypeParam>(problem, hines::algo::PerNeuron{}, sentinel, in_place);
      for (std::size_t k : {std::size_t(3), std::size_t(7), std::size_t(12)}) {
        const auto slot = std::find(problem.neuron_at_slot.begin(), problem.neuron_at_slot.end(), k);
        ASSERT_NE(padded.status[slot - problem.neuron_at_slot.begin()], 0) << "neuron " << k << " should fail";
      }
      // The default solves the pad rows: identity rows, x = rhs (0, or the sentinel in place).
      for (std::size_t s = 0; s < mixed.size(); ++s) {
        if (padded.status[s] != 0) continue;
        const S expected = in_place ? sentinel : S(0);
        const index_type rows = problem.matrix.rows();
        for (index_type i = problem.size_of(problem.neuron_at_slot[s]); i < rows; ++i)
          ASSERT_EQ(padded.x[s * rows + i], expected) << "slot " << s << ", pad row " << i;
      }
      // Without padding the pad rows are not read either: from here on they hold a zero pivot and
      // NaN everywhere else, which would fail every neuron that read them. (Automatic without
      // splits: on a GPU it runs StagedBranchParallel or BranchParallel on Flat, SubtreeParallel
      // on Interleaved and BlockInterleaved<32>, all with PerNeuron's bits.)
      const double nan = std::numeric_limits<double>::quiet_NaN();
      fill_pad_rows(problem, problem.matrix.d(), 0.0);
      fill_pad_rows(problem, problem.matrix.a(), nan);
      fill_pad_rows(problem, problem.matrix.b(), nan);
      fill_pad_rows(problem, problem.rhs, nan);
      const auto skipped = [&](auto algorithm) {
        return solve_over_sentinel<TypeParam>(problem, algorithm, sentinel, in_place);
      };
      expect_padding_skipped(problem, padded, skipped(hines::algo::PerNeuron{false}), sentinel, "PerNeuron");
      expect_padding_skipped(problem, padded, skipped(hines::algo::BlockShared<8>{false}), sentinel, "BlockShared<8>");
      expect_padding_skipped(problem, padded, skipped(hines::algo::BranchParallel{0, false}), sentinel,
                             "BranchParallel");
      hines::algo::StagedBranchParallel staged;
      staged.solve_padding = false;
      expect_padding_skipped(problem, padded, skipped(staged), sentinel, "StagedBranchParallel");
      staged.neurons_per_team = 3;
      expect_padding_skipped(problem, padded, skipped(staged), sentinel, "StagedBranchParallel, 3 a team");
      staged.stage_coefficients = false;
      expect_padding_skipped(problem, padded, skipped(staged), sentinel, "StagedBranchParallel, d and rhs");
      expect_padding_skipped(problem, padded, skipped(hines::algo::SubtreeParallel{0, false}), sentinel,
                             "SubtreeParallel");
      expect_padding_skipped(problem, padded, skipped(hines::algo::Automatic{false, false}), sentinel, "Automatic");
    }
}

// x may be rhs (in place); any other overlap of what the solve writes (x, the workspace) with
// what it reads would change its own inputs mid-solve: wrong results that nothing reported (x = a
// or b, or the workspace = x, gave errors of 0.4 to 174 on Interleaved). Rejected before anything
// is written. On the Unified-Vector layout a, b, d and rhs share one allocation as different
// components, which is not an overlap.
TYPED_TEST(HinesSolve, OutputsThatOverlapTheInputsAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto problem = hines::make_problem<S, L, M>(population<S>(test_cells()[2].cell, 5, test_seed()));
  const auto& batch = problem.matrix;
  const index_type systems = batch.systems(), rows = batch.rows();
  typename TypeParam::exec exec;
  const auto before = create_host_copy(batch.d());
  const auto rejected = [&](const BatchVector<S, L, M>& rhs, const BatchVector<S, L, M>& x,
                            const hines::Workspace<S, L, M>& workspace, const std::string& expected) {
    try {
      hines::solve(exec, batch, rhs, x, {}, workspace, hines::algo::Automatic{});
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const tridiag::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  BatchVector<S, L, M> x("x", systems, rows);
  rejected(problem.rhs, batch.a(), {}, "x shares storage with the matrix's a");
  rejected(problem.rhs, batch.b(), {}, "x shares storage with the matrix's b");
  rejected(problem.rhs, batch.d(), {}, "x shares storage with the matrix's d");
  rejected(problem.rhs, x, x, "the workspace shares storage with x");
  rejected(problem.rhs, x, problem.rhs, "the workspace shares storage with rhs");
  rejected(x, x, x, "the workspace shares storage with rhs");  // in place, the workspace x too
  rejected(problem.rhs, x, batch.d(), "the workspace shares storage with the matrix's d");
  rejected(problem.rhs, x, batch.a(), "the workspace shares storage with the matrix's a");
  // x one scalar past rhs in one allocation: overlapping, not the same vector.
  const auto span = static_cast<std::size_t>(problem.rhs.storage().extent(0));
  const typename BatchVector<S, L, M>::storage_type both("both", span + 1);
  const L map = x.mapping();
  rejected(BatchVector<S, L, M>(Kokkos::subview(both, std::make_pair(std::size_t(0), span)), map),
           BatchVector<S, L, M>(Kokkos::subview(both, std::make_pair(std::size_t(1), span + 1)), map), {},
           "x overlaps rhs without being it");
  // Nothing was written, and the allowed cases still run: in place, a workspace of its own.
  const auto after = create_host_copy(batch.d());
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < rows; ++i) ASSERT_EQ(after(s, i), before(s, i));
  hines::Workspace<S, L, M> workspace("w", systems, rows);
  hines::solve(exec, batch, problem.rhs, x, {}, workspace, hines::algo::Automatic{});
  hines::set_rhs(problem, hines::copy_solution(problem, problem.rhs), x);
  hines::solve(exec, batch, x, x, {}, workspace, hines::algo::Automatic{});
  exec.fence();
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

// ---- the folded backward sweep ----------------------------------------------------------------
// SerialHines starts a row's eliminated entries from d and rhs at its first (highest-numbered)
// child, keeps them in registers along unbranched runs and stores partial ones only at branch
// points (serial_hines.hpp). These tests compare it bit for bit with the textbook sweep (copy d
// and rhs, then eliminate) on trees chosen to break a wrong fold: many children per row, children
// far from their parent, forests with lone roots, a single compartment (fold_shapes,
// hines_solve_runs.hpp); in place and not.

/// The textbook sweep, one neuron per index: w = d and x = rhs copied first, children eliminated
/// into their parents from the last row to the first (each row, once reduced, scaled by its
/// pivot: x(i) / w(i) and a(i) / w(i), as SerialHines keeps them), then the substitution. It runs
/// on the space under test, so that a device compiler contracts the same expressions the same way.
template <class S, class M>
struct TextbookSweep {
  Kokkos::View<int**, Kokkos::LayoutRight, M> parent;
  Kokkos::View<int*, M> size;
  Kokkos::View<S**, Kokkos::LayoutRight, M> a, b, d, w, x;  // x holds rhs on entry
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int n = size(s);
    for (int i = 0; i < n; ++i) w(s, i) = d(s, i);
    for (int i = n - 1; i >= 0; --i) {
      const S wi = w(s, i);
      const S ri = x(s, i) / wi;
      x(s, i) = ri;
      const int p = parent(s, i);
      if (p < 0) continue;
      const S ci = a(s, i) / wi;
      w(s, i) = ci;
      w(s, p) -= b(s, i) * ci;
      x(s, p) -= b(s, i) * ri;
    }
    for (int i = 0; i < n; ++i) {
      const int p = parent(s, i);
      S xi = x(s, i);
      if (p >= 0) xi -= w(s, i) * x(s, p);
      x(s, i) = xi;
    }
  }
};

template <class C>
Solutions<typename C::scalar> textbook(const std::vector<HinesSystem>& systems) {
  using S = typename C::scalar;
  using M = typename C::memory;
  const index_type count = static_cast<index_type>(systems.size());
  index_type rows = 1;
  for (const auto& sys : systems) rows = std::max<index_type>(rows, sys.size());
  using Table = Kokkos::View<S**, Kokkos::LayoutRight, M>;
  const std::size_t c = static_cast<std::size_t>(count), r = static_cast<std::size_t>(rows);
  TextbookSweep<S, M> k{decltype(k.parent)("parent", c, r),
                        decltype(k.size)("size", c),
                        Table("a", c, r),
                        Table("b", c, r),
                        Table("d", c, r),
                        Table("w", c, r),
                        Table("x", c, r)};
  auto hp = Kokkos::create_mirror_view(k.parent);
  auto hn = Kokkos::create_mirror_view(k.size);
  auto ha = Kokkos::create_mirror_view(k.a);
  auto hb = Kokkos::create_mirror_view(k.b);
  auto hd = Kokkos::create_mirror_view(k.d);
  auto hx = Kokkos::create_mirror_view(k.x);
  for (index_type s = 0; s < count; ++s) {
    const HinesSystem& sys = systems[s];
    hn(s) = sys.size();
    for (int i = 0; i < sys.size(); ++i) {
      hp(s, i) = sys.parent[i];
      ha(s, i) = static_cast<S>(sys.a[i]);
      hb(s, i) = static_cast<S>(sys.b[i]);
      hd(s, i) = static_cast<S>(sys.d[i]);
      hx(s, i) = static_cast<S>(sys.rhs[i]);
    }
  }
  Kokkos::deep_copy(k.parent, hp);
  Kokkos::deep_copy(k.size, hn);
  Kokkos::deep_copy(k.a, ha);
  Kokkos::deep_copy(k.b, hb);
  Kokkos::deep_copy(k.d, hd);
  Kokkos::deep_copy(k.x, hx);
  Kokkos::parallel_for("textbook_hines", Kokkos::RangePolicy<typename C::exec, Kokkos::IndexType<index_type>>(0, count),
                       k);
  Kokkos::deep_copy(hx, k.x);
  Solutions<S> out(systems.size());
  for (index_type s = 0; s < count; ++s) out[s].assign(&hx(s, 0), &hx(s, 0) + systems[s].size());
  return out;
}

TYPED_TEST(HinesSolve, FoldedSweepEqualsTheTextbookSweepBitwise) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto shapes = fold_shapes(test_seed());
  // Every shape twice (different coefficients), interleaved: a padded mixed batch.
  std::vector<HinesSystem> systems;
  for (int copy = 0; copy < 2; ++copy)
    for (std::size_t k = 0; k < shapes.size(); ++k)
      systems.push_back(rounded<S>(on_tree(shapes[k], test_seed() + 31 * k + copy)));
  const Solutions<S> expected = textbook<TypeParam>(systems);
  const auto check = [&](const HinesResult<S>& r, const std::string& what) {
    SCOPED_TRACE(what + " (seed " + std::to_string(test_seed()) + ")");
    ASSERT_EQ(r.x.size(), systems.size());
    for (std::size_t k = 0; k < systems.size(); ++k) {
      EXPECT_EQ(r.status[k], 0) << "neuron " << k;
      EXPECT_TRUE(same_bits(r.x[k], expected[k])) << "neuron " << k << " (" << systems[k].size() << " rows)";
    }
  };
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    const std::string how = grouping == hines::Grouping::none ? "padded, " : "grouped, ";
    const auto problem = hines::make_problem<S, L, M>(systems, grouping);
    check(run<TypeParam>(problem), how + "PerNeuron");
    check(run<TypeParam>(problem, hines::algo::BlockShared<4>{}, false), how + "BlockShared<4>");
    check(run<TypeParam>(problem, hines::algo::BranchParallel{}, false), how + "BranchParallel");
    check(run<TypeParam>(problem, hines::algo::BranchParallel{3}, false), how + "BranchParallel{3}");
    check(run<TypeParam>(problem, hines::algo::Automatic{true, false}, false), how + "Automatic without splits");
    expect_automatic_matches<TypeParam>(problem, run<TypeParam>(problem, hines::algo::PerNeuron{}, false), how);
    check(run_in_place<TypeParam>(problem), how + "PerNeuron in place");
    check(run_in_place<TypeParam>(problem, hines::algo::BlockShared<4>{}), how + "BlockShared<4> in place");
    check(run_in_place<TypeParam>(problem, hines::algo::BranchParallel{}), how + "BranchParallel in place");
  }
}

TYPED_TEST(HinesSolve, AutomaticKernelNameSaysWhatTheSolveRuns) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  // 64 neurons of one 100-row tree: on a GPU StagedBranchParallel with all four arrays on Flat (64
  // neurons fit at once), SubtreeParallel on Interleaved and BlockInterleaved<32>, PerNeuron on the
  // other layouts (WarpStaged from 1,600 neurons); PerNeuron on host spaces.
  const std::vector<HinesSystem> systems(64, random_tree(100, test_seed()));
  const auto problem = hines::make_problem<S, L, M>(systems, hines::Grouping::none);
  const E exec;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible;
  std::string expected = "hines";
  if (!host && std::is_same_v<L, layouts::Flat>) expected = "hines_staged_branch_parallel";
  if (!host && hines::impl::automatic_subtree_layout<L>())
    expected = std::string("hines_subtree_parallel") +
               (hines::automatic_splits_trunks<S>(exec, problem.matrix) ? "_split" : "");
  EXPECT_EQ(hines::automatic_kernel_name<S>(exec, problem.matrix), expected);
  // With split_trunks = false no trunk is split, and SubtreeParallel's name has no "_split".
  EXPECT_EQ(hines::automatic_kernel_name<S>(exec, problem.matrix, hines::algo::Automatic{true, false}),
            host || !hines::impl::automatic_subtree_layout<L>() ? expected : std::string("hines_subtree_parallel"));
}

TYPED_TEST(HinesSolve, FoldedSweepReportsTheLowestNonFiniteRhsRow) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  // On {-1, 0, 1, 0} the folded sweep reads rhs in the order 3 (a leaf), 0 (at its first child 3),
  // 2 (a leaf), 1 (at its child 2): out of row order, yet the lowest bad row must be reported.
  const std::vector<int> tree = {-1, 0, 1, 0};
  const S nan = nan_of<S>(), inf = std::numeric_limits<S>::infinity();
  struct Case {
    std::vector<std::pair<int, S>> rhs;  // row, value
    int zero_d;                          // row whose d is 0, or -1
    int status;
  };
  const std::vector<Case> cases = {
      {{}, -1, 0},
      {{{0, nan}, {2, nan}}, -1, -1},
      {{{1, nan}, {2, nan}}, -1, -2},
      {{{3, inf}, {0, nan}}, -1, -1},
      {{{2, -inf}}, -1, -3},
      {{{3, nan}}, -1, -4},
      {{{0, nan}}, 3, 4},  // a zero pivot (leaf 3) outranks a bad rhs
  };
  std::vector<HinesSystem> systems;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    HinesSystem sys = rounded<S>(on_tree(tree, test_seed() + c));
    for (const auto& [row, value] : cases[c].rhs) sys.rhs[row] = static_cast<double>(value);
    if (cases[c].zero_d >= 0) sys.d[cases[c].zero_d] = 0;
    systems.push_back(sys);
  }
  systems.push_back(rounded<S>(on_tree({-1, 0, 0, 0, 0, 0}, test_seed())));  // pads the others by 2 rows
  const auto problem = hines::make_problem<S, L, M>(systems);
  const auto clean = textbook<TypeParam>({systems[0], systems.back()});
  for (const auto& [r, what] :
       {std::pair{run<TypeParam>(problem), "PerNeuron"},
        std::pair{run<TypeParam>(problem, hines::algo::BlockShared<4>{}, false), "BlockShared<4>"},
        std::pair{run<TypeParam>(problem, hines::algo::BranchParallel{}, false), "BranchParallel"},
        std::pair{run_in_place<TypeParam>(problem), "PerNeuron in place"},
        std::pair{run_in_place<TypeParam>(problem, hines::algo::BranchParallel{}), "BranchParallel in place"}}) {
    SCOPED_TRACE(what);
    for (std::size_t c = 0; c < cases.size(); ++c) {
      EXPECT_EQ(r.status[c], cases[c].status) << "case " << c;
      if (cases[c].status != 0)
        for (S v : r.x[c]) EXPECT_TRUE(v != v) << "case " << c << ": a failed neuron's x is NaN";
    }
    EXPECT_TRUE(same_bits(r.x[0], clean[0]));
    EXPECT_EQ(r.status.back(), 0);
    EXPECT_TRUE(same_bits(r.x.back(), clean[1]));
  }
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

// ---- per-morphology tables and the automatic choice ---------------------------------------------
template <class C>
class HinesTables : public KokkosTest {};
using TableConfigs = to_gtest<product<list<double>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesTables, TableConfigs, ConfigNames);

TYPED_TEST(HinesTables, TreeLinksMarkLeavesAndFirstChildren) {
  using M = typename TypeParam::memory;
  using hines::TreeLinks;
  constexpr int kids = TreeLinks::has_children, first = TreeLinks::first_child;
  std::vector<std::vector<int>> parents = {{-1, 0, 0, 1, -1}, {-1, 0}};
  // Spelled out: rows 1, 2 are children of 0 (2 reached first), 3 of 1; 4 a lone root; pads 0.
  const std::vector<std::vector<int>> expected = {
      {TreeLinks::encode(-1, kids), TreeLinks::encode(0, kids), TreeLinks::encode(0, first),
       TreeLinks::encode(1, first), TreeLinks::encode(-1, 0), 0},
      {TreeLinks::encode(-1, kids), TreeLinks::encode(0, first), 0, 0, 0, 0}};
  for (const auto& shape : fold_shapes(test_seed())) parents.push_back(shape);
  for (const auto& cell : test_cells()) parents.push_back(cell.cell.parent);
  const auto morphologies = hines::make_morphologies<M>(parents);
  const auto links = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), morphologies.links());
  const index_type rows = morphologies.rows();
  for (std::size_t m = 0; m < parents.size(); ++m) {
    const auto& p = parents[m];
    const int n = static_cast<int>(p.size());
    for (int i = 0; i < rows; ++i) {
      const int link = links(m, i);
      if (m < expected.size() && i < static_cast<int>(expected[m].size())) {
        EXPECT_EQ(link, expected[m][i]) << "morphology " << m << ", row " << i;
      }
      if (i >= n) {
        EXPECT_EQ(link, 0) << "morphology " << m << ", pad row " << i;
        continue;
      }
      // By brute force: has a child; no higher row shares its parent.
      bool has_child = false, highest = p[i] >= 0;
      for (int j = i + 1; j < n; ++j) {
        has_child = has_child || p[j] == i;
        highest = highest && p[j] != p[i];
      }
      ASSERT_EQ(TreeLinks::parent(link), p[i]) << "morphology " << m << ", row " << i;
      ASSERT_EQ((link & kids) != 0, has_child) << "morphology " << m << ", row " << i;
      ASSERT_EQ((link & first) != 0, highest) << "morphology " << m << ", row " << i;
    }
  }
}

TYPED_TEST(HinesTables, AutomaticPicksATeamPerNeuronOrSubtreesOnlyOnAGpuTheNeuronsCannotFill) {
  using E = typename TypeParam::exec;
  using hines::Kernel;
  using hines::impl::automatic_kernel;
  // The rule on an H100 (132 SMs x 2,048 threads), where 25,600 and 256,000 neurons both leave
  // threads idle one thread per neuron (hines_solve.hpp gives the figures): on the flat layout
  // StagedBranchParallel up to 900 rows whatever the batch, BranchParallel above without the GPU's
  // facts (with them: the next test); SubtreeParallel
  // on Interleaved and BlockInterleaved<32> up to an eighth of the threads (33,792 neurons), from
  // 64 rows; per-neuron otherwise.
  const index_type h100 = 132 * 2048;
  for (index_type neurons : {index_type(1), index_type(25600), index_type(256000), 4 * h100}) {
    EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, neurons, 900), Kernel::staged_branch_parallel) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, neurons, 256), Kernel::staged_branch_parallel) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, neurons, 107), Kernel::staged_branch_parallel) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, neurons, 1, true), Kernel::staged_branch_parallel);
  }
  for (index_type neurons : {1, 25600, 256000}) {
    EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, neurons, 901), Kernel::branch_parallel) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, neurons, 4035), Kernel::branch_parallel) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<8>>(true, h100, neurons, 1057), Kernel::per_neuron);
    EXPECT_EQ(automatic_kernel<layouts::UnifiedVector>(true, h100, neurons, 1057), Kernel::per_neuron);
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(true, h100, neurons, 63), Kernel::per_neuron) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<32>>(true, h100, neurons, 63), Kernel::per_neuron);
    EXPECT_EQ(automatic_kernel<layouts::Flat>(false, 16, neurons, 4035), Kernel::per_neuron) << "host";
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(false, 16, neurons, 4035), Kernel::per_neuron) << "host";
  }
  for (index_type neurons : {1, 25600, 33792}) {
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(true, h100, neurons, 671), Kernel::subtree_parallel) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(true, h100, neurons, 64), Kernel::subtree_parallel) << neurons;
    EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<32>>(true, h100, neurons, 107), Kernel::subtree_parallel);
  }
  for (index_type neurons : {33793, 64000, 256000})
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(true, h100, neurons, 671), Kernel::per_neuron) << neurons;
  for (index_type neurons : {1, 25600, 33792})
    EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<32>>(true, h100, neurons, 1057), Kernel::subtree_parallel)
        << neurons;
  for (index_type neurons : {33793, 64000, 256000})
    EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<32>>(true, h100, neurons, 1057), Kernel::per_neuron)
        << neurons;
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, h100, 1057), Kernel::per_neuron) << "a full GPU";
  // A grouped mix (HinesBatch::grouped_mix): SubtreeParallel on Interleaved and
  // BlockInterleaved<32> whatever its size; the other layouts, small cells and host spaces as before.
  for (index_type neurons : {index_type(1), index_type(64000), index_type(256000), h100}) {
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(true, h100, neurons, 4035, true), Kernel::subtree_parallel);
    EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<32>>(true, h100, neurons, 1057, true),
              Kernel::subtree_parallel);
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(true, h100, neurons, 63, true), Kernel::per_neuron);
    EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<8>>(true, h100, neurons, 1057, true), Kernel::per_neuron);
    EXPECT_EQ(automatic_kernel<layouts::Interleaved>(false, 16, neurons, 4035, true), Kernel::per_neuron) << "host";
  }
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, 256000, 1057, true), Kernel::branch_parallel);
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, h100, h100, 1057, true), Kernel::per_neuron);
  // On the space under test.
  const E exec;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename E::memory_space>::accessible;
  const Kernel large_flat = host ? Kernel::per_neuron : Kernel::branch_parallel;
  const Kernel small_flat = host ? Kernel::per_neuron : Kernel::staged_branch_parallel;
  const Kernel large_interleaved = host ? Kernel::per_neuron : Kernel::subtree_parallel;
  // 4,035 rows: d and rhs alone are 64 KB in double, over Kokkos's scratch limit; one neuron of
  // 1,057 rows fits at once with them staged (on a GPU whose facts the runtime gives).
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::Flat>(exec, 1, 4035)), large_flat);
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::Flat>(exec, 1, 1057)), small_flat);
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::Flat>(exec, 1, 107)), small_flat);
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::Interleaved>(exec, 1, 1057)), large_interleaved);
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::BlockInterleaved<32>>(exec, 1, 1057)), large_interleaved);
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::Interleaved>(exec, 1, 107)), large_interleaved);
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::Interleaved>(exec, 1, 63)), Kernel::per_neuron);
  EXPECT_EQ((hines::automatic_algorithm<E, layouts::UnifiedVector>(exec, 1, 1057)), Kernel::per_neuron);
}

// algo::Automatic on Flat with an H100's facts (132 multiprocessors of 2,048 threads, 32 blocks
// and 228 KiB of shared memory each, 1 KiB of it reserved per block): StagedBranchParallel up to
// 900 rows, and beyond where d and rhs staged leave the batch the neurons in flight it needs (all
// of them, or 5/8 of the 4,224 teams the GPU runs unstaged: 2,640); a, b, d and rhs staged where
// those four do. The cases are the measurements behind the rule (hines_solve.hpp).
TYPED_TEST(HinesTables, AutomaticOnFlatStagesWhatLeavesTheBatchItsNeuronsInFlight) {
  using hines::Kernel;
  using hines::impl::automatic_kernel;
  using hines::impl::automatic_stages_coefficients;
  using hines::impl::staged_teams_at_once;
  using Space = typename TypeParam::exec::scratch_memory_space;
  const compat::GpuFacts h100{132, 2048, 32, 228 * 1024, 1024};
  const index_type threads = 132 * 2048;
  const std::size_t kokkos_limit = 40 * 1024;
  EXPECT_EQ(staged_teams_at_once(h100, 0), 4224);
  EXPECT_EQ(staged_teams_at_once(h100, 233472 / 10 - 528 - 1024), 1320);  // 10 teams a multiprocessor
  EXPECT_EQ(staged_teams_at_once(h100, 233472 / 10 - 528 - 1023), 1188);  // a byte more: 9
  EXPECT_EQ(staged_teams_at_once(compat::GpuFacts{}, 0), 0) << "unknown facts";
  auto at_once = [&](index_type rows, bool single) {
    using hines::Staging;
    const std::size_t all = single ? hines::impl::branch_parallel_scratch_bytes<Staging::all, float, float, Space>(rows)
                                   : hines::impl::branch_parallel_scratch_bytes<Staging::all, double, double, Space>(rows);
    const std::size_t dr =
        single ? hines::impl::branch_parallel_scratch_bytes<Staging::diagonal_and_rhs, float, float, Space>(rows)
               : hines::impl::branch_parallel_scratch_bytes<Staging::diagonal_and_rhs, double, double, Space>(rows);
    return hines::impl::staged_at_once(h100, all, dr, kokkos_limit);
  };
  // {rows, float?, neurons, kernel, a and b staged too}
  struct Case {
    index_type rows;
    bool single;
    index_type neurons;
    Kernel kernel;
    bool all;
  };
  const Kernel staged = Kernel::staged_branch_parallel, branch = Kernel::branch_parallel;
  const Case cases[] = {
      {107, false, 256000, staged, true},   // small-low: 32 teams a multiprocessor either way
      {149, false, 25600, staged, true},    // mp_ma_40984_gc2 (1.25x over d and rhs alone)
      {671, false, 1000, staged, true},     // BG001: 1,320 at once, the whole batch (1.29x)
      {671, false, 2327, staged, false},    // not at once: d and rhs (1.23x)
      {671, false, 25600, staged, false},   // (1.30x)
      {429, true, 25600, staged, true},     // medium-low, float: 27 teams a multiprocessor (1.25x)
      {525, true, 25600, staged, true},     // medium-high, float: 23 (1.42x)
      {671, true, 25600, staged, false},    // BG001, float: 18 (d and rhs 1.12x)
      {429, false, 25600, staged, false},   // medium-low, double: 15 (1.25x)
      {1057, false, 1000, staged, false},   // big-high: all at once with d and rhs (1.45x over BranchParallel)
      {965, false, 1000, staged, false},    // HSN-fluoro02 (1.52x)
      {1057, false, 2327, branch, false},   // not at once, 12 a multiprocessor (BranchParallel 1.11x)
      {1057, false, 25600, branch, false},  // (1.04x)
      {1057, true, 25600, staged, false},   // float: 23 a multiprocessor (1.46x)
      {1057, true, 256000, staged, false},  // (1.21x)
      {4035, false, 1, branch, false},      // d and rhs over the scratch limit
      {753, false, 1320, staged, false},    // tc200: one wave with d and rhs, two with all four (1.32x)
      {753, false, 2327, staged, true},     // two waves either way (1.28x)
      {475, false, 1584, staged, true},     // nrn_ordering: one wave either way (1.28x)
      {475, false, 2327, staged, false},    // one wave with d and rhs, two with all four (1.29x)
  };
  for (const Case& c : cases) {
    const auto staging = at_once(c.rows, c.single);
    EXPECT_EQ(automatic_kernel<layouts::Flat>(true, threads, c.neurons, c.rows, false, staging), c.kernel)
        << c.rows << " rows, " << c.neurons << " neurons, float " << c.single;
    if (c.kernel == staged)
      EXPECT_EQ(automatic_stages_coefficients(c.neurons, c.rows, staging), c.all)
          << c.rows << " rows, " << c.neurons << " neurons, float " << c.single;
  }
  // A mixed batch by its real rows per neuron: the six classes padded to 1,057 rows, 507 on
  // average (d and rhs staged 1.24x faster at 25,600 neurons, double); the 11 shared cells padded
  // to 4,035, 1,355 on average, in float (d and rhs fit, 6 teams a multiprocessor: BranchParallel
  // 1.46x faster).
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, threads, 25600, 1057, true, at_once(1057, false), 507), staged);
  EXPECT_FALSE(automatic_stages_coefficients(25600, 1057, at_once(1057, false)));
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, threads, 25600, 4035, true, at_once(4035, true), 1355), branch);
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, threads, 25600, 1057, true, at_once(1057, false)), branch);
  // Without the GPU's facts: by rows alone, as before they were used.
  const hines::impl::StagedAtOnce unknown;
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, threads, 1, 1057, false, unknown), branch);
  EXPECT_EQ(automatic_kernel<layouts::Flat>(true, threads, 1, 900, false, unknown), staged);
  EXPECT_TRUE(automatic_stages_coefficients(1, 255, unknown));
  EXPECT_FALSE(automatic_stages_coefficients(1, 256, unknown));
  // Other layouts do not look at the staging.
  EXPECT_EQ(automatic_kernel<layouts::BlockInterleaved<8>>(true, threads, 1000, 1057, false, at_once(1057, false)),
            Kernel::per_neuron);
}

TYPED_TEST(HinesTables, GroupedMixIsSeveralMorphologiesWithFewMixedBlocks) {
  using M = typename TypeParam::memory;
  using hines::impl::grouped_by_morphology;
  const auto ids_of = [](std::vector<int> counts, bool interleave) {
    std::vector<int> ids;
    for (std::size_t m = 0; m < counts.size(); ++m) ids.insert(ids.end(), static_cast<std::size_t>(counts[m]), int(m));
    if (interleave)
      for (std::size_t s = 0; s < ids.size(); ++s) ids[s] = static_cast<int>(s % counts.size());
    return ids;
  };
  EXPECT_FALSE(grouped_by_morphology({}, 600));                                     // one morphology
  EXPECT_FALSE(grouped_by_morphology(std::vector<int>(600, 2), 600));               // one of several
  EXPECT_TRUE(grouped_by_morphology(ids_of({200, 200, 200}, false), 600));          // 2 of 19 blocks mixed
  EXPECT_TRUE(grouped_by_morphology(ids_of({192, 192}, false), 384));              // aligned: none mixed
  EXPECT_FALSE(grouped_by_morphology(ids_of({50, 50, 50}, false), 150));            // 2 of 5 mixed
  EXPECT_FALSE(grouped_by_morphology(ids_of({200, 200, 200}, true), 600));          // every block mixed
  EXPECT_FALSE(grouped_by_morphology(ids_of({10, 10}, false), 20));                 // one block
  // On batches: three trees, 200 neurons each, grouped and not.
  std::vector<HinesSystem> systems;
  const std::vector<std::vector<int>> shapes = {{-1, 0, 1, 2, 3}, {-1, 0, 0, 0}, {-1, 0, 1, 1, 0, 4}};
  for (int k = 0; k < 600; ++k) systems.push_back(on_tree(shapes[static_cast<std::size_t>(k % 3)], test_seed() + k));
  for (auto grouping : {hines::Grouping::by_morphology, hines::Grouping::none}) {
    const auto problem = hines::make_problem<double, layouts::Flat, M>(systems, grouping);
    ASSERT_EQ(problem.matrix.morphologies().count(), 3);
    EXPECT_EQ(problem.matrix.grouped_mix(), grouping == hines::Grouping::by_morphology);
    EXPECT_EQ(problem.matrix.rows(), 6);
    EXPECT_EQ(problem.matrix.mean_rows(), 5);  // (5 + 4 + 6) / 3, whatever the order
  }
  const std::vector<HinesSystem> one(64, on_tree(shapes[0], test_seed()));
  const auto one_problem = hines::make_problem<double, layouts::Flat, M>(one, hines::Grouping::by_morphology);
  EXPECT_FALSE(one_problem.matrix.grouped_mix());
  EXPECT_EQ(one_problem.matrix.mean_rows(), 5);
  const std::vector<HinesSystem> two = {on_tree(shapes[0], test_seed()), on_tree(shapes[1], test_seed() + 1)};
  EXPECT_EQ((hines::make_problem<double, layouts::Flat, M>(two, hines::Grouping::none).matrix.mean_rows()), 5)
      << "4.5 rounded up";
}

// ---- bad input --------------------------------------------------------------------------------
template <class C>
class HinesBadInput : public KokkosTest {
 protected:
  /// `neurons` random steps of the first test cell, as a problem of the configuration's scalar,
  /// layout and memory space.
  static auto one_cell_problem(int neurons) {
    using S = typename C::scalar;
    return hines::make_problem<S, typename C::layout, typename C::memory>(
        population<S>(test_cells().front().cell, neurons, test_seed()));
  }
};
using BadInputConfigs = to_gtest<product<list<double>, list<layouts::BlockInterleaved<8>>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesBadInput, BadInputConfigs, ConfigNames);

TYPED_TEST(HinesBadInput, ShapeMismatchThrowsAndWritesNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto problem = TestFixture::one_cell_problem(10);
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
  // block_shared_scratch_bytes, which the benchmark asks before it runs BlockShared: a block's
  // rows in S, more than the space's largest team scratch exactly where the solve throws.
  using Policy = Kokkos::TeamPolicy<typename TypeParam::exec>;
  EXPECT_EQ((hines::block_shared_scratch_bytes<8, S>(rows)), 8 * static_cast<std::size_t>(rows) * sizeof(S));
  EXPECT_GT((hines::block_shared_scratch_bytes<1 << 20, S>(rows)), static_cast<std::size_t>(Policy::scratch_size_max(1)));
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
  // A parent table that is not one row-major block (its columns 0..2 of 6, valid there, other data
  // beside them): read as one block it was another tree (found accepted, with wrong solves).
  Kokkos::View<int**, Kokkos::LayoutRight, M> wide("wide", 2, 6);
  auto hw = Kokkos::create_mirror_view(wide);
  for (int m = 0; m < 2; ++m)
    for (int i = 0; i < 6; ++i) hw(m, i) = i < 3 ? i - 1 : 7;
  Kokkos::deep_copy(wide, hw);
  typename hines::Morphologies<M>::size_view three("n", 2);
  Kokkos::deep_copy(three, 3);
  const typename hines::Morphologies<M>::parent_view columns = Kokkos::subview(wide, Kokkos::ALL, Kokkos::make_pair(0, 3));
  ASSERT_FALSE(columns.span_is_contiguous());
  try {
    hines::Morphologies<M> m(columns, three);
    ADD_FAILURE() << "a strided parent table was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not contiguous"), std::string::npos) << e.what();
  }
  // More rows than TreeLinks can pack (2^29 - 1): no morphology, so nothing is allocated.
  const index_type too_many = index_type(hines::TreeLinks::max_rows) + 1;
  EXPECT_EQ(too_many, index_type(1) << 29);
  EXPECT_THROW(hines::make_morphologies<M>({}, too_many), invalid_argument);
  EXPECT_THROW(hines::Morphologies<M>(typename hines::Morphologies<M>::parent_view("p", 0, too_many),
                                      typename hines::Morphologies<M>::size_view("n", 0)),
               invalid_argument);
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

TYPED_TEST(HinesBadInput, BadKernelOptionsThrowAndWriteNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto problem = TestFixture::one_cell_problem(10);
  typename TypeParam::exec exec;
  BatchVector<S, L, M> x("x", problem.matrix.systems(), problem.matrix.rows());
  fill_storage(x, nan_of<S>());
  hines::algo::StagedBranchParallel no_neurons;
  no_neurons.neurons_per_team = 0;
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, {}, {}, hines::algo::BranchParallel{-1}),
               invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, {}, {}, hines::algo::StagedBranchParallel{-32}),
               invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, {}, {}, no_neurons), invalid_argument);
  exec.fence();
  for (S v : download(x)) ASSERT_TRUE(v != v) << "x was written";
  // The partitions behind SubtreeParallel and WarpStaged need at least one group.
  const auto& shapes = problem.matrix.morphologies();
  EXPECT_THROW(shapes.subtree_partition(0), invalid_argument);
  EXPECT_THROW(shapes.subtree_partition(-4), invalid_argument);
  EXPECT_THROW(shapes.subtree_partition(2, -1), invalid_argument);
  EXPECT_THROW(shapes.warp_steps(0), invalid_argument);
  EXPECT_NO_THROW(shapes.subtree_partition(2));
}

TYPED_TEST(HinesBadInput, SetRhsAndCopySolutionRejectWrongShapesAndWriteNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto problem = TestFixture::one_cell_problem(6);
  const auto before = download(problem.rhs);
  auto rhs = hines::copy_solution(problem, problem.rhs);  // the right-hand sides, caller's order
  auto too_few = rhs;
  too_few.pop_back();
  EXPECT_THROW(hines::set_rhs(problem, too_few), invalid_argument);
  auto short_one = rhs;
  short_one[3].pop_back();
  EXPECT_THROW(hines::set_rhs(problem, short_one), invalid_argument);
  const auto& d = problem.matrix.d();
  BatchVector<S, L, M> wrong_target("t", d.systems(), d.rows() + 1), wrong_x("x", d.systems() - 1, d.rows());
  EXPECT_THROW(hines::set_rhs(problem, rhs, wrong_target), invalid_argument);
  EXPECT_THROW(hines::copy_solution(problem, wrong_x), invalid_argument);
  EXPECT_TRUE(same_bits(download(problem.rhs), before)) << "a rejected set_rhs wrote into the rhs";
  for (auto& r : rhs)
    for (auto& v : r) v = v + S(1);
  EXPECT_NO_THROW(hines::set_rhs(problem, rhs));
  EXPECT_TRUE(same_bits(hines::copy_solution(problem, problem.rhs), rhs)) << "set_rhs then copy_solution";
}

TYPED_TEST(HinesBadInput, TheBatchKeepsCopiesOfTheTopologyItWasGiven) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto& cells = test_cells();
  ASSERT_GE(cells.size(), 2u);
  std::vector<HinesSystem> systems = population<S>(cells[0].cell, 5, test_seed());
  for (const auto& s : population<S>(cells[1].cell, 5, test_seed() + 1)) systems.push_back(s);
  const auto problem = hines::make_problem<S, L, M>(systems);
  // The caller's own parents, sizes and ids: copies of the problem's.
  const auto& shapes = problem.matrix.morphologies();
  typename hines::Morphologies<M>::parent_view parent("caller parent", shapes.count(), shapes.rows());
  typename hines::Morphologies<M>::size_view sizes("caller sizes", shapes.count());
  Kokkos::View<int*, M> ids("caller ids", problem.matrix.systems());
  Kokkos::deep_copy(parent, shapes.parent());
  Kokkos::deep_copy(sizes, shapes.sizes());
  Kokkos::deep_copy(ids, problem.matrix.morphology_of());
  const hines::Morphologies<M> mine(parent, sizes);
  const hines::HinesBatch<S, L, M> batch(mine, ids, problem.matrix.a(), problem.matrix.b(), problem.matrix.d());
  typename TypeParam::exec exec;
  auto solve_into_fresh_x = [&](const auto& algorithm) {
    BatchVector<S, L, M> x("x", batch.systems(), batch.rows());
    StatusView<M> status("status", batch.systems());
    fill_storage(x, nan_of<S>());
    hines::solve(exec, batch, problem.rhs, x, status, {}, algorithm);
    exec.fence();
    auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
    for (index_type k = 0; k < batch.systems(); ++k) EXPECT_EQ(st(k), 0) << "neuron " << k;
    return download(x);
  };
  const auto before = solve_into_fresh_x(hines::algo::PerNeuron{});
  const auto before_branch = solve_into_fresh_x(hines::algo::BranchParallel{});
  // The caller refills its buffers with what no check would pass.
  Kokkos::deep_copy(parent, 0);
  Kokkos::deep_copy(sizes, static_cast<int>(shapes.rows()) + 5);
  Kokkos::deep_copy(ids, 99);
  EXPECT_TRUE(same_bits(solve_into_fresh_x(hines::algo::PerNeuron{}), before));
  EXPECT_TRUE(same_bits(solve_into_fresh_x(hines::algo::BranchParallel{}), before_branch));
}

}  // namespace
}  // namespace tridiag::test

// algo::SubtreeParallel with split_path (split_trunk.hpp): the trunk's longest path cut into one
// segment per group and solved through composed maps. Checked against the oracle's accuracy
// bounds and against algo::PerNeuron (itself checked against the oracle and the textbook sweep in
// test_hines_solve.cpp): the same status codes, x within rounding, on the shared
// morphologies (AA0013's 664-row path), the size classes, random trees, forests and the shapes that
// break a wrong sweep (numberings that are not depth-first among them), mixed batches padded and
// grouped, in place, with and without solving the pad rows, on Flat, Interleaved and
// BlockInterleaved<32>, float and double, for
// several numbers of groups and thresholds (1: every trunk split, down to one-segment paths);
// failures on the path and in its twigs (zero pivots, non-finite right-hand sides) give PerNeuron's
// status codes and a NaN solution; only the teams holding a split trunk take its barriers;
// split_max_neurons splits only the morphologies with few neurons (the others keep PerNeuron's
// bits); algo::Automatic's rule and its results. (The table on the host: test_split_trunk_table.cpp.)

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/split_trunk.hpp>
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/hines_solve_runs.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::algo::SubtreeParallel;
using hines::test::random_tree;
using hines::test::size_class_cells;
using hines::test::test_cells;
using hines::test::TestCell;

/// Groups and thresholds: the automatic number of groups with the threshold a user would take,
/// then every trunk split (1) with 2, 3 and 8 groups, 16 groups (the most segments), and 32
/// groups, more than a team may have (on a GPU a team of 28 warps with split trunks needed more
/// team scratch than a block may take, and the launch failed: the team is cut to what fits).
const std::vector<SubtreeParallel>& variants() {
  static const std::vector<SubtreeParallel> v = {SubtreeParallel{0, true, 64}, SubtreeParallel{2, true, 1},
                                                 SubtreeParallel{3, true, 1}, SubtreeParallel{8, true, 1},
                                                 SubtreeParallel{16, true, 8}, SubtreeParallel{32, true, 1}};
  return v;
}

/// Fewer of them for the real cells (the costliest test): automatic, 3 groups with every trunk
/// split, and 16 groups.
const std::vector<SubtreeParallel>& real_cell_variants() {
  static const std::vector<SubtreeParallel> v = {SubtreeParallel{0, true, 64}, SubtreeParallel{3, true, 1},
                                                 SubtreeParallel{16, true, 8}};
  return v;
}

/// The backward error a split trunk may reach, in units of the sequential sweep's bound
/// (expect_accurate; the forward error keeps its bound): the pivots at the segments' ends come
/// through composed maps, a different rounding path (at most 1.38 times the bound in these tests,
/// double; float within it; forward errors at most 0.07 of their bound).
constexpr long double split_omega_factor = 8;

// The layouts SubtreeParallel is for (Interleaved, BlockInterleaved<32>) and Flat, where a
// neuron's rows are contiguous: the split reads and writes through the same row accessors as the
// rest of the kernel, whose every layout test_subtree_parallel.cpp runs (and CI's time is short).
template <class C>
class HinesSplitTrunk : public KokkosTest {};
using SplitLayouts = list<layouts::Flat, layouts::Interleaved, layouts::BlockInterleaved<32>>;
using Configs = to_gtest<product<RealScalars, SplitLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesSplitTrunk, Configs, ConfigNames);

TYPED_TEST(HinesSplitTrunk, SharedMorphologiesAndSizeClassesAreAccurateAndCloseToPerNeuron) {
  // AA0013 (whose trunk has the longest path) with 37 neurons, the others with 3.
  const auto& cells = hines::test::shared_and_size_class_cells();
  const std::size_t aa = static_cast<std::size_t>(
      std::find_if(cells.begin(), cells.end(), [](const TestCell& c) { return c.name == "AA0013.swc"; }) - cells.begin());
  ASSERT_LT(aa, cells.size());
  for_each_real_cell<TypeParam>(aa, 37, 3, [aa](std::size_t c, const auto& systems, const auto& problem, const auto& reference) {
    for (const auto& options : real_cell_variants()) {
      const auto r = run<TypeParam>(problem, options, c == aa);
      expect_accurate(systems, r, name_of(options), split_omega_factor);
      expect_close(r, reference, name_of(options));
    }
  });
}

TYPED_TEST(HinesSplitTrunk, TreesForestsAndBreakingShapesPaddedGroupedAndInPlace) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  std::vector<HinesSystem> systems;
  for (int n : {1, 2, 3, 7, 64, 200, 600})
    for (int forest : {0, 5}) systems.push_back(rounded<S>(random_tree(n, test_seed() + 7 * n + forest, forest)));
  const auto shapes = fold_shapes(test_seed());  // numberings that are not depth-first among them
  for (std::size_t k = 0; k < shapes.size(); ++k) systems.push_back(rounded<S>(on_tree(shapes[k], test_seed() + k)));
  // A long unbranched cable and a comb (a path with a twig at every row): long trunk paths.
  std::vector<int> cable(300), comb(400);
  for (int i = 0; i < 300; ++i) cable[i] = i - 1;
  for (int i = 0; i < 400; ++i) comb[i] = i == 0 ? -1 : (i % 2 ? i - 1 : i - 2);
  systems.push_back(rounded<S>(on_tree(cable, test_seed() + 91)));
  systems.push_back(rounded<S>(on_tree(comb, test_seed() + 92)));
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    SCOPED_TRACE(grouping == hines::Grouping::none ? "padded" : "grouped");
    const auto problem = hines::make_problem<S, L, M>(systems, grouping);
    const auto reference = run<TypeParam>(problem);
    for (const auto& options : variants()) {
      const auto r = run<TypeParam>(problem, options, false);
      expect_accurate(systems, r, name_of(options), split_omega_factor);
      expect_close(r, reference, name_of(options));
      expect_close(run_in_place<TypeParam>(problem, options), reference, name_of(options) + " in place");
    }
  }
}

TYPED_TEST(HinesSplitTrunk, MixedBatchesWithAndWithoutPadding) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto& cells = test_cells();
  std::vector<HinesSystem> mixed = mixed_population<S>(3 * cells.size(), test_seed());
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    SCOPED_TRACE(grouping == hines::Grouping::none ? "padded" : "grouped");
    const auto problem = hines::make_problem<S, L, M>(mixed, grouping);
    const index_type rows = problem.matrix.rows();
    const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
    for (auto options : variants()) {
      const auto r = run<TypeParam>(problem, options, false);
      expect_accurate(mixed, r, name_of(options), split_omega_factor);
      expect_close(r, reference, name_of(options));
      for (std::size_t s = 0; s < mixed.size(); ++s) {
        const index_type n = problem.size_of(problem.neuron_at_slot[s]);
        for (index_type i = n; i < rows; ++i)
          ASSERT_EQ(r.padded[s * rows + i], S(0)) << name_of(options) << ", slot " << s << ", pad row " << i;
      }
      // Without the pad rows: they keep what x held, the real rows as with them.
      const S sentinel = S(-12345.5);
      const auto with = solve_over_sentinel<TypeParam>(problem, options, sentinel, false);
      options.solve_padding = false;
      const auto without = solve_over_sentinel<TypeParam>(problem, options, sentinel, false);
      EXPECT_EQ(without.status, with.status) << name_of(options);
      for (std::size_t s = 0; s < mixed.size(); ++s) {
        const index_type n = problem.size_of(problem.neuron_at_slot[s]);
        for (index_type i = 0; i < rows; ++i) {
          const S v = without.x[s * rows + i];
          if (i >= n)
            ASSERT_EQ(v, sentinel) << name_of(options) << ", slot " << s << ", pad row " << i;
          else
            ASSERT_EQ(v, with.x[s * rows + i]) << name_of(options) << ", slot " << s << ", row " << i;
        }
      }
    }
  }
}

TYPED_TEST(HinesSplitTrunk, FailuresOnThePathAndItsTwigsGiveThePerNeuronStatusAndANaNSolution) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const S nan = nan_of<S>(), inf = std::numeric_limits<S>::infinity();
  // AA0013 (its trunk's path: 664 rows with 8 groups): failing pivots and non-finite rhs on path
  // rows deep, in the middle and near the root (different segments: the highest pivot, the lowest
  // rhs reported), on twigs, and both; healthy neurons between.
  const TestCell* aa = &hines::test::test_cell("AA0013.swc");
  const auto& cell = aa->cell;
  // The trunk's path and a twig of the 8-group partition, from the host encoding.
  const auto cut = hines::impl::partition_tree(cell.parent.data(), cell.size(), 8);
  const auto table = hines::impl::encode_split_trunk(cell.parent.data(), cell.size(), cut.trunk, 8, 64);
  ASSERT_FALSE(table.empty());
  const int E = table[0], P = table[1], K = table[2];
  std::vector<int> path, twigs;
  for (int j = 0; j < P; ++j) path.push_back(table[4 + K + E + j] >> 1);
  for (int i = 0; i < E; ++i)
    if (table[4 + K + i] >= 0) twigs.push_back(table[4 + K + i]);
  ASSERT_GE(P, 600);
  ASSERT_FALSE(twigs.empty());
  const int deep = path[P - 10], middle = path[P / 2], near_root = path[3], twig = twigs.back();
  std::vector<HinesSystem> systems = population<S>(cell, 12, test_seed());
  // (A NaN diagonal: a path row's pivot is its d less its children's shares, never 0 from d = 0.)
  systems[1].d[middle] = static_cast<double>(nan);
  systems[2].d[deep] = static_cast<double>(nan);
  systems[2].d[near_root] = static_cast<double>(nan);  // the highest is reported
  systems[3].d[twig] = static_cast<double>(nan);
  systems[5].rhs[middle] = static_cast<double>(nan);
  systems[6].rhs[deep] = static_cast<double>(inf);
  systems[6].rhs[near_root] = static_cast<double>(nan);  // the lowest is reported
  systems[7].rhs[twig] = static_cast<double>(-inf);
  systems[8].rhs[middle] = static_cast<double>(nan);
  systems[8].d[deep] = static_cast<double>(nan);  // a pivot outranks a bad rhs
  systems[10].d[0] = static_cast<double>(nan);  // the root's pivot
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    SCOPED_TRACE(grouping == hines::Grouping::none ? "padded" : "grouped");
    const auto problem = hines::make_problem<S, L, M>(systems, grouping);
    const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
    std::vector<int> failed(systems.size(), 0);
    for (std::size_t k = 0; k < systems.size(); ++k) failed[k] = reference.status[k] != 0;
    ASSERT_EQ(failed, (std::vector<int>{0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0})) << "PerNeuron";
    for (const auto& options : {SubtreeParallel{8, true, 64}, SubtreeParallel{3, true, 1}, SubtreeParallel{0, true, 64}}) {
      const auto r = run<TypeParam>(problem, options, false);
      expect_close(r, reference, name_of(options));  // NaN on every row of a failed neuron
    }
  }
}

/// Per team of `plan` for `problem` (memory space M), the morphology ids of the lanes it solves:
/// its blocks' slots, a split block's unit only its own morphology's.
template <class M, class Problem>
std::vector<std::set<int>> team_morphologies(const hines::SubtreeTeamPlan<M>& plan, const Problem& problem) {
  using Plan = hines::SubtreeTeamPlan<M>;
  const auto units = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.units);
  const auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), problem.matrix.morphology_of());
  const index_type lanes = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible ? 1 : 32;
  std::vector<std::set<int>> out(static_cast<std::size_t>(plan.teams()));
  for (int u = 0; u < plan.teams(); ++u)
    for (index_type b = units(u, Plan::first_block); b < units(u, Plan::first_block) + units(u, Plan::blocks); ++b)
      for (index_type slot = b * lanes; slot < std::min<index_type>((b + 1) * lanes, problem.matrix.systems()); ++slot)
        if (units(u, Plan::morphology) < 0 || units(u, Plan::morphology) == ids(slot))
          out[static_cast<std::size_t>(u)].insert(ids(slot));
  return out;
}

TYPED_TEST(HinesSplitTrunk, OnlyTheTeamsHoldingASplitTrunkTakeItsBarriers) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using Plan = hines::SubtreeTeamPlan<M>;
  // 40 neurons of AA0013 (its trunk split with 8 groups) and 40 of small-low (not split), grouped.
  const TestCell* aa = &hines::test::test_cell("AA0013.swc");
  std::vector<HinesSystem> systems = population<S>(aa->cell, 40, test_seed());
  for (auto& neuron : population<S>(size_class_cells().front().cell, 40, test_seed() + 1)) systems.push_back(neuron);
  const auto problem = hines::make_problem<S, L, M>(systems, hines::Grouping::by_morphology);
  const SubtreeParallel options{8, true, 64};
  expect_accurate(systems, run<TypeParam>(problem, options, false), name_of(options), split_omega_factor);
  using E = typename TypeParam::exec;
  const auto& plan = hines::subtree_parallel_plan<S>(E(), problem.matrix, options);
  const auto units = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.units);
  const auto solved = team_morphologies(plan, problem);
  const int aa_id = problem.morphology_of_neuron[0];
  int splitting = 0, plain = 0;
  for (int u = 0; u < plan.teams(); ++u) {
    const bool expected = solved[static_cast<std::size_t>(u)].count(aa_id) > 0;
    EXPECT_EQ(units(u, Plan::split_trunk), expected ? 1 : 0) << "team " << u;
    (expected ? splitting : plain) += 1;
  }
  EXPECT_GT(splitting, 0);
  EXPECT_GT(plain, 0);
}

TYPED_TEST(HinesSplitTrunk, SplitMaxNeuronsSplitsOnlyTheMorphologiesWithFewNeurons) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  using Plan = hines::SubtreeTeamPlan<M>;
  // 40 neurons of AA0013 and 70 of a 300-row chain (both trunks split with 8 groups and
  // split_path 64), grouped; at most 50 neurons split: AA0013's trunk only.
  const TestCell* aa = &hines::test::test_cell("AA0013.swc");
  std::vector<HinesSystem> systems = population<S>(aa->cell, 40, test_seed());
  std::vector<int> chain(300);
  for (int i = 0; i < 300; ++i) chain[static_cast<std::size_t>(i)] = i - 1;
  for (int k = 0; k < 70; ++k) systems.push_back(rounded<S>(on_tree(chain, test_seed() + 100 + k)));
  const auto problem = hines::make_problem<S, L, M>(systems, hines::Grouping::by_morphology);
  const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
  const int aa_id = problem.morphology_of_neuron[0];
  for (const index_type most : {index_type(0), index_type(50), index_type(39)}) {
    SubtreeParallel options{8, true, 64};
    options.split_max_neurons = most;
    const std::string what = name_of(options) + ", split_max_neurons " + std::to_string(most);
    const auto& plan = hines::subtree_parallel_plan<S>(E(), problem.matrix, options);
    const auto units = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.units);
    const auto solved = team_morphologies(plan, problem);
    bool any = false;
    for (int u = 0; u < plan.teams(); ++u) {
      const auto& team = solved[static_cast<std::size_t>(u)];
      const bool aa_lanes = team.count(aa_id) > 0, chain_lanes = team.size() > (aa_lanes ? 1u : 0u);
      const bool expected = (aa_lanes && most != 39) || (chain_lanes && most == 0);
      EXPECT_EQ(units(u, Plan::split_trunk), expected ? 1 : 0) << what << ", team " << u;
      any = any || expected;
    }
    EXPECT_EQ(plan.splits, any) << what;
    EXPECT_EQ(plan.splits, most != 39) << what;
    const auto r = run<TypeParam>(problem, options, false);
    expect_accurate(systems, r, what, split_omega_factor);
    expect_close(r, reference, what);
    // The neurons whose trunk is not split: PerNeuron's bits.
    for (std::size_t k = 0; k < systems.size(); ++k) {
      const bool aa_neuron = problem.morphology_of_neuron[k] == aa_id;
      const bool split = most == 0 || (aa_neuron && most != 39);
      if (!split) EXPECT_TRUE(same_bits(r.x[k], reference.x[k])) << what << ", neuron " << k;
    }
  }
}

TYPED_TEST(HinesSplitTrunk, AutomaticSplitsTheTrunksOfMorphologiesWithFewNeuronsOnAGpu) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  // The rule: an H100 (132 multiprocessors x 2,048 threads) splits morphologies of up to 16,896
  // neurons; on this space the options Automatic runs SubtreeParallel with.
  EXPECT_EQ(hines::impl::automatic_split_max_neurons(132 * 2048), 16896);
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible;
  const SubtreeParallel chosen = hines::impl::automatic_subtree_parallel(E(), hines::algo::Automatic{});
  EXPECT_EQ(chosen.split_path, host ? 0 : 64);
  EXPECT_EQ(chosen.split_max_neurons,
            host ? 0 : hines::impl::automatic_split_max_neurons(static_cast<index_type>(compat::concurrency(E()))));
  EXPECT_EQ(hines::impl::automatic_subtree_parallel(E(), hines::algo::Automatic{true, false}).split_path, 0);
  // 40 neurons of AA0013: split where Automatic runs SubtreeParallel (a GPU, Interleaved and
  // BlockInterleaved<32>), and then within rounding of PerNeuron; bitwise elsewhere.
  const TestCell* aa = &hines::test::test_cell("AA0013.swc");
  const std::vector<HinesSystem> systems = population<S>(aa->cell, 40, test_seed());
  const auto problem = hines::make_problem<S, L, M>(systems);
  constexpr bool subtree_layout =
      std::is_same_v<L, layouts::Interleaved> || std::is_same_v<L, layouts::BlockInterleaved<32>>;
  EXPECT_EQ(hines::automatic_splits_trunks<S>(E(), problem.matrix), !host && subtree_layout);
  const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
  expect_accurate(systems, run<TypeParam>(problem, hines::algo::Automatic{}, false), "Automatic", split_omega_factor);
  expect_automatic_matches<TypeParam>(problem, reference, "AA0013");
}

TYPED_TEST(HinesSplitTrunk, BadOptionsThrowBeforeWriting) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto systems = population<S>(size_class_cells().front().cell, 3, test_seed());
  const auto problem = hines::make_problem<S, L, M>(systems);
  BatchVector<S, L, M> x("x", problem.matrix.systems(), problem.matrix.rows());
  fill_storage(x, nan_of<S>());
  typename TypeParam::exec exec;
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, {}, {}, SubtreeParallel{0, true, -1}),
               tridiag::invalid_argument);
  exec.fence();
  for (S v : download(x)) ASSERT_TRUE(v != v) << "x was written";
}

}  // namespace
}  // namespace tridiag::test

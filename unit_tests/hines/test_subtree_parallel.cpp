// algo::SubtreeParallel (subtree_partition.hpp, subtree_parallel_kernel.hpp): several thread
// groups per neuron on the subtrees of a cut tree. Bitwise equal to algo::PerNeuron (itself
// checked against the oracle and the textbook sweep in test_hines_solve.cpp), status codes
// included, for 1, 2, 3 and 8 groups and the automatic number, on every shared morphology and the
// seed size classes, random trees, forests and the shapes that break a wrong sweep (numberings
// that are not depth-first among them), mixed batches padded and grouped, in place, with and
// without solving the pad rows, every layout, float and double; failures (zero pivots in a cut
// subtree and in the trunk, non-finite right-hand sides) give PerNeuron's status and a NaN
// solution. The cut itself on the host: disjoint runs and trunk covering every row, parents where
// the kernel needs them, balanced groups; its cache in Morphologies; the automatic group count.

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <utility>
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

/// The variants every comparison runs: automatic, and 1, 2, 3, 8 groups.
const std::vector<SubtreeParallel>& variants() {
  static const std::vector<SubtreeParallel> v = {SubtreeParallel{}, SubtreeParallel{1}, SubtreeParallel{2},
                                                 SubtreeParallel{3}, SubtreeParallel{8}};
  return v;
}

template <class C>
class HinesSubtree : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, AllLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesSubtree, Configs, ConfigNames);

TYPED_TEST(HinesSubtree, SharedMorphologiesAndSizeClassesEqualPerNeuron) {
  for_each_real_cell<TypeParam>(0, 37, 5, [](std::size_t c, const auto&, const auto& problem, const auto& reference) {
    for (const auto& options : variants()) {
      const auto r = run<TypeParam>(problem, options, c == 0);
      EXPECT_TRUE(same_bits(r.x, reference.x)) << name_of(options);
      EXPECT_EQ(r.status, reference.status) << name_of(options);
    }
  });
}

TYPED_TEST(HinesSubtree, TreesForestsAndBreakingShapesEqualPerNeuronPaddedGroupedAndInPlace) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  std::vector<HinesSystem> systems;
  for (int n : {1, 2, 3, 7, 64, 200})
    for (int forest : {0, 5}) systems.push_back(rounded<S>(random_tree(n, test_seed() + 7 * n + forest, forest)));
  const auto shapes = fold_shapes(test_seed());  // numberings that are not depth-first among them
  for (std::size_t k = 0; k < shapes.size(); ++k) systems.push_back(rounded<S>(on_tree(shapes[k], test_seed() + k)));
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    SCOPED_TRACE(grouping == hines::Grouping::none ? "padded" : "grouped");
    const auto problem = hines::make_problem<S, L, M>(systems, grouping);
    const auto reference = run<TypeParam>(problem);
    for (const auto& options : variants()) {
      const auto r = run<TypeParam>(problem, options, false);
      EXPECT_TRUE(same_bits(r.x, reference.x)) << name_of(options);
      EXPECT_EQ(r.status, reference.status) << name_of(options);
      const auto in_place = run_in_place<TypeParam>(problem, options);
      EXPECT_TRUE(same_bits(in_place.x, reference.x)) << name_of(options) << " in place";
      EXPECT_EQ(in_place.status, reference.status) << name_of(options) << " in place";
    }
    // More groups than rows in every tree: single-row subtrees, trunks of cut roots only.
    const auto r = run<TypeParam>(problem, SubtreeParallel{400}, false);
    EXPECT_TRUE(same_bits(r.x, reference.x)) << "400 groups";
  }
}

TYPED_TEST(HinesSubtree, MixedBatchesEqualPerNeuronWithAndWithoutPadding) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto& cells = test_cells();
  std::vector<HinesSystem> mixed = mixed_population<S>(3 * cells.size(), test_seed());
  const S sentinel = S(-12345.5);
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    SCOPED_TRACE(grouping == hines::Grouping::none ? "padded" : "grouped");
    const auto problem = hines::make_problem<S, L, M>(mixed, grouping);
    const index_type rows = problem.matrix.rows();
    const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
    for (const auto& options : variants()) {
      const auto r = run<TypeParam>(problem, options, false);
      EXPECT_TRUE(same_bits(r.x, reference.x)) << name_of(options);
      EXPECT_EQ(r.status, reference.status) << name_of(options);
      for (std::size_t s = 0; s < mixed.size(); ++s) {
        const index_type n = problem.size_of(problem.neuron_at_slot[s]);
        for (index_type i = n; i < rows; ++i)
          ASSERT_EQ(r.padded[s * rows + i], S(0)) << name_of(options) << ", slot " << s << ", pad row " << i;
      }
    }
    for (bool in_place : {false, true}) {
      const auto padded = solve_over_sentinel<TypeParam>(problem, hines::algo::PerNeuron{}, sentinel, in_place);
      for (int warps : {0, 3}) {
        const SubtreeParallel options{warps, false};
        expect_padding_skipped(problem, padded, solve_over_sentinel<TypeParam>(problem, options, sentinel, in_place),
                               sentinel, name_of(options) + (in_place ? " in place" : ""));
      }
    }
  }
}

TYPED_TEST(HinesSubtree, BlocksOfDifferentSizesGetTheirOwnWarpsAndEqualPerNeuron) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  // 64 neurons of AA0013 (4,035 rows) and 96 of small-low (107), grouped: on a GPU two blocks of
  // 16 warps and three blocks of 4, all three in one team of 16 warps (subtree_team_plan.hpp).
  const TestCell* large = &hines::test::test_cell("AA0013.swc");
  const TestCell* small = &hines::test::test_cell("small-low");
  std::vector<HinesSystem> systems = population<S>(small->cell, 96, test_seed());
  for (auto& neuron : population<S>(large->cell, 64, test_seed() + 1)) systems.push_back(neuron);
  const auto problem = hines::make_problem<S, L, M>(systems, hines::Grouping::by_morphology);
  const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
  for (int k : reference.status) ASSERT_EQ(k, 0);
  for (const SubtreeParallel options : {SubtreeParallel{}, SubtreeParallel{0, false}}) {
    const auto r = run<TypeParam>(problem, options, false);
    EXPECT_TRUE(same_bits(r.x, reference.x)) << name_of(options);
    EXPECT_EQ(r.status, reference.status) << name_of(options);
  }
  using E = typename TypeParam::exec;
  const auto& plan = hines::subtree_parallel_plan<S>(E(), problem.matrix);
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible;
  if (host) {
    EXPECT_EQ(plan.groups, std::vector<int>{1});
  } else {
    EXPECT_EQ(plan.groups, (std::vector<int>{4, 16}));
    EXPECT_EQ(plan.teams(), 3);  // two blocks of AA0013, then the three of small-low in one team
  }
}

TYPED_TEST(HinesSubtree, GroupBoundariesSplitIntoOneTeamPerMorphologyAndEqualPerNeuron) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  // 190 neurons of BG001, 200 of small-low and 210 of mp_ma_40984_gc2, grouped: on a GPU the
  // blocks of 32 holding slots 190 and 390 have two morphologies each, and each becomes one team
  // per morphology (subtree_team_plan.hpp), 2 of 19 blocks being mixed.
  const auto cell = [](const std::string& prefix) { return hines::test::test_cell(prefix).cell; };
  std::vector<HinesSystem> systems = population<S>(cell("mp_ma_40984_gc2"), 210, test_seed());
  for (auto& neuron : population<S>(cell("BG001"), 190, test_seed() + 1)) systems.push_back(neuron);
  for (auto& neuron : population<S>(cell("small-low"), 200, test_seed() + 2)) systems.push_back(neuron);
  const auto problem = hines::make_problem<S, L, M>(systems, hines::Grouping::by_morphology);
  const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
  for (int k : reference.status) ASSERT_EQ(k, 0);
  for (const SubtreeParallel options : {SubtreeParallel{}, SubtreeParallel{0, false}, SubtreeParallel{3, false}}) {
    const auto r = run<TypeParam>(problem, options, false);
    EXPECT_TRUE(same_bits(r.x, reference.x)) << name_of(options);
    EXPECT_EQ(r.status, reference.status) << name_of(options);
  }
  using E = typename TypeParam::exec;
  using Plan = hines::SubtreeTeamPlan<M>;
  const auto& plan = hines::subtree_parallel_plan<S>(E(), problem.matrix);
  const auto units = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.units);
  int split = 0;
  for (int u = 0; u < plan.teams(); ++u) split += units(u, Plan::morphology) >= 0;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible;
  EXPECT_EQ(split, host ? 0 : 4);  // host spaces: blocks of one neuron, never mixed
}

TYPED_TEST(HinesSubtree, FailuresGiveThePerNeuronStatusAndANaNSolution) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const S nan = nan_of<S>(), inf = std::numeric_limits<S>::infinity();
  // A shared cell: failing pivots at a leaf (in a cut subtree), at the root (trunk), at both and at
  // two leaves far apart (different groups: the highest is reported); NaN and infinite rhs in a
  // subtree, at the root, in several places (the lowest is reported); healthy neurons between.
  const auto& cell = test_cells().front().cell;
  std::vector<HinesSystem> systems = population<S>(cell, 12, test_seed());
  const std::vector<int> leaves = leaves_of(cell);
  ASSERT_GE(leaves.size(), 4u);
  const int low_leaf = leaves[1], high_leaf = leaves[leaves.size() - 2];
  systems[1].d[high_leaf] = 0;
  systems[2].d[0] = static_cast<double>(nan);  // the root's pivot: d(0) less its children's share
  systems[3].d[0] = static_cast<double>(nan);
  systems[3].d[low_leaf] = 0;
  systems[4].d[low_leaf] = 0;
  systems[4].d[high_leaf] = 0;
  systems[6].rhs[high_leaf] = static_cast<double>(nan);
  systems[7].rhs[0] = static_cast<double>(inf);
  systems[8].rhs[high_leaf] = static_cast<double>(nan);
  systems[8].rhs[low_leaf] = static_cast<double>(-inf);
  systems[9].rhs[high_leaf] = static_cast<double>(nan);
  systems[9].d[low_leaf] = 0;  // a pivot outranks a bad rhs
  // The small tree whose sweep reads rhs out of row order.
  for (const HinesSystem& sys : out_of_order_rhs_failures<S>(test_seed())) systems.push_back(sys);
  const S sentinel = S(7);
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    SCOPED_TRACE(grouping == hines::Grouping::none ? "padded" : "grouped");
    const auto problem = hines::make_problem<S, L, M>(systems, grouping);
    const auto expected = solve_over_sentinel<TypeParam>(problem, hines::algo::PerNeuron{}, sentinel, false);
    std::vector<int> codes(systems.size());
    for (std::size_t s = 0; s < systems.size(); ++s) codes[problem.neuron_at_slot[s]] = expected.status[s];
    const std::vector<int> leading = {0,
                                      high_leaf + 1,
                                      1,
                                      low_leaf + 1,
                                      high_leaf + 1,
                                      0,
                                      -(high_leaf + 1),
                                      -1,
                                      -(low_leaf + 1),
                                      low_leaf + 1,
                                      0,
                                      0,
                                      -1,
                                      -2,
                                      -1,
                                      -3,
                                      -4,
                                      4};
    ASSERT_EQ(codes, leading) << "PerNeuron";
    for (auto options : variants()) {
      SCOPED_TRACE(name_of(options));
      const auto r = solve_over_sentinel<TypeParam>(problem, options, sentinel, false);
      EXPECT_EQ(r.status, expected.status);
      EXPECT_TRUE(same_bits(r.x, expected.x));  // NaN on every row of a failed neuron, over a finite x
      options.solve_padding = false;
      expect_padding_skipped(problem, expected, solve_over_sentinel<TypeParam>(problem, options, sentinel, false),
                             sentinel, name_of(options));
    }
  }
}

TYPED_TEST(HinesSubtree, WorkspaceIsUsedAndBadOptionsThrowBeforeWriting) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto systems = population<S>(size_class_cells().front().cell, 5, test_seed());
  const auto problem = hines::make_problem<S, L, M>(systems);
  const index_type neurons = problem.matrix.systems(), rows = problem.matrix.rows();
  const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
  typename TypeParam::exec exec;
  hines::Workspace<S, L, M> workspace("w", neurons, rows);
  for (int repeat = 0; repeat < 2; ++repeat) {
    BatchVector<S, L, M> x("x", neurons, rows);
    hines::solve(exec, problem.matrix, problem.rhs, x, {}, workspace, SubtreeParallel{3});
    EXPECT_TRUE(same_bits(hines::copy_solution(problem, x), reference.x)) << "repeat " << repeat;
  }
  BatchVector<S, L, M> x("x", neurons, rows);
  fill_storage(x, nan_of<S>());
  hines::Workspace<S, L, M> wrong("w", neurons + 1, rows);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, {}, wrong, SubtreeParallel{}),
               tridiag::invalid_argument);
  EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, {}, {}, SubtreeParallel{-1}),
               tridiag::invalid_argument);
  exec.fence();
  for (S v : download(x)) ASSERT_TRUE(v != v) << "x was written";
  const auto empty = hines::make_problem<S, L, M>({});
  EXPECT_TRUE(run<TypeParam>(empty, SubtreeParallel{}).x.empty());
}

// ---- the cut (host) ----------------------------------------------------------------------------
template <class C>
class HinesSubtreeCut : public KokkosTest {};
using CutConfigs = to_gtest<product<list<double>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesSubtreeCut, CutConfigs, ConfigNames);

/// The trees of the cut tests: every test cell, the seed size classes, the breaking shapes and
/// random trees and forests.
std::vector<std::vector<int>> cut_trees() {
  std::vector<std::vector<int>> trees;
  for (const auto& c : test_cells()) trees.push_back(c.cell.parent);
  for (const auto& c : size_class_cells()) trees.push_back(c.cell.parent);
  for (const auto& shape : fold_shapes(test_seed())) trees.push_back(shape);
  for (int n : {1, 2, 5, 64, 300})
    for (int forest : {0, 7}) trees.push_back(random_tree(n, test_seed() + n + forest, forest).parent);
  return trees;
}

/// Checks the cut of `parent` for `groups` groups against what the kernel relies on
/// (subtree_partition.hpp): every row in exactly one slot (level, group) or in the trunk; runs
/// decreasing and apart; a row's parent eliminated after it (a later level or the trunk) or in
/// its own slot; all children of a row in one slot, or all in the trunk (one sequence reduces a
/// parent, in decreasing child order: the sequential sweep's bits); the first level that of the
/// definition (cut roots: subtrees of at most ceil(n / groups) rows); each level's groups
/// balanced; in a depth-first numbering, one run per cut subtree.
void expect_valid_cut(const std::vector<int>& parent, int groups, const std::string& what) {
  SCOPED_TRACE(what + ", " + std::to_string(groups) + " groups");
  const int n = static_cast<int>(parent.size());
  const auto cut = hines::impl::partition_tree(parent.data(), n, groups);
  ASSERT_GE(cut.levels, 1);
  ASSERT_LE(cut.levels, hines::impl::max_levels);
  ASSERT_EQ(static_cast<int>(cut.runs.size()), cut.levels * groups);
  const int trunk_slot = cut.levels * groups;  // after every level
  // owner[i]: the slot whose runs hold row i, trunk_slot for the trunk; every row exactly once.
  std::vector<int> owner(n, -1);
  ASSERT_TRUE(std::is_sorted(cut.trunk.begin(), cut.trunk.end()));
  for (int t : cut.trunk) {
    ASSERT_TRUE(t >= 0 && t < n);
    ASSERT_EQ(owner[t], -1) << "row " << t << " twice";
    owner[t] = trunk_slot;
  }
  std::vector<int> load(cut.runs.size(), 0);
  for (int slot = 0; slot < trunk_slot; ++slot) {
    int below = n;  // runs in decreasing order, apart
    for (const auto& [first, last] : cut.runs[slot]) {
      ASSERT_LE(first, last);
      ASSERT_LT(last, below) << "slot " << slot << ": runs not decreasing";
      below = first;
      for (int i = first; i <= last; ++i) {
        ASSERT_TRUE(i >= 0 && i < n);
        ASSERT_EQ(owner[i], -1) << "row " << i << " twice";
        owner[i] = slot;
      }
      load[slot] += last - first + 1;
    }
  }
  for (int i = 0; i < n; ++i) ASSERT_NE(owner[i], -1) << "row " << i << " in no list";
  // The children of each row in one slot (or the trunk).
  std::vector<int> children_slot(n, -1);
  for (int i = 0; i < n; ++i) {
    const int p = parent[i];
    if (p < 0) {
      ASSERT_EQ(owner[i], trunk_slot) << "root " << i << " eliminated";
      continue;
    }
    const int level = owner[i] / groups, parent_level = owner[p] / groups;
    ASSERT_TRUE(owner[p] == owner[i] || parent_level > level) << "row " << i << ", parent " << p;
    if (children_slot[p] == -1) children_slot[p] = owner[i];
    ASSERT_EQ(children_slot[p], owner[i]) << "the children of row " << p << " in two slots";
  }
  // Level 0 as defined; each level's groups balanced, at most a subtree above an even share.
  std::vector<int> size(n, 1);
  for (int i = n - 1; i > 0; --i)
    if (parent[i] >= 0) size[parent[i]] += size[i];
  const int target = (n + groups - 1) / groups;
  for (int i = 0; i < n; ++i) {
    const int p = parent[i];
    const bool cut_root = size[i] <= target && (p < 0 || size[p] > target);
    const bool below_cut_root = size[i] <= target && !cut_root;
    ASSERT_EQ(owner[i] < groups, below_cut_root) << "row " << i << " at level 0";
  }
  int left = n;
  for (int level = 0; level < cut.levels; ++level) {
    int total = 0, most = 0;
    for (int g = 0; g < groups; ++g) {
      total += load[level * groups + g];
      most = std::max(most, load[level * groups + g]);
    }
    const int level_target = (left + groups - 1) / groups;
    EXPECT_LE(most, (total + groups - 1) / groups + level_target) << "level " << level;
    left -= total;
  }
  // Depth-first numbering: at level 0 each run of a slot is a whole cut subtree less its root, so
  // a slot has no more runs than parents outside it (the cut roots of its subtrees). (Later levels
  // cut what is left, whose subtrees have holes where earlier levels eliminated rows.)
  bool depth_first = true;  // every row inside the range [v, v + size(v)) of each ancestor v
  for (int i = 0; depth_first && i < n; ++i)
    for (int v = parent[i]; depth_first && v >= 0; v = parent[v]) depth_first = i < v + size[v];
  if (depth_first) {
    for (int slot = 0; slot < groups; ++slot) {
      std::vector<int> roots;
      for (const auto& [first, last] : cut.runs[slot])
        for (int i = first; i <= last; ++i)
          if (owner[parent[i]] != slot) roots.push_back(parent[i]);
      std::sort(roots.begin(), roots.end());
      roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
      EXPECT_LE(cut.runs[slot].size(), roots.size()) << "slot " << slot;
    }
  }
}

TYPED_TEST(HinesSubtreeCut, TheCutCoversEveryRowOnceWithParentsWhereTheKernelNeedsThem) {
  const auto trees = cut_trees();
  for (std::size_t t = 0; t < trees.size(); ++t)
    for (int groups : {1, 2, 3, 4, 7, 8, 16, 32, 1000})
      expect_valid_cut(trees[t], groups, "tree " + std::to_string(t) + " (" + std::to_string(trees[t].size()) + " rows)");
  // One group: every row but the roots eliminated at one level, the roots the trunk.
  const auto one = hines::impl::partition_tree(trees[0].data(), static_cast<index_type>(trees[0].size()), 1);
  EXPECT_EQ(one.levels, 1);
  EXPECT_EQ(one.trunk, std::vector<int>{0});
  // Levels pay on the large seed classes: the longest chain (largest group per level, plus the
  // trunk) shorter than one level's, and no level past where the next one stops paying.
  for (const auto& cell : size_class_cells()) {
    const auto& p = cell.cell.parent;
    const auto n = static_cast<index_type>(p.size());
    if (n < 500) continue;
    const auto cut = hines::impl::partition_tree(p.data(), n, 16);
    std::vector<char> alive(p.size(), 1);
    std::vector<std::vector<std::pair<int, int>>> runs;
    const index_type largest = hines::impl::cut_level(p.data(), n, 16, alive, runs);
    index_type left = 0;
    for (char a : alive) left += a ? 1 : 0;
    EXPECT_GT(cut.levels, 1) << cell.name;
    EXPECT_LT(cut.critical_rows, largest + left) << cell.name;
  }
}

TYPED_TEST(HinesSubtreeCut, MorphologiesBuildEachPartitionOnceAndShareIt) {
  using M = typename TypeParam::memory;
  const auto trees = cut_trees();
  const auto morphologies = hines::make_morphologies<M>(trees);
  const auto copy = morphologies;
  const auto& three = morphologies.subtree_partition(3);
  EXPECT_EQ(&three, &morphologies.subtree_partition(3)) << "built again";
  EXPECT_EQ(&three, &copy.subtree_partition(3)) << "copies share the partitions";
  EXPECT_NE(&three, &morphologies.subtree_partition(4));
  EXPECT_EQ(three.groups, 3);
  // The device tables hold partition_tree's cut of every morphology.
  const auto begin = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), three.run_begin);
  const auto runs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), three.runs);
  const auto trunk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), three.trunk);
  const auto trunk_size = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), three.trunk_size);
  index_type longest = 0;
  int levels = 0;
  for (std::size_t m = 0; m < trees.size(); ++m) {
    const auto cut = hines::impl::partition_tree(trees[m].data(), static_cast<index_type>(trees[m].size()), 3);
    levels = std::max(levels, cut.levels);
    ASSERT_EQ(trunk_size(m), static_cast<int>(cut.trunk.size())) << "morphology " << m;
    longest = std::max<index_type>(longest, static_cast<index_type>(cut.trunk.size()));
    for (std::size_t j = 0; j < cut.trunk.size(); ++j) ASSERT_EQ(trunk(m, j), cut.trunk[j]);
    ASSERT_EQ(begin(m, 0), 0);
    ASSERT_LE(cut.levels, three.levels);
    for (int g = 0; g < three.levels * 3; ++g) {
      if (g >= cut.levels * 3) {  // levels past the morphology's own: empty
        ASSERT_EQ(begin(m, g + 1), begin(m, g)) << "morphology " << m;
        continue;
      }
      ASSERT_EQ(begin(m, g + 1) - begin(m, g), static_cast<int>(cut.runs[g].size())) << "morphology " << m;
      for (std::size_t j = 0; j < cut.runs[g].size(); ++j) {
        ASSERT_EQ(runs(m, 2 * (begin(m, g) + j)), cut.runs[g][j].first);
        ASSERT_EQ(runs(m, 2 * (begin(m, g) + j) + 1), cut.runs[g][j].second);
      }
    }
  }
  EXPECT_EQ(three.longest_trunk, longest);
  EXPECT_EQ(three.levels, levels);
  // A default-constructed Morphologies has none.
  EXPECT_EQ(hines::Morphologies<M>().subtree_partition(2).groups, 0);
}

/// The plan (subtree_team_plan.hpp), in blocks of 32 neurons, of neurons whose morphology ids[s]
/// is a chain of rows[ids[s]] rows, on a GPU of `budget` groups (threads / 64); padded_rows: the
/// batch's rows where the pad rows are solved, else 0.
hines::SubtreeTeamPlan<Kokkos::HostSpace> plan_of(const std::vector<int>& rows, const std::vector<int>& ids,
                                                 index_type budget, int warps = 0, bool gpu = true,
                                                 index_type padded_rows = 0) {
  std::vector<std::vector<int>> parents;
  for (int r : rows) {
    std::vector<int> chain(static_cast<std::size_t>(r));
    for (int i = 0; i < r; ++i) chain[static_cast<std::size_t>(i)] = i - 1;
    parents.push_back(chain);
  }
  const auto morphologies = hines::make_morphologies<Kokkos::HostSpace>(parents);
  auto partition_for = [&](int g, bool) -> const hines::SubtreePartition<Kokkos::HostSpace>& {
    return morphologies.subtree_partition(g);
  };
  return hines::impl::make_subtree_team_plan<Kokkos::HostSpace>(ids, morphologies.host_sizes(),
                                                                static_cast<index_type>(ids.size()), 32, warps, gpu,
                                                                budget, 32, 0, partition_for, padded_rows);
}

/// plan_of a batch of `blocks[k]` blocks of 32 neurons of chain k, in that order.
hines::SubtreeTeamPlan<Kokkos::HostSpace> plan_for(const std::vector<int>& rows, const std::vector<int>& blocks,
                                                  index_type budget, int warps = 0, bool gpu = true) {
  std::vector<int> ids;
  for (std::size_t k = 0; k < rows.size(); ++k)
    ids.insert(ids.end(), static_cast<std::size_t>(32 * blocks[k]), static_cast<int>(k));
  return plan_of(rows, ids, budget, warps, gpu);
}

/// Groups per block of a plan, from its units; every block in exactly one unit, in order, a
/// unit's blocks no more than its team holds.
std::vector<int> groups_per_block(const hines::SubtreeTeamPlan<Kokkos::HostSpace>& plan) {
  using Plan = hines::SubtreeTeamPlan<Kokkos::HostSpace>;
  std::vector<int> g;
  for (int u = 0; u < plan.teams(); ++u) {
    EXPECT_EQ(plan.units(u, Plan::first_block), static_cast<int>(g.size())) << "unit " << u;
    const int groups = plan.units(u, Plan::groups_per_neuron);
    EXPECT_GE(plan.units(u, Plan::blocks), 1);
    EXPECT_LE(plan.units(u, Plan::blocks), plan.team_groups / std::min(groups, plan.team_groups)) << "unit " << u;
    const auto q = std::find(plan.groups.begin(), plan.groups.end(), groups) - plan.groups.begin();
    EXPECT_EQ(plan.units(u, Plan::partition_row), static_cast<int>(q) * static_cast<int>(plan.cut.trunk_size.extent(0) / plan.groups.size()));
    g.insert(g.end(), static_cast<std::size_t>(plan.units(u, Plan::blocks)), groups);
  }
  return g;
}

int count_of(const std::vector<int>& g, int value) { return static_cast<int>(std::count(g.begin(), g.end(), value)); }

TYPED_TEST(HinesSubtreeCut, TheTeamPlanGivesLargerCellsMoreWarpsWithinOneWave) {
  constexpr index_type h100 = 270336 / 64;  // an H100's budget: 132 multiprocessors x 32
  // One cell, 25,600 neurons (800 blocks): 4 warps each, whatever its size from 96 rows; 12,800
  // (400 blocks): 8 would need a second wave (3 teams of 8 warps per multiprocessor), so 4 again.
  for (int rows : {671, 4035}) {
    const auto plan = plan_for({rows}, {800}, h100);
    EXPECT_EQ(count_of(groups_per_block(plan), 4), 800) << rows;
    EXPECT_EQ(plan.team_groups, 4);
    EXPECT_EQ(count_of(groups_per_block(plan_for({rows}, {400}, h100)), 4), 400) << rows;
  }
  // 33,792 neurons (1,056 blocks): 4 warps each would need a second wave, so 2.
  for (int rows : {107, 671, 4035}) {
    const auto plan = plan_for({rows}, {1056}, h100);
    EXPECT_EQ(count_of(groups_per_block(plan), 2), 1056) << rows;
    EXPECT_EQ(plan.team_groups, 2);
  }
  // Small cells: 4 warps at 25,600 neurons too, but at least 24 rows per warp (59 rows: 2).
  EXPECT_EQ(count_of(groups_per_block(plan_for({107}, {800}, h100)), 4), 800);
  EXPECT_EQ(count_of(groups_per_block(plan_for({59}, {800}, h100)), 2), 800);
  EXPECT_EQ(count_of(groups_per_block(plan_for({47}, {800}, h100)), 1), 800);
  // The six seed classes grouped, 25,600 neurons: the largest get 8 warps, the others 4, sizes
  // in decreasing order get no more warps; blocks of fewer warps share teams.
  const std::vector<int> six = {1057, 819, 525, 429, 107, 107};
  const auto mixed = plan_for(six, {133, 133, 133, 133, 134, 134}, h100);
  const auto g = groups_per_block(mixed);
  ASSERT_EQ(g.size(), 800u);
  EXPECT_EQ(g.front(), 8);
  EXPECT_EQ(g.back(), 4);
  EXPECT_TRUE(std::is_sorted(g.rbegin(), g.rend()));
  EXPECT_EQ(mixed.team_groups, 8);
  EXPECT_LT(mixed.teams(), 800);
  EXPECT_EQ(mixed.groups.front(), 4);
  EXPECT_EQ(mixed.groups.back(), 8);
  // AA0013 and BG001, 12,800 each: 8 warps for AA0013 would push its own teams into a second
  // wave, so 4; BG001 4 (2 would leave the model's longest team longer).
  EXPECT_EQ(count_of(groups_per_block(plan_for({4035, 671}, {400, 400}, h100)), 4), 800);
  // 64,000 neurons of BG001 (2,000 blocks): 4, in three waves, beats 2 in two in the model.
  EXPECT_EQ(count_of(groups_per_block(plan_for({671}, {2000}, h100)), 4), 2000);
  // Given warps: every block, one block per team; host spaces: 1.
  EXPECT_EQ(count_of(groups_per_block(plan_for(six, {3, 3, 3, 3, 3, 3}, h100, 3)), 3), 18);
  EXPECT_EQ(count_of(groups_per_block(plan_for(six, {3, 3, 3, 3, 3, 3}, 0, 0, false)), 1), 18);
  // The stacked partitions hold each number of groups' cut of every morphology.
  const auto& cut = mixed.cut;
  EXPECT_EQ(cut.trunk_size.extent(0), mixed.groups.size() * six.size());
}

TYPED_TEST(HinesSubtreeCut, TheTeamPlanGivesFewLargeCellsSixteenWarpsAndWeighsThePadRows) {
  constexpr index_type h100 = 270336 / 64;
  // A 4,035-row cell at 1,000 neurons (32 blocks) and at 4,224 (132, one per multiprocessor): 16
  // warps per block, one team of 16 per multiprocessor, one wave; at 8,448 (264 blocks) 8. The
  // 1,057-row class at 4,267 neurons (134 blocks: 16 warps would need a second wave) 8.
  for (int blocks : {32, 132}) {
    const auto plan = plan_for({4035}, {blocks}, h100);
    EXPECT_EQ(count_of(groups_per_block(plan), 16), blocks) << blocks;
    EXPECT_EQ(plan.team_groups, 16);
  }
  EXPECT_EQ(count_of(groups_per_block(plan_for({4035}, {264}, h100)), 8), 264);
  EXPECT_EQ(count_of(groups_per_block(plan_for({1057}, {134}, h100)), 8), 134);
  // At least 24 rows per group: a 300-row cell at 1,000 neurons gets 8 (300 / 24 = 12.5).
  EXPECT_EQ(count_of(groups_per_block(plan_for({300}, {32}, h100)), 8), 32);
  // The 11 shared cells' sizes grouped, 10,000 neurons: teams of 16 warps (the largest cells')
  // without the pad rows; with them solved (every neuron padded to 4,035 rows, which the
  // smaller cells' teams walk too) teams of 8, as measured faster.
  const std::vector<int> eleven = {4035, 2375, 2191, 1679, 1101, 965, 753, 671, 513, 475, 149};
  std::vector<int> ids;
  for (index_type s = 0; s < 10000; ++s) ids.push_back(static_cast<int>(s * 11 / 10000));
  EXPECT_EQ(plan_of(eleven, ids, h100).team_groups, 16);
  const auto padded = plan_of(eleven, ids, h100, 0, true, 4035);
  EXPECT_EQ(padded.team_groups, 8);
  using Plan = hines::SubtreeTeamPlan<Kokkos::HostSpace>;
  for (int u = 0; u < padded.teams(); ++u) EXPECT_LE(padded.units(u, Plan::groups_per_neuron), 8) << "unit " << u;
  // One cell has no pad rows: padded_rows (its own rows) changes nothing.
  EXPECT_EQ(plan_of({4035}, std::vector<int>(1000, 0), h100, 0, true, 4035).team_groups, 16);
}

/// plan_of neurons[k] neurons of chain k, grouped (consecutive) or round-robin (neuron s has chain
/// s mod chains), checking that every slot is solved by exactly one unit.
hines::SubtreeTeamPlan<Kokkos::HostSpace> plan_for_neurons(const std::vector<int>& rows, const std::vector<int>& neurons,
                                                          bool grouped, index_type budget) {
  std::vector<int> ids;
  for (std::size_t k = 0; k < rows.size(); ++k)
    ids.insert(ids.end(), static_cast<std::size_t>(neurons[k]), static_cast<int>(k));
  if (!grouped)
    for (std::size_t s = 0; s < ids.size(); ++s) ids[s] = static_cast<int>(s % rows.size());
  auto plan = plan_of(rows, ids, budget);
  // Every slot is solved by exactly one unit: its block's, whose morphology is the slot's or -1.
  using Plan = hines::SubtreeTeamPlan<Kokkos::HostSpace>;
  std::vector<int> covered(ids.size(), 0);
  for (int u = 0; u < plan.teams(); ++u) {
    const int only = plan.units(u, Plan::morphology);
    if (only >= 0) EXPECT_EQ(plan.units(u, Plan::blocks), 1) << "unit " << u;
    for (int b = plan.units(u, Plan::first_block); b < plan.units(u, Plan::first_block) + plan.units(u, Plan::blocks); ++b)
      for (std::size_t s = 32 * static_cast<std::size_t>(b); s < std::min(ids.size(), 32 * static_cast<std::size_t>(b) + 32); ++s)
        covered[s] += only < 0 || ids[s] == only;
  }
  for (std::size_t s = 0; s < ids.size(); ++s) EXPECT_EQ(covered[s], 1) << "slot " << s;
  return plan;
}

TYPED_TEST(HinesSubtreeCut, TheTeamPlanSplitsTheMixedBlocksOfAGroupedBatchOnly) {
  constexpr index_type h100 = 270336 / 64;
  using Plan = hines::SubtreeTeamPlan<Kokkos::HostSpace>;
  const std::vector<int> six = {1057, 819, 525, 429, 107, 107};
  const auto units_of = [](const hines::SubtreeTeamPlan<Kokkos::HostSpace>& plan, int morphology) {
    std::vector<std::array<int, 3>> out;  // first block, blocks, groups
    for (int u = 0; u < plan.teams(); ++u)
      if (plan.units(u, Plan::morphology) == morphology)
        out.push_back({plan.units(u, Plan::first_block), plan.units(u, Plan::blocks), plan.units(u, Plan::groups_per_neuron)});
    return out;
  };
  // The six classes grouped, 25,600 neurons (4,267 x 4 + 4,266 x 2): the blocks of 32 holding the
  // group boundaries (slots 4,267, 8,534, 12,801, 17,068 and 21,334) are split, each into a unit
  // of its larger morphology and one of its smaller, each with the g of its morphology's whole
  // blocks: ten units of one block each, out of 800 blocks.
  const auto grouped = plan_for_neurons(six, {4267, 4267, 4267, 4267, 4266, 4266}, true, h100);
  const auto first = units_of(grouped, 0), second = units_of(grouped, 1);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(first[0][0], 133);
  EXPECT_EQ(second[0][0], 133);
  EXPECT_EQ(second[1][0], 266);
  EXPECT_EQ(grouped.units(0, Plan::morphology), -1);
  EXPECT_EQ(first[0][2], grouped.units(0, Plan::groups_per_neuron));
  int split_units = 0;
  for (int u = 0; u < grouped.teams(); ++u) split_units += grouped.units(u, Plan::morphology) >= 0;
  EXPECT_EQ(split_units, 10);
  // Round-robin (every block mixed) and one cell with a partial last block: nothing split.
  for (const auto& plan : {plan_for_neurons(six, {4267, 4267, 4267, 4267, 4266, 4266}, false, h100),
                           plan_for_neurons({671}, {25590}, true, h100)}) {
    for (int u = 0; u < plan.teams(); ++u) EXPECT_EQ(plan.units(u, Plan::morphology), -1) << "unit " << u;
  }
}

}  // namespace
}  // namespace tridiag::test

// algo::WarpStaged (warp_staged_steps.hpp, warp_staged_kernel.hpp): a warp per 8 neurons of one
// morphology, staged in shared memory, 4 lanes per neuron over uniform steps. Bitwise equal to
// algo::PerNeuron (itself checked against the oracle in test_hines_solve.cpp), status codes
// included, on the small size classes, random trees, forests and the shapes that break a wrong
// sweep, partial warps and teams, in place, every layout, float and double; failures (zero
// pivots, non-finite right-hand sides) give PerNeuron's status and NaN solution. Where it cannot
// run (host spaces, mixed batches, larger cells) it is PerNeuron, and says so (warp_staged_runs).
// The step tables themselves: test_warp_staged_steps.cpp.

#include <algorithm>
#include <limits>
#include <string>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/hines_solve_runs.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::algo::WarpStaged;
using hines::test::random_tree;
using hines::test::size_class_cells;
using hines::test::test_cells;

template <class C>
class HinesWarpStaged : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, AllLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesWarpStaged, Configs, ConfigNames);

/// Whether the space is a CUDA device (where the warp kernel runs).
template <class E>
constexpr bool cuda_space() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<E, Kokkos::Cuda>;
#else
  return false;
#endif
}

/// WarpStaged against PerNeuron on `problem`, out of place (a, b, d, rhs left as they were) and
/// in place (expect_same_as).
template <class C>
void expect_equal_to_per_neuron(const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
                                const std::string& what) {
  expect_same_as<C>(problem, WarpStaged{}, run<C>(problem, hines::algo::PerNeuron{}, false), what, true);
}

TYPED_TEST(HinesWarpStaged, SmallCellsEqualPerNeuronInFullAndPartialTeams) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  const auto& small = size_class_cells().front();  // small-low: 107 rows, about the kernel's size
  ASSERT_EQ(small.cell.size(), 107);
  // Teams hold 16 neurons (2 warps of 8): 37 leaves a full team, a full warp and 5 neurons. On
  // Interleaved an odd count leaves rows off 16 bytes (one value per copy), 16 and 8 do not
  // (16-byte copies, as on BlockInterleaved<8 k>).
  for (int count : {37, 16, 8, 3, 1}) {
    const auto problem = hines::make_problem<S, L, M>(population<S>(small.cell, count, test_seed() + count));
    EXPECT_EQ((hines::warp_staged_runs<E, S>(E(), problem.matrix)), cuda_space<E>()) << count << " neurons";
    expect_equal_to_per_neuron<TypeParam>(problem, std::to_string(count) + " neurons of small-low");
  }
}

TYPED_TEST(HinesWarpStaged, TreesForestsAndBreakingShapesEqualPerNeuron) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  std::vector<std::vector<int>> shapes = fold_shapes(test_seed());  // not depth-first among them
  for (int n : {2, 7, 64, 120})
    for (int forest : {0, 5}) shapes.push_back(random_tree(n, test_seed() + 7 * n + forest, forest).parent);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    std::vector<HinesSystem> systems;
    for (int j = 0; j < 21; ++j) systems.push_back(rounded<S>(on_tree(shapes[k], test_seed() + 100 * k + j)));
    const auto problem = hines::make_problem<S, L, M>(systems);
    ASSERT_EQ(problem.matrix.morphologies().count(), 1);
    expect_equal_to_per_neuron<TypeParam>(problem, "shape " + std::to_string(k) + " (" +
                                                       std::to_string(shapes[k].size()) + " rows)");
  }
}

TYPED_TEST(HinesWarpStaged, FailuresGivePerNeuronStatusAndNaN) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  // Non-finite right-hand sides read out of row order and a zero pivot (PerNeuron's codes -1, -2,
  // -1, -3, -4, 4), and sound neurons around them.
  std::vector<HinesSystem> systems = out_of_order_rhs_failures<S>(test_seed());
  for (int j = 0; j < 12; ++j) systems.push_back(rounded<S>(on_tree({-1, 0, 1, 0}, test_seed() + 50 + j)));
  expect_equal_to_per_neuron<TypeParam>(hines::make_problem<S, L, M>(systems), "4-row failures");
  // The same on the 107-row cell: a zero pivot in a leaf, in the trunk (row 0), a NaN and an
  // infinite right-hand side, an overflow, each in one neuron of 20.
  const auto& small = size_class_cells().front();
  auto cells = population<S>(small.cell, 20, test_seed() + 200);
  const auto leaves = leaves_of(small.cell);
  cells[2].d[leaves.back()] = 0;
  cells[5].d[0] = 0;
  cells[9].rhs[leaves.front()] = static_cast<double>(nan_of<S>());
  cells[13].rhs[40] = static_cast<double>(std::numeric_limits<S>::infinity());
  cells[17].rhs[60] = static_cast<double>(std::numeric_limits<S>::max());
  expect_equal_to_per_neuron<TypeParam>(hines::make_problem<S, L, M>(cells), "107-row failures");
}

TEST(HinesWarpStagedLayouts, SixteenByteStagingWhereAWarpsNeuronsLieSideBySide) {
  using hines::impl::warp_neighbours_contiguous;
  EXPECT_TRUE(warp_neighbours_contiguous<layouts::Interleaved>());
  EXPECT_TRUE(warp_neighbours_contiguous<layouts::BlockInterleaved<8>>());
  EXPECT_TRUE(warp_neighbours_contiguous<layouts::BlockInterleaved<32>>());
  EXPECT_FALSE(warp_neighbours_contiguous<layouts::BlockInterleaved<4>>());  // a warp spans two blocks
  EXPECT_FALSE(warp_neighbours_contiguous<layouts::BlockInterleaved<12>>());
  EXPECT_FALSE(warp_neighbours_contiguous<layouts::Flat>());
  EXPECT_FALSE(warp_neighbours_contiguous<layouts::UnifiedVector>());
}

TEST(HinesWarpStagedAutomatic, ChosenFrom1600NeuronsOnInterleavedAndBlockInterleaved8) {
  using hines::impl::automatic_warp_staged;
  EXPECT_TRUE((automatic_warp_staged<layouts::Interleaved, double, double>(1600)));
  EXPECT_TRUE((automatic_warp_staged<layouts::BlockInterleaved<8>, const double, double>(256000)));
  EXPECT_FALSE((automatic_warp_staged<layouts::Interleaved, double, double>(1599)));
  EXPECT_FALSE((automatic_warp_staged<layouts::BlockInterleaved<32>, double, double>(256000)));
  EXPECT_FALSE((automatic_warp_staged<layouts::Flat, double, double>(256000)));
  EXPECT_TRUE((automatic_warp_staged<layouts::Interleaved, float, float>(256000)));
  EXPECT_TRUE((automatic_warp_staged<layouts::BlockInterleaved<8>, const float, float>(1600)));
  EXPECT_FALSE((automatic_warp_staged<layouts::Interleaved, float, float>(1599)));
  EXPECT_FALSE((automatic_warp_staged<layouts::Interleaved, float, double>(256000)));  // mixed: not measured
  EXPECT_FALSE((automatic_warp_staged<layouts::Interleaved, double, float>(256000)));
}

TYPED_TEST(HinesWarpStaged, AutomaticEqualsPerNeuronFrom1600Neurons) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  // 1,600 neurons of the 7-row shape: Automatic runs WarpStaged on a CUDA device on Interleaved
  // and BlockInterleaved<8>, its other rule elsewhere; the same bits either way.
  std::vector<HinesSystem> systems;
  for (int j = 0; j < 1600; ++j) systems.push_back(rounded<S>(on_tree({-1, 0, 1, 1, 0, 4, 4}, test_seed() + j)));
  const auto problem = hines::make_problem<S, L, M>(systems);
  const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
  const auto r = run<TypeParam>(problem, hines::algo::Automatic{}, false);
  EXPECT_TRUE(same_bits(r.x, reference.x));
  EXPECT_EQ(r.status, reference.status);
}

TYPED_TEST(HinesWarpStaged, RunsPerNeuronWhereItCannot) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  const auto& cells = test_cells();
  const auto bg001 = std::find_if(cells.begin(), cells.end(), [](const auto& c) { return c.name == "BG001.CNG.swc"; });
  ASSERT_TRUE(bg001 != cells.end());
  // A larger cell (671 rows: its team's scratch is past Kokkos's limit) and a mixed batch.
  const auto large = hines::make_problem<S, L, M>(population<S>(bg001->cell, 9, test_seed()));
  EXPECT_FALSE((hines::warp_staged_runs<E, S>(E(), large.matrix)));
  expect_equal_to_per_neuron<TypeParam>(large, "BG001");
  std::vector<HinesSystem> mixed = population<S>(size_class_cells().front().cell, 10, test_seed() + 1);
  for (auto& s : population<S>(bg001->cell, 3, test_seed() + 2)) mixed.push_back(s);
  const auto problem = hines::make_problem<S, L, M>(mixed);
  EXPECT_FALSE((hines::warp_staged_runs<E, S>(E(), problem.matrix)));
  expect_equal_to_per_neuron<TypeParam>(problem, "mixed");
}

}  // namespace
}  // namespace tridiag::test

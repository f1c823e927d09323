// algo::StagedBranchParallel (branch_parallel_rows.hpp): the BranchParallel kernel with each
// neuron staged in team scratch. Bitwise equal to algo::PerNeuron (itself checked against the
// oracle and the textbook sweep in test_hines_solve.cpp), with every staging forced through the
// scratch limit option (a, b, d, rhs; d and rhs only; none, i.e. the fallback to BranchParallel
// in global memory), one neuron per team and several, on every shared morphology and the six seed
// size classes, random trees, forests and the shapes that break a wrong sweep, mixed batches
// padded and grouped, in place, every layout, float and double; status codes and NaN solutions of failed neurons written over
// a finite x; which staging a limit gives; that only the fallback touches the workspace.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/hines_solve_runs.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::Staging;
using hines::algo::StagedBranchParallel;
using hines::test::random_tree;
using hines::test::size_class_cells;
using hines::test::test_cells;
using hines::test::TestCell;

constexpr Staging every_staging[] = {Staging::all, Staging::diagonal_and_rhs, Staging::none};

std::string name_of(Staging where) {
  return where == Staging::all ? "all" : where == Staging::diagonal_and_rhs ? "diagonal_and_rhs" : "none";
}

/// Team scratch (bytes) a team of C's space needs for `rows` rows staged as `where`.
template <class C>
std::size_t staged_bytes(Staging where, index_type rows) {
  using S = typename C::scalar;
  using Space = typename C::exec::scratch_memory_space;
  using hines::impl::branch_parallel_scratch_bytes;
  switch (where) {
    case Staging::all: return branch_parallel_scratch_bytes<Staging::all, S, S, Space>(rows);
    case Staging::diagonal_and_rhs: return branch_parallel_scratch_bytes<Staging::diagonal_and_rhs, S, S, Space>(rows);
    default: return 1;  // fits nothing
  }
}

/// The options that make the kernel stage `where` for a batch of `rows` rows with `neurons` per
/// team (the scratch limit at exactly what that staging needs), or nothing when C's space cannot
/// stage that much.
template <class C>
std::optional<StagedBranchParallel> forcing(Staging where, index_type rows, int team_size = 0, int neurons = 1) {
  const StagedBranchParallel options{team_size, neurons * staged_bytes<C>(where, rows), true, neurons};
  using S = typename C::scalar;
  if (hines::staged_branch_parallel_staging<typename C::exec, S, S>(rows, options) != where) return {};
  return options;
}

template <class C>
class HinesStaged : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, AllLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesStaged, Configs, ConfigNames);

TYPED_TEST(HinesStaged, SharedMorphologiesAndSizeClassesEqualPerNeuronInEveryStaging) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const std::vector<TestCell>& cells = hines::test::shared_and_size_class_cells();
  int runs[3] = {0, 0, 0};  // per staging: every one must have run on some cell
  for (std::size_t c = 0; c < cells.size(); ++c) {
    SCOPED_TRACE(cells[c].name);
    const auto systems = population<S>(cells[c].cell, 7, test_seed() + 100 * c);
    const auto problem = hines::make_problem<S, L, M>(systems);
    const index_type rows = problem.matrix.rows();
    const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
    for (int k : reference.status) ASSERT_EQ(k, 0);
    const auto staged = run<TypeParam>(problem, StagedBranchParallel{}, c == 0);
    EXPECT_TRUE(same_bits(staged.x, reference.x)) << "default options";
    EXPECT_EQ(staged.status, reference.status);
    // One neuron per team (teams of 3 threads, or the default), and 3 per team (2 or 8 lanes each).
    for (std::size_t w = 0; w < 3; ++w)
      for (const auto& [team, neurons] : {std::pair{0, 1}, std::pair{3, 1}, std::pair{2, 3}, std::pair{0, 3}}) {
        const auto options = forcing<TypeParam>(every_staging[w], rows, team, neurons);
        if (!options) continue;  // more than the space's scratch
        ++runs[w];
        const auto r = run<TypeParam>(problem, *options, false);
        const std::string what = name_of(every_staging[w]) + ", team " + std::to_string(team) + ", neurons " +
                                 std::to_string(neurons);
        EXPECT_TRUE(same_bits(r.x, reference.x)) << what;
        EXPECT_EQ(r.status, reference.status) << what;
      }
  }
  for (std::size_t w = 0; w < 3; ++w) EXPECT_GT(runs[w], 0) << name_of(every_staging[w]) << " never ran";
}

TYPED_TEST(HinesStaged, TreesForestsAndBreakingShapesEqualPerNeuronPaddedGroupedAndInPlace) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  std::vector<HinesSystem> systems;
  for (int n : {1, 2, 3, 7, 64, 200})
    for (int forest : {0, 5}) systems.push_back(rounded<S>(random_tree(n, test_seed() + 7 * n + forest, forest)));
  const auto shapes = fold_shapes(test_seed());
  for (std::size_t k = 0; k < shapes.size(); ++k) systems.push_back(rounded<S>(on_tree(shapes[k], test_seed() + k)));
  for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
    SCOPED_TRACE(grouping == hines::Grouping::none ? "padded" : "grouped");
    const auto problem = hines::make_problem<S, L, M>(systems, grouping);
    const auto reference = run<TypeParam>(problem);
    for (Staging where : every_staging)
      for (int neurons : {1, 3}) {
        const std::string what = name_of(where) + ", " + std::to_string(neurons) + " per team";
        const auto options = forcing<TypeParam>(where, problem.matrix.rows(), 4, neurons);
        ASSERT_TRUE(options) << what << ": 3 x 300 rows fit every space's scratch";
        expect_same_as<TypeParam>(problem, *options, reference, what);
      }
  }
}

TYPED_TEST(HinesStaged, MixedBatchesEqualPerNeuronAndSolvePadRowsToZero) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto& cells = test_cells();
  std::vector<HinesSystem> mixed = mixed_population<S>(2 * cells.size(), test_seed());
  // Padded to the largest shared cell (4,035 rows): scratch holds d and rhs at most in float on
  // a GPU, nothing on host spaces; a batch of the small cells only is staged whole everywhere.
  std::vector<HinesSystem> small;
  for (const auto& sys : mixed)
    if (sys.size() <= 300) small.push_back(sys);
  ASSERT_GE(small.size(), 4u);
  for (const auto* batch : {&mixed, &small})
    for (auto grouping : {hines::Grouping::none, hines::Grouping::by_morphology}) {
      SCOPED_TRACE(std::string(batch == &mixed ? "all cells, " : "small cells, ") +
                   (grouping == hines::Grouping::none ? "padded" : "grouped"));
      const auto problem = hines::make_problem<S, L, M>(*batch, grouping);
      const index_type rows = problem.matrix.rows();
      const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
      std::vector<StagedBranchParallel> variants = {StagedBranchParallel{}, StagedBranchParallel{0, 0, false},
                                                    StagedBranchParallel{0, 0, true, 4}};
      for (Staging where : every_staging)
        if (const auto options = forcing<TypeParam>(where, rows)) variants.push_back(*options);
      for (const auto& options : variants) {
        SCOPED_TRACE("scratch limit " + std::to_string(options.scratch_limit) +
                     (options.stage_coefficients ? "" : ", d and rhs only") + ", " +
                     std::to_string(options.neurons_per_team) + " per team");
        const auto r = run<TypeParam>(problem, options, false);
        EXPECT_TRUE(same_bits(r.x, reference.x));
        EXPECT_EQ(r.status, reference.status);
        for (std::size_t s = 0; s < batch->size(); ++s) {
          const index_type n = problem.size_of(problem.neuron_at_slot[s]);
          for (index_type i = n; i < rows; ++i) ASSERT_EQ(r.padded[s * rows + i], S(0)) << "slot " << s << ", row " << i;
        }
      }
    }
}

/// hines::solve of `problem` with `algorithm` over an x filled with a finite value (so that a
/// failed neuron's NaN must have been written) and a status of -999: x per slot, status.
template <class C, class Algorithm>
std::pair<std::vector<typename C::scalar>, std::vector<int>> solve_over_finite_x(
    const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
    Algorithm algorithm) {
  using S = typename C::scalar;
  using M = typename C::memory;
  const auto& batch = problem.matrix;
  BatchVector<S, typename C::layout, M> x("x", batch.systems(), batch.rows());
  fill_storage(x, S(7));
  StatusView<M> status("status", batch.systems());
  Kokkos::deep_copy(status, -999);
  typename C::exec exec;
  hines::solve(exec, batch, problem.rhs, x, status, {}, algorithm);
  exec.fence();
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  return {download(x), std::vector<int>(st.data(), st.data() + st.extent(0))};
}

TYPED_TEST(HinesStaged, FailuresGiveThePerNeuronStatusAndANaNSolution) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const S nan = nan_of<S>();
  // A zero pivot on a leaf of a shared cell and NaN in its rhs; on {-1, 0, 1, 0} (whose sweep
  // reads rhs out of row order) non-finite rhs rows in several places, and a zero pivot that
  // outranks a bad rhs; healthy neurons between them.
  const auto& cell = test_cells().front().cell;
  std::vector<HinesSystem> systems = population<S>(cell, 4, test_seed());
  const int leaf = leaves_of(cell).back();
  systems[1].d[leaf] = 0;
  systems[2].rhs[3] = static_cast<double>(nan);
  // The small tree whose sweep reads rhs out of row order.
  for (const HinesSystem& sys : out_of_order_rhs_failures<S>(test_seed())) systems.push_back(sys);
  const auto problem = hines::make_problem<S, L, M>(systems);
  const auto [expected_x, expected_status] = solve_over_finite_x<TypeParam>(problem, hines::algo::PerNeuron{});
  const std::vector<int> codes = {0, leaf + 1, -4, 0, -1, -2, -1, -3, -4, 4};
  std::vector<int> slot_codes(systems.size());
  for (std::size_t s = 0; s < systems.size(); ++s) slot_codes[s] = codes[problem.neuron_at_slot[s]];
  ASSERT_EQ(expected_status, slot_codes) << "PerNeuron";
  for (const auto& [where, neurons] : {std::pair{Staging::all, 1}, std::pair{Staging::diagonal_and_rhs, 1},
                                       std::pair{Staging::none, 1}, std::pair{Staging::all, 3},
                                       std::pair{Staging::diagonal_and_rhs, 3}}) {
    const auto options = forcing<TypeParam>(where, problem.matrix.rows(), 0, neurons);
    if (!options) continue;
    SCOPED_TRACE(std::to_string(neurons) + " per team");
    const auto [x, status] = solve_over_finite_x<TypeParam>(problem, *options);
    EXPECT_EQ(status, expected_status) << name_of(where);
    const index_type rows = problem.matrix.rows();
    for (std::size_t s = 0; s < systems.size(); ++s) {
      const std::vector<S> mine(x.begin() + s * rows, x.begin() + (s + 1) * rows);
      const std::vector<S> theirs(expected_x.begin() + s * rows, expected_x.begin() + (s + 1) * rows);
      EXPECT_TRUE(same_bits(mine, theirs)) << name_of(where) << ", slot " << s;
      if (expected_status[s] != 0)
        for (S v : mine) ASSERT_TRUE(v != v) << name_of(where) << ": failed slot " << s << " not NaN";
    }
  }
}

// ---- which staging, and the fallback ----------------------------------------------------------
template <class C>
class HinesStagedChoice : public KokkosTest {};
using ChoiceConfigs = to_gtest<product<RealScalars, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesStagedChoice, ChoiceConfigs, ConfigNames);

TYPED_TEST(HinesStagedChoice, TheScratchLimitDecidesWhatIsStaged) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  const auto staging = [](index_type rows, std::size_t limit, bool coefficients = true) {
    return hines::staged_branch_parallel_staging<E, S, S>(rows, StagedBranchParallel{0, limit, coefficients});
  };
  for (index_type rows : {1, 107, 1057}) {
    const std::size_t all = staged_bytes<TypeParam>(Staging::all, rows);
    const std::size_t dr = staged_bytes<TypeParam>(Staging::diagonal_and_rhs, rows);
    ASSERT_GE(all, 4 * rows * sizeof(S));
    ASSERT_GE(dr, 2 * rows * sizeof(S));
    ASSERT_LT(dr, all);
    const std::size_t most = Kokkos::TeamPolicy<E>::scratch_size_max(0);
    EXPECT_EQ(staging(rows, all), all <= most ? Staging::all : staging(rows, most)) << rows;
    EXPECT_EQ(staging(rows, all - 1), dr <= most ? Staging::diagonal_and_rhs : Staging::none) << rows;
    EXPECT_EQ(staging(rows, dr - 1), Staging::none) << rows;
    EXPECT_EQ(staging(rows, 0), staging(rows, most)) << "0 means the space's limit";
    EXPECT_EQ(staging(rows, std::size_t(1) << 40), staging(rows, most)) << "a limit is capped at the space's";
    EXPECT_EQ(staging(rows, all, false), dr <= most ? Staging::diagonal_and_rhs : Staging::none) << "no a, b";
    EXPECT_EQ(staging(rows, dr - 1, false), Staging::none) << rows;
    const auto staging_of_3 = [](index_type r, std::size_t limit) {
      return hines::staged_branch_parallel_staging<E, S, S>(r, StagedBranchParallel{0, limit, true, 3});
    };
    EXPECT_EQ(staging_of_3(rows, 3 * all), 3 * all <= most ? Staging::all : staging_of_3(rows, most)) << "3 per team";
    EXPECT_EQ(staging_of_3(rows, 3 * all - 1), 3 * dr <= most ? Staging::diagonal_and_rhs : Staging::none);
    EXPECT_EQ(staging_of_3(rows, 3 * dr - 1), Staging::none) << "3 per team";
  }
  // The figures of the documentation (hines_solve.hpp): Kokkos 3.4's 40 KiB of level-0 scratch on
  // CUDA stages a neuron of 1,270 rows whole in double, d and rhs of 2,550 rows (twice that in float).
  const std::size_t cuda = 40 * 1024;
  const index_type scale = sizeof(S) == 4 ? 2 : 1;
  EXPECT_LE(staged_bytes<TypeParam>(Staging::all, 1270 * scale), cuda);
  EXPECT_GT(staged_bytes<TypeParam>(Staging::all, 1290 * scale), cuda);
  EXPECT_LE(staged_bytes<TypeParam>(Staging::diagonal_and_rhs, 2550 * scale), cuda);
  EXPECT_GT(staged_bytes<TypeParam>(Staging::diagonal_and_rhs, 2570 * scale), cuda);
}

TYPED_TEST(HinesStagedChoice, OnlyTheFallbackUsesTheWorkspaceAndABadOneThrows) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto systems = population<S>(size_class_cells().front().cell, 5, test_seed());
  const auto problem = hines::make_problem<S, L, M>(systems);
  const index_type neurons = problem.matrix.systems(), rows = problem.matrix.rows();
  const auto reference = run<TypeParam>(problem, hines::algo::PerNeuron{}, false);
  typename TypeParam::exec exec;
  for (Staging where : every_staging) {
    SCOPED_TRACE(name_of(where));
    const auto options = forcing<TypeParam>(where, rows);
    ASSERT_TRUE(options);
    hines::Workspace<S, L, M> workspace("w", neurons, rows);
    fill_storage(workspace, S(7));
    BatchVector<S, L, M> x("x", neurons, rows);
    hines::solve(exec, problem.matrix, problem.rhs, x, {}, workspace, *options);
    exec.fence();
    EXPECT_TRUE(same_bits(hines::copy_solution(problem, x), reference.x));
    const auto w = download(workspace);
    const bool untouched = std::all_of(w.begin(), w.end(), [](S v) { return v == S(7); });
    EXPECT_EQ(untouched, where != Staging::none) << "the staged kernels eliminate in scratch";
  }
  // A workspace of the wrong shape is refused before anything is written, staged or not.
  BatchVector<S, L, M> x("x", neurons, rows);
  fill_storage(x, nan_of<S>());
  hines::Workspace<S, L, M> wrong("w", neurons + 1, rows);
  for (Staging where : every_staging)
    EXPECT_THROW(hines::solve(exec, problem.matrix, problem.rhs, x, {}, wrong, *forcing<TypeParam>(where, rows)),
                 tridiag::invalid_argument)
        << name_of(where);
  exec.fence();
  for (S v : download(x)) ASSERT_TRUE(v != v) << "x was written";
  // An empty batch is fine.
  const auto empty = hines::make_problem<S, L, M>({});
  EXPECT_TRUE(run<TypeParam>(empty, StagedBranchParallel{}).x.empty());
}

}  // namespace
}  // namespace tridiag::test

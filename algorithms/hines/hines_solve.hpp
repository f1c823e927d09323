#pragma once
// Host entry of the batched Hines solver (cuHinesBatch, ICCS 2017):
//   hines::solve(exec, batch, rhs, x, status, workspace, algorithm)
// one neuron per thread, SerialHines (serial_hines.hpp) on each, in one of these kernels:
//   algo::PerNeuron        RangePolicy over the neurons; every layout. Interleaved or
//                          BlockInterleaved<32> on a GPU (neighbouring threads read neighbouring
//                          addresses), Flat or BlockInterleaved<8> on host cores.
//   algo::BlockShared<BS>  the seed's Block-Shared variant: a team per BS neurons that keeps
//                          their right-hand side / solution in team scratch while both sweeps
//                          read and write it, and touches global x once to write it. Pairs with
//                          BlockInterleaved<BS>. Scratch is BS * rows values: level 0 (on-chip
//                          shared memory on a GPU) where that fits, else level 1 (global memory,
//                          where it gains nothing).
//   algo::BranchParallel   a team per neuron working through the tree's sections level by level
//                          (branch_schedule.hpp, branch_parallel_kernel.hpp): large cells, or
//                          too few neurons to fill a GPU with one thread each.
//   algo::StagedBranchParallel  BranchParallel with the neuron in team scratch (on-chip shared
//                          memory on a GPU; branch_parallel_rows.hpp): the team copies it in and
//                          x out with neighbouring threads on neighbouring rows (coalesced on
//                          Flat), the sweeps run in scratch; one or several neurons per team.
//                          BranchParallel where it does not fit.
//   algo::SubtreeParallel  a team of several warps per 32 neurons, each thread on one neuron:
//                          the tree cut, in levels, into subtrees the warps eliminate at once
//                          (subtree_partition.hpp, subtree_parallel_kernel.hpp), every access
//                          coalesced on Interleaved and BlockInterleaved<32>: batches of large
//                          cells too small to fill a GPU with one thread per neuron.
//   algo::WarpStaged       a warp per 8 neurons of one morphology of at most about a hundred
//                          rows, staged in shared memory, 4 lanes per neuron over the tree's
//                          subtree partition flattened into uniform steps (warp_staged_steps.hpp,
//                          warp_staged_kernel.hpp): 5 values of global traffic per row instead of
//                          9, on CUDA devices (its copies by cp.async from sm_80 on, plain
//                          loads and stores before; measured on the H100 only); PerNeuron
//                          elsewhere (warp_staged_runs says which).
//   algo::Automatic        one of the above (automatic_algorithm).
// PerNeuron, BlockShared and SubtreeParallel skip the pad rows of a mixed batch (neither read nor
// written) with solve_padding = false.
// All run exactly the same operations per neuron: results are bitwise equal across kernels,
// layouts, groupings and runs; but for SubtreeParallel with split_path, and so Automatic where it
// splits (on a GPU, small batches of cells with long unbranched paths), within rounding.
//
// Asynchronous on `exec` (no hidden fence). Shapes are checked on the host first and a mismatch
// throws tridiag::invalid_argument before anything is written; the topology was checked when the
// batch was built (hines_batch.hpp).

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <tridiag/algorithms/hines/branch_parallel_kernel.hpp>
#include <tridiag/algorithms/hines/hines_batch.hpp>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>  // host helpers come with the entry
#include <tridiag/algorithms/hines/serial_hines.hpp>
#include <tridiag/algorithms/hines/subtree_parallel_kernel.hpp>
#include <tridiag/algorithms/hines/warp_staged_kernel.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <type_traits>

namespace tridiag::hines {

/// The kernels hines::solve can run (tags; name() fills perf CSV columns).
namespace algo {
/// One thread per neuron, RangePolicy.
struct PerNeuron {
  static constexpr const char* name() { return "hines"; }
  /// true: a neuron's pad rows (n <= i < rows of a mixed batch padded to its largest morphology)
  /// are solved as the diagonal rows they are, x = rhs / d (a failed neuron's x is NaN on every
  /// row). false: they are neither read nor written, x's included (a failed neuron's x is NaN on
  /// its n rows only), which saves their traffic, a third of a padded mixed batch of the six size
  /// classes; the neuron's own rows get the same bits either way.
  bool solve_padding = true;
};
/// A team per BlockSize neurons, their rhs / x staged in team scratch.
template <int BlockSize>
struct BlockShared {
  static_assert(BlockSize > 0, "hines::algo::BlockShared: BlockSize must be positive");
  static constexpr int block_size = BlockSize;
  static constexpr const char* name() { return "hines_block_shared"; }
  bool solve_padding = true;  ///< as PerNeuron::solve_padding
};
/// A team per neuron; its threads solve the sections of one tree level at a time
/// (branch_schedule.hpp): for large cells, or batches too small to fill a GPU one thread per
/// neuron. Same results as PerNeuron, bitwise.
struct BranchParallel {
  static constexpr const char* name() { return "hines_branch_parallel"; }
  /// threads per neuron; 0: 1 on host spaces, up to 64 on a GPU. A value above what the space
  /// allows a team with this kernel's scratch is lowered to that limit.
  int team_size = 0;
  /// false: a mixed batch's pad rows are neither read nor written (PerNeuron's option).
  bool solve_padding = true;
};
/// BranchParallel with each neuron staged in team scratch: the team copies d and rhs, and a and b
/// when they fit too, into level-0 scratch (on-chip shared memory on a GPU) with neighbouring
/// threads on neighbouring rows, runs both sweeps there and writes x once: about 5 values of
/// global traffic per row instead of BranchParallel's 10, and coalesced on layouts::Flat (correct
/// on every layout, but a team reading one neuron of an interleaved layout gains nothing). A batch
/// whose neuron does not fit runs BranchParallel (staged_branch_parallel_staging says what is
/// staged). Same results as PerNeuron, bitwise.
struct StagedBranchParallel {
  static constexpr const char* name() { return "hines_staged_branch_parallel"; }
  /// threads per neuron; 0: 1 on host spaces, 32 to 64 on a GPU; lowered to the space's team
  /// size limit where above it (with neurons_per_team > 1: vector lanes, see there).
  int team_size = 0;
  /// Team scratch (bytes) a neuron may take; 0, or more than the space offers: the space's level-0
  /// limit (staged_branch_parallel_staging). A small limit forces less staging, or none.
  std::size_t scratch_limit = 0;
  /// false: stage d and rhs only, even where a and b fit too (half the scratch per team, so more
  /// teams per GPU multiprocessor, against a and b read from global memory by the sweeps).
  bool stage_coefficients = true;
  /// Neurons per team. 1: the whole team works on one neuron. More (small cells, whose neurons
  /// leave most of a team idle and a GPU multiprocessor short of teams): each neuron is solved by
  /// the vector lanes of one team thread, team_size of them, a power of two up to 32 (Kokkos's
  /// vector length on CUDA; 0: 8 on a GPU, 1 on host spaces); fewer neurons where the space's
  /// team size limit says so. The scratch limit holds for the team's neurons together.
  int neurons_per_team = 1;
  /// false: a mixed batch's pad rows are neither read nor written (PerNeuron's option).
  bool solve_padding = true;
};
/// Several thread groups per neuron, each thread on one neuron, so that every global access of
/// an interleaved layout stays coalesced (subtree_parallel_kernel.hpp): g warps solve a block of
/// 32 consecutive neurons, lane l of every warp on the block's neuron l. Each neuron's tree is cut
/// into subtrees of at most ceil(n / g) rows, dealt out to the warps, which eliminate and later
/// substitute them at the same time; what is left is cut again in further levels while that
/// shortens the longest chain, and the trunk left at the end warp 0 finishes alone in between
/// (subtree_partition.hpp; built once per morphology and g, on first use). g is chosen per block
/// (subtree_team_plan.hpp): more warps for the blocks of larger cells, so that a mixed batch grouped
/// by morphology is not held up by its largest cells, and a team runs one block of large cells or
/// several of small ones. For batches of large cells too small to fill a GPU with one thread per
/// neuron (25,600 neurons of thousands of compartments) on layouts::Interleaved or
/// BlockInterleaved<32>; correct on every layout. Fastest when the 32 neurons of a block share a
/// morphology (one morphology per batch, or Grouping::by_morphology); a mixed block is correct,
/// each lane following its own tree, and in a grouped batch the few blocks at group boundaries are
/// split into one team per morphology (subtree_team_plan.hpp). On host spaces a team is one thread
/// per group (as many as Kokkos allows, one by default) on one neuron. Same results as PerNeuron,
/// bitwise (unless split_path is set).
struct SubtreeParallel {
  static constexpr const char* name() { return "hines_subtree_parallel"; }
  /// Thread groups (warps on a GPU) per neuron, the partition's number of subtree groups, >= 0.
  /// 0: automatic, per block of 32 neurons (subtree_team_plan.hpp; 1 on host spaces). Where the
  /// space allows fewer groups per team (host spaces; the team size limit on a GPU), a group walks
  /// several of the partition's in turn.
  int warps = 0;
  bool solve_padding = true;  ///< as PerNeuron::solve_padding
  /// 0 (the default): off. Else, where a morphology's trunk (what the partition's levels leave,
  /// which one group walks alone) has a path of at least split_path rows, that path is cut into
  /// one segment per group and solved through composed maps (split_trunk.hpp): for batches too
  /// small to fill a GPU of cells with long unbranched stretches (H100, double: AA0013 at 1,000
  /// and 2,327 neurons 1.24 -> 0.74 and 1.32 -> 0.83 ms, 2.7% slower at 25,600; the 11 shared
  /// cells grouped at 25,600 neurons 1.78 -> 1.29 ms). 64 splits AA0013's trunk (a 664-row path
  /// with 8 groups), not the size classes' (at most 61 trunk rows). Results then differ from
  /// PerNeuron's by rounding (not bitwise); status codes are its. algo::Automatic takes 64 for
  /// the morphologies with few neurons in the batch (split_max_neurons).
  index_type split_path = 0;
  /// With split_path: only the trunks of morphologies with at most this many neurons in the batch
  /// are split (0, the default: every morphology's). A split pays where a morphology's blocks are
  /// too few to share the multiprocessors, and costs a little where they are many (H100, double,
  /// AA0013 alone: 1.52-1.58x faster at 3,000-4,224 neurons, 1.28x at 8,448, 1.02x at 12,800, 1.01x
  /// at 16,896, 0.97x at 25,600; docs/performance.md, 2026-11-26).
  index_type split_max_neurons = 0;
};
/// A warp per 8 neurons, 4 lanes per neuron, the neurons staged in shared memory: for batches of
/// one morphology small enough for its team's scratch (warp_staged_runs: about 120 rows in double
/// with Kokkos 3.4's 40 KiB per team), on a CUDA device. Each lane walks one group's rows of the
/// morphology's subtree partition for 4 groups, flattened into steps all lanes take at once
/// (warp_staged_steps.hpp); d and rhs are copied into shared memory, a and b 4 steps ahead, all by
/// cp.async; x is written once (warp_staged_kernel.hpp). A neuron whose pivot or solution fails
/// the checks is solved again by SerialHines, so status codes are PerNeuron's. Any layout;
/// BlockInterleaved<8> stages 16 bytes per copy. Where it does not run (host spaces, mixed
/// batches, pad rows, larger cells) hines::solve runs PerNeuron. Same results as PerNeuron,
/// bitwise.
struct WarpStaged {
  static constexpr const char* name() { return "hines_warp_staged"; }
};
/// WarpStaged where it runs, on Interleaved and BlockInterleaved<8> from 1,600 neurons, in double
/// and in float (impl::automatic_warp_staged); else, on a GPU, when the neurons alone cannot fill it and the
/// cells are large, or the batch mixes morphologies grouped (HinesBatch::grouped_mix): SubtreeParallel
/// on Interleaved and BlockInterleaved<32>; on Flat StagedBranchParallel for cells of up to 900
/// rows and for larger ones where staging leaves the batch enough neurons in flight, else
/// BranchParallel where the neurons cannot fill the GPU; PerNeuron otherwise
/// (automatic_algorithm). SubtreeParallel splits the long trunk paths
/// of the morphologies with few neurons in the batch (impl::automatic_subtree_parallel): their
/// neurons' results are then within rounding of PerNeuron's, not bitwise (unless split_trunks is
/// false); every other kernel it runs gives PerNeuron's bits.
struct Automatic {
  static constexpr const char* name() { return "hines_auto"; }
  /// Passed to the kernel chosen (WarpStaged takes batches without pad rows only).
  bool solve_padding = true;
  /// false: no trunk is split (SubtreeParallel::split_path = 0), so that every result is
  /// PerNeuron's, bitwise, at the cost of the split's speed-up (up to 1.6x on small batches of
  /// cells with long unbranched paths).
  bool split_trunks = true;
};
}  // namespace algo

/// The kernel algo::Automatic runs for `systems` neurons padded to `rows` rows in Layout on
/// ExecSpace, on a GPU running `concurrency` threads at once (an H100: 270,336): SubtreeParallel on
/// Interleaved and BlockInterleaved<32> when rows >= 64 and either 8 x systems <= concurrency
/// (33,792 neurons on an H100) or the batch is a grouped mix (HinesBatch::grouped_mix: several
/// morphologies stored grouped); on Flat StagedBranchParallel for cells of at most 900 rows
/// (automatic_staged_max_rows; a mixed batch's real rows per neuron on average,
/// HinesBatch::mean_rows) and for larger ones where staging d and rhs leaves the batch the
/// neurons in flight it needs (impl::staged_neurons_needed: all of them, or 5/8 of the teams the
/// GPU runs unstaged), a, b, d and rhs staged where that staging does
/// (impl::automatic_stages_coefficients), else d and rhs; else BranchParallel when systems <
/// concurrency; PerNeuron otherwise (always on host spaces).
///
/// StagedBranchParallel on Flat (H100, 6e4034f, docs/performance.md "Automatic on the flat
/// layout"; Automatic before, i.e. BranchParallel from 256 rows and PerNeuron under, against
/// after): double, small-low (107 rows) at 1,000 / 25,600 / 256,000 neurons 0.153 / 0.456 / 11.37
/// -> 0.040 / 0.240 / 2.09 ms (PerNeuron reads with the stride of a whole cell); nrn_ordering
/// (475 rows) 0.113 / 1.77 / 14.7 -> 0.086 / 0.774 / 7.44; BG001 (671) 0.145 / 2.64 / 21.2 ->
/// 0.108 / 1.29 / 12.7; big-low (819) 0.217 / 3.27 / 29.0 -> 0.137 / 1.96 / 19.3; float at
/// 25,600, BG001 1.70 -> 0.78. Left on BranchParallel: the highly branched cells of about a
/// thousand rows, where staging d and rhs is 0.82-1.01x at 25,600 neurons and more (HSN-fluoro02,
/// 965 rows, 27.0 vs 31.5 ms at 256,000; big-high, 1,057, 29.8 vs 36.1), and the largest cells
/// (C220498B-I4, 2,191 rows, 0.78-0.85x; C080400A3, 2,375, 0.93-1.09x: docs/results
/// h100_hines_shared_*_965ea17, *_44b680f and *_2c872d6 at 25,600, 64,000 and 256,000 neurons).
/// Hence 900 rows. Beyond them the staged kernel wins where the batch's neurons all fit at once
/// with d and rhs staged (big-high and HSN-fluoro02 at 1,000 neurons: 0.227 and 0.200 against
/// 0.329 and 0.303 ms) or the staging leaves enough teams per multiprocessor (big-high in float
/// at 25,600: 1.81 against 2.64 ms), and that is the rule for them since the commit after
/// 5bb34d1, as are mixed batches of at most 900 real rows per neuron on average (the six classes
/// mixed, padded to 1,057 rows: 1.2-1.5x). What the rule still gives away: 10-2012-02-09-001
/// (1,679 rows, 1.3-1.5x) at 25,600 neurons and more.
///
/// Grouped mixes (H100, double, Grouping::by_morphology, SubtreeParallel against PerNeuron, the
/// faster layout of Interleaved and BlockInterleaved<32>, without / with the pad rows solved;
/// docs/performance.md 2026-11-26): the six size classes at 64,000 neurons 1.00 vs 1.73 ms / 1.35
/// vs 2.49 (f588621), at 100,000 1.53 vs 2.08 / 2.06 vs 2.95 (f588621), at 256,000 3.69 vs 3.75 /
/// 5.46 vs 5.94 (d062512); the 11 shared cells at 64,000 2.97 vs 6.18 / 4.15 vs 9.30, at 100,000
/// 3.98 vs 6.69 / 6.46 vs 10.60 (f588621), at 256,000 9.85 vs 10.64 / 17.76 vs 21.21 (2c872d6):
/// the largest cells' neurons, a fraction of the batch, walk their long chains one thread each.
/// Mixes not grouped (every block of 32 neurons holds several morphologies) keep the rule of
/// their size: there SubtreeParallel's lanes walk different trees and PerNeuron or BranchParallel
/// is faster (the six classes at 64,000 neurons 6.75 vs 5.70-6.01 ms).
///
/// H100, double, the driver docs/experiments/hines_subtree_driver.cpp with the per-block rule of
/// subtree_team_plan.hpp at 181436e (docs/performance.md, 2026-11-25): SubtreeParallel
/// against the faster PerNeuron layout at 25,600 neurons, 71 rows 0.086 vs 0.099 ms, 107 rows
/// 0.108 vs 0.141, 309 rows 0.261 vs 0.393; at 33,792, 71 rows 0.097 vs 0.102, 107 rows 0.132 vs
/// 0.151, AA0013 4.26 vs 5.58 ms. (Before, cells of fewer than 256 rows got PerNeuron: with one
/// warp per block, the old rule's, SubtreeParallel was no faster.)
///
/// H100, double, commit ff8adb6 (the sweeps prefetching, per-block warps; docs/performance.md):
/// at 25,600 neurons SubtreeParallel against PerNeuron, AA0013 (4,035 rows) 3.73 vs 7.55 ms on
/// Interleaved, 3.58 vs 6.12 on BlockInterleaved<32>; BG001 (671 rows) 0.60 vs 1.27 and 0.61 vs
/// 1.06; at 64,000 PerNeuron wins on both (AA0013 9.06 vs 10.42 ms and 8.48 vs 10.09; BG001 1.53
/// vs 1.66 and 1.46 vs 1.63), so Interleaved now has BlockInterleaved<32>'s threshold (at a308699,
/// without the prefetch, SubtreeParallel still won at 64,000 on Interleaved).
///
/// Earlier (H100, double, commit a308699, 4 warps per neuron, docs/performance.md):
/// Interleaved, BG001 (671 rows) 0.73 vs 1.83 ms per-neuron at 25,600 neurons, 2.01 vs 2.16 at
/// 64,000, 3.61 vs 3.05 at 128,000; big-high (1,057) 1.23 vs 2.88 and AA0013 (4,035) 4.89 vs
/// 11.0 ms at 25,600. BlockInterleaved<32> (its kernel takes 100 registers, Interleaved's 72):
/// BG001 1.01 vs 1.56 ms at 25,600, 2.17 vs 1.99 at 64,000. At 256,000 neurons per-neuron wins on
/// both (6.06 vs 6.86 ms, 5.84 vs 8.48).
///
/// Why flat only (H100, double, commit 5081500, docs/performance.md "Measurements of commit
/// 5081500", docs/results/h100_hines_5081500_partial.csv; the H100 runs 270,336 threads at once,
/// so 25,600 and 256,000 neurons both counted as "too few"): on the flat layout a thread per
/// neuron reads with a stride of a whole cell, and BranchParallel (a team per neuron, reading
/// neighbouring rows) is 1.2-4x faster at 256,000 neurons (BG001 27.7 vs 96.3 ms, big-high 37.5
/// vs 149) and at 25,600 within 20% for single cells (medium-high 1.98 vs 2.35 ms, big-low 4.22
/// vs 3.82), 1.5-3x faster for mixed batches. On Interleaved, where the per-neuron threads of a
/// warp read neighbouring addresses, BranchParallel is 1.35-1.6x slower at 25,600 neurons (BG001
/// 3.31 vs 2.46 ms, big-high 5.33 vs 3.86, medium-high 3.10 vs 1.92) and 3.8-5x slower at 256,000
/// (BG001 32.6 vs 8.3 ms, big-high 49.3 vs 12.9, medium-high 32.3 vs 6.4); BlockInterleaved<32>
/// and UnifiedVector were measured per-neuron only (within 1.3x of Interleaved), so they keep
/// per-neuron too. What this rule gives away: padded mixed batches on interleaved layouts at
/// 25,600 neurons, where a warp's per-neuron threads walk different trees and BranchParallel was
/// faster (mixed6 7.2 vs 9.1 ms, all 11 shared cells 33.3 vs 62.2; at 256,000 neurons per-neuron
/// wins again, 35.7 vs 68.8 and 215 vs 308); grouped by morphology (Grouping::by_morphology) the
/// two are within 10% (4.42 vs 4.35, 14.8 vs 16.2 ms).
enum class Kernel { per_neuron, branch_parallel, subtree_parallel, staged_branch_parallel };
namespace impl {
/// The most rows (padded) of a batch on which algo::Automatic runs StagedBranchParallel on Flat,
/// and the rows from which it stages d and rhs only (the comment above Kernel).
inline constexpr index_type automatic_staged_max_rows = 900;
inline constexpr index_type automatic_staged_coefficients_below = 256;

/// What algo::Automatic's flat-layout rule knows of StagedBranchParallel on the batch's GPU: how
/// many neurons it solves at once staging a, b, d and rhs (`all`), staging d and rhs only, and
/// with nothing staged (`unstaged`: the teams a GPU runs at once when scratch does not limit
/// them). 0 where that staging does not fit Kokkos's scratch limit; all 0 where the GPU's facts
/// are unknown (then the rule is by rows alone: staged up to automatic_staged_max_rows, all four
/// arrays below automatic_staged_coefficients_below rows).
struct StagedAtOnce {
  index_type all = 0;
  index_type diagonal_and_rhs = 0;
  index_type unstaged = 0;
};

/// The per-team shared memory Kokkos's CUDA team launch adds to the scratch asked for: a double
/// per thread plus two (Kokkos 3.4 ParallelFor<TeamPolicy>), for teams of up to 64 threads.
inline constexpr std::size_t staged_team_bookkeeping_bytes = 8 * (64 + 2);

/// The teams of `scratch` bytes each (0: none) a GPU with `gpu`'s facts runs at once, one team
/// per neuron of up to 64 threads (launch_branch_parallel): per multiprocessor its block limit,
/// its threads / 64, and as many as its shared memory holds with what Kokkos and the runtime add
/// per team. 0 where the facts are unknown.
constexpr index_type staged_teams_at_once(const compat::GpuFacts& gpu, std::size_t scratch) {
  if (gpu.multiprocessors <= 0 || gpu.blocks_per_multiprocessor <= 0 || gpu.threads_per_multiprocessor < 64 ||
      gpu.shared_per_multiprocessor == 0)
    return 0;
  index_type per_multiprocessor = std::min(gpu.blocks_per_multiprocessor, gpu.threads_per_multiprocessor / 64);
  if (scratch > 0) {
    const std::size_t team = scratch + staged_team_bookkeeping_bytes + gpu.shared_reserved_per_block;
    per_multiprocessor = std::min<index_type>(per_multiprocessor,
                                              static_cast<index_type>(gpu.shared_per_multiprocessor / team));
  }
  return per_multiprocessor * gpu.multiprocessors;
}

/// The neurons a batch of `systems` needs in flight for StagedBranchParallel's staging to cost it
/// nothing (automatic_kernel): all of them when they fit at once, else 5/8 of the teams the GPU
/// runs unstaged (20 of 32 per multiprocessor on an H100). Measured on the H100 (docs/
/// performance.md, "Automatic on the flat layout", 2026-11-26): at 25,600 neurons and more,
/// staging all four arrays wins where it leaves 23 or more teams per multiprocessor (float,
/// medium-low and medium-high, 429 and 525 rows: 1.25x and 1.42x over d and rhs alone; double,
/// 107 and 149 rows) and loses where it leaves 18 or fewer (float BG001, 671 rows, 0.90x;
/// double, 429 rows and more); at 1,000 neurons it wins where they all fit at once (BG001 1.29x,
/// tc200, big-low, nrn_ordering 1.29-1.30x) and loses where they do not (big-high and
/// HSN-fluoro02, 1,057 and 965 rows: d and rhs alone 1.37-1.47x faster).
constexpr index_type staged_neurons_needed(index_type systems, index_type unstaged) {
  return std::min(systems, unstaged * 5 / 8);
}

/// Whether algo::Automatic stages a, b, d and rhs (not d and rhs only) when it runs
/// StagedBranchParallel on a batch of `systems` neurons of `rows` rows: where that staging leaves
/// the batch the neurons in flight it needs (staged_neurons_needed), or takes no more waves of
/// teams than d and rhs alone: a team with all four staged is faster, and a batch of a few waves
/// takes about as many times a team's time (H100, tc200, 753 rows, 2,327 neurons: two waves
/// either way, 0.159 against 0.203 ms; at 1,320, one wave with d and rhs and two with all four,
/// 0.108 against 0.143).
constexpr bool automatic_stages_coefficients(index_type systems, index_type rows, const StagedAtOnce& staged) {
  if (staged.unstaged <= 0) return rows < automatic_staged_coefficients_below;
  if (staged.all <= 0) return false;
  auto waves = [systems](index_type at_once) { return (systems + at_once - 1) / at_once; };
  return staged.all >= staged_neurons_needed(systems, staged.unstaged) ||
         (staged.diagonal_and_rhs > 0 && waves(staged.all) <= waves(staged.diagonal_and_rhs));
}

/// Whether Layout is one algo::Automatic may run SubtreeParallel on (automatic_kernel), so that
/// SubtreeParallel is instantiated only for those.
template <class Layout>
constexpr bool automatic_subtree_layout() {
  return std::is_same_v<Layout, layouts::Interleaved> || std::is_same_v<Layout, layouts::BlockInterleaved<32>>;
}

/// automatic_algorithm's rule, given whether the space is a GPU and how many threads it runs at once.
/// mean_rows: the batch's real rows per neuron (HinesBatch::mean_rows; 0: `rows`), which the
/// flat layout's 900 rows weigh a mixed batch by (the six classes mixed, padded to 1,057 rows and
/// 507 on average: StagedBranchParallel 1.2-1.5x faster than BranchParallel from 1,000 to 256,000
/// neurons; the 11 shared cells, 4,035 and 1,355: BranchParallel 1.46x faster in float).
template <class Layout>
constexpr Kernel automatic_kernel(bool gpu, index_type concurrency, index_type systems, index_type rows,
                                  bool grouped_mix = false, const StagedAtOnce& staged = {},
                                  index_type mean_rows = 0) {
  if (!gpu) return Kernel::per_neuron;
  if (std::is_same_v<Layout, layouts::Flat> &&
      ((mean_rows > 0 ? mean_rows : rows) <= automatic_staged_max_rows ||
       (staged.diagonal_and_rhs > 0 && staged.diagonal_and_rhs >= staged_neurons_needed(systems, staged.unstaged))))
    return Kernel::staged_branch_parallel;
  // Flat beyond 900 rows where staging would cost the batch neurons in flight:
  if (std::is_same_v<Layout, layouts::Flat> && systems < concurrency) return Kernel::branch_parallel;
  if (automatic_subtree_layout<Layout>() && (8 * systems <= concurrency || grouped_mix) && rows >= 64)
    return Kernel::subtree_parallel;
  return Kernel::per_neuron;
}

/// StagedAtOnce on a GPU with `gpu`'s facts for a neuron whose staging takes `all` bytes of team
/// scratch (a, b, d and rhs) or `diagonal_and_rhs` (d and rhs), of at most `scratch_limit` a team.
constexpr StagedAtOnce staged_at_once(const compat::GpuFacts& gpu, std::size_t all, std::size_t diagonal_and_rhs,
                                      std::size_t scratch_limit) {
  StagedAtOnce at_once;
  at_once.unstaged = staged_teams_at_once(gpu, 0);
  if (at_once.unstaged == 0) return at_once;
  if (all <= scratch_limit) at_once.all = staged_teams_at_once(gpu, all);
  if (diagonal_and_rhs <= scratch_limit) at_once.diagonal_and_rhs = staged_teams_at_once(gpu, diagonal_and_rhs);
  return at_once;
}

/// automatic_kernel on `exec` (whether it is a GPU, the threads it runs at once).
template <class Layout, class ExecSpace>
Kernel automatic_kernel_on(const ExecSpace& exec, index_type systems, index_type rows, bool grouped_mix,
                           const StagedAtOnce& staged, index_type mean_rows) {
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  return automatic_kernel<Layout>(!host, host ? 0 : static_cast<index_type>(compat::concurrency(exec)), systems, rows,
                                  grouped_mix, staged, mean_rows);
}

/// StagedAtOnce for neurons of `rows` rows with matrix scalar Matrix and solution scalar Value on
/// `exec` (Kokkos's scratch limit and the GPU's facts); all 0 on host spaces and unknown GPUs.
template <class ExecSpace, class Matrix, class Value>
StagedAtOnce staged_at_once(const ExecSpace& exec, index_type rows) {
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible) return {};
  using Space = typename ExecSpace::scratch_memory_space;
  return staged_at_once(compat::gpu_facts(exec), branch_parallel_scratch_bytes<Staging::all, Matrix, Value, Space>(rows),
                        branch_parallel_scratch_bytes<Staging::diagonal_and_rhs, Matrix, Value, Space>(rows),
                        static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)));
}
}  // namespace impl

/// algo::Automatic's kernel for `systems` neurons of `rows` rows (padded) in Layout on `exec`, the
/// matrix's scalar Matrix and the solution's Value (they set what StagedBranchParallel's scratch
/// holds on Flat): impl::automatic_kernel's rule with this space's facts. Not WarpStaged, which
/// Automatic runs before this rule where a batch's own step tables allow it:
/// automatic_kernel_name tells for a given batch.
template <class ExecSpace, class Layout, class Matrix = double, class Value = Matrix>
Kernel automatic_algorithm(const ExecSpace& exec, index_type systems, index_type rows, bool grouped_mix = false,
                           index_type mean_rows = 0) {
  impl::StagedAtOnce staged;
  if constexpr (std::is_same_v<Layout, layouts::Flat>) staged = impl::staged_at_once<ExecSpace, Matrix, Value>(exec, rows);
  return impl::automatic_kernel_on<Layout>(exec, systems, rows, grouped_mix, staged, mean_rows);
}

namespace impl {
/// algo::SubtreeParallel's launch bounds: at most 65536 / 896 -> 72 registers per thread, and
/// teams of up to 28 warps (the automatic plan's 16, subtree_max_auto_groups). On an H100 (sm_90,
/// double, Interleaved) the kernel takes 80 registers unbounded, 6 teams of 4 warps per
/// multiprocessor, too few for 25,600 neurons in one wave (800 teams, 792 places); at 72, 7 teams
/// (64 bytes of spills on Interleaved and BlockInterleaved<32> at 4be5177, where the backward
/// sweep issues a row's loads before its stores, serial_hines.hpp, and the kernel addresses its
/// arrays through one mapping), and one team of 16 warps (subtree_team_plan.hpp's
/// resident_teams). Until 2026-11-26 the bounds were <288, 3>: the same 72 registers, but no team
/// above 9 warps (docs/performance.md: the same times for every plan both allow; AA0013 at 2,327
/// neurons with a split trunk 0.83 -> 0.57 ms with 16 warps per block).
/// TRIDIAG_SUBTREE_LAUNCH_BOUNDS (a compile definition "threads,teams") overrides them, for
/// experiments (docs/experiments).
#ifndef TRIDIAG_SUBTREE_LAUNCH_BOUNDS
#define TRIDIAG_SUBTREE_LAUNCH_BOUNDS 896, 1
#endif
template <class ExecSpace>
using SubtreeParallelPolicy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<TRIDIAG_SUBTREE_LAUNCH_BOUNDS>>;

/// Neurons per block of algo::SubtreeParallel on ExecSpace: a warp's lanes on a GPU, 1 on host
/// spaces.
template <class ExecSpace>
constexpr int subtree_lanes() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible ? 1 : 32;
}

/// The most groups a team of TeamKernel may have on `exec`: the space's team size limit with the
/// team scratch of that many groups. The scratch grows with the groups where trunks are split
/// (split_trunk_solve's segments), and Kokkos's limit with the scratch of fewer groups could allow
/// a team whose own scratch no longer fits (on an H100, 28 groups with split trunks: 50,192 bytes,
/// over the 49,152 a block may take), so the probe shrinks the team until both agree.
template <class ExecSpace, class TeamKernel>
int subtree_team_groups_limit(const ExecSpace& exec, const TeamKernel& kernel, bool split) {
  constexpr int lanes = subtree_lanes<ExecSpace>();
  const auto groups_that_fit = [&](int groups) {  // the limit with the scratch of `groups` groups
    SubtreeParallelPolicy<ExecSpace> probe(exec, 1, 1);
    probe.set_scratch_size(0, Kokkos::PerTeam(TeamKernel::scratch_bytes(lanes, groups, split)));
    return probe.team_size_max(kernel, Kokkos::ParallelForTag()) / lanes;
  };
  int groups = std::max(1, groups_that_fit(subtree_max_auto_groups));
  for (;;) {
    const int fits = groups_that_fit(groups);
    if (fits >= groups || groups == 1) return groups;
    groups = std::max(1, std::min(groups - 1, fits));
  }
}

/// The SubtreeTeamPlan algo::SubtreeParallel runs `batch` with (subtree_team_plan.hpp), for a
/// kernel of type TeamKernel: the most groups a team may have (subtree_team_groups_limit), then
/// the plan (built on first use,
/// HinesBatch::subtree_plan), whose model weighs the pad rows where the kernel solves them.
template <class ExecSpace, class Batch, class TeamKernel>
const auto& subtree_parallel_plan(const ExecSpace& exec, const Batch& batch, const algo::SubtreeParallel& options,
                                  const TeamKernel& kernel) {
  constexpr int lanes = subtree_lanes<ExecSpace>();
  constexpr bool device = lanes > 1;
  const int limit = subtree_team_groups_limit(exec, kernel, options.split_path > 0);
  const index_type budget = device ? static_cast<index_type>(compat::concurrency(exec)) / (2 * lanes) : 0;
  return batch.subtree_plan(lanes, options.warps, device, budget, limit, options.split_path,
                            options.split_max_neurons, options.solve_padding ? batch.rows() : 0);
}

/// The trunk paths algo::Automatic's SubtreeParallel splits: 64 rows and more (AA0013's 664-row
/// path with 8 groups; the size classes' trunks have at most 61 rows, the other shared cells' 55).
constexpr index_type automatic_split_path = 64;

/// The most neurons of a morphology whose trunk algo::Automatic's SubtreeParallel splits, on a GPU
/// running `concurrency` threads at once: concurrency / 16, 16,896 on an H100 (132
/// multiprocessors, 4 blocks of 32 neurons each). H100, double, AA0013 alone (f6a2d97,
/// docs/performance.md 2026-11-26): split against not, 0.85 vs 1.34 ms at 3,000 neurons, 0.92 vs
/// 1.40 at 4,224, 1.31 vs 1.68 at 8,448, 2.09 vs 2.13 at 12,800, 2.40 vs 2.43 at 16,896, 3.27 vs
/// 3.18 at 25,600.
constexpr index_type automatic_split_max_neurons(index_type concurrency) { return concurrency / 16; }

/// The options algo::Automatic runs algo::SubtreeParallel with on `exec` (where it runs it).
template <class ExecSpace>
algo::SubtreeParallel automatic_subtree_parallel(const ExecSpace& exec, const algo::Automatic& automatic) {
  algo::SubtreeParallel subtree;
  subtree.solve_padding = automatic.solve_padding;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (automatic.split_trunks && !host) {
    subtree.split_path = automatic_split_path;
    subtree.split_max_neurons = automatic_split_max_neurons(static_cast<index_type>(compat::concurrency(exec)));
  }
  return subtree;
}
}  // namespace impl

/// Scratch of hines::solve: the eliminated diagonal, one matrix scalar per row.
template <class MatrixScalar, class Layout, class MemorySpace>
using Workspace = BatchVector<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>;

/// Team scratch (bytes) algo::BlockShared<BlockSize> needs per team for a batch of `rows` rows.
template <int BlockSize, class Value>
std::size_t block_shared_scratch_bytes(index_type rows) {
  return static_cast<std::size_t>(BlockSize) * static_cast<std::size_t>(rows) * sizeof(Value);
}

/// What algo::StagedBranchParallel with `options` keeps in team scratch for a batch of `rows` rows
/// with matrix scalar Matrix and solution scalar Value on ExecSpace: Staging::all when a neuron's
/// a, b, d and rhs fit in the limit of level-0 team scratch (and options.stage_coefficients), else
/// Staging::diagonal_and_rhs when d and rhs do, else Staging::none (the kernel runs
/// algo::BranchParallel in global memory). The limit is Kokkos's, TeamPolicy::scratch_size_max(0),
/// or options.scratch_limit when that is smaller (0: Kokkos's). In
/// Kokkos 3.4 that is 40 KiB on CUDA (of the 48 KiB a block may take without opting in; the rest
/// is kept for team reductions), so in double a neuron of up to about 1,270 rows is staged whole
/// and up to about 2,550 rows d and rhs only (twice as many in float); 32 KiB on Serial and OpenMP.
template <class ExecSpace, class Matrix, class Value>
Staging staged_branch_parallel_staging(index_type rows, const algo::StagedBranchParallel& options = {}) {
  using Space = typename ExecSpace::scratch_memory_space;
  const std::size_t most = static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  const std::size_t limit = options.scratch_limit == 0 ? most : std::min(options.scratch_limit, most);
  const std::size_t neurons = static_cast<std::size_t>(std::max(1, options.neurons_per_team));
  if (options.stage_coefficients &&
      neurons * impl::branch_parallel_scratch_bytes<Staging::all, Matrix, Value, Space>(rows) <= limit)
    return Staging::all;
  if (neurons * impl::branch_parallel_scratch_bytes<Staging::diagonal_and_rhs, Matrix, Value, Space>(rows) <= limit)
    return Staging::diagonal_and_rhs;
  return Staging::none;
}

namespace impl {
/// The step tables algo::WarpStaged runs its warp kernel with on `batch`, or nullptr where it
/// does not run (then PerNeuron): a CUDA device space, one morphology without pad rows (rows = its
/// size, below 65,533), and the team's scratch (warp_staged_kernel.hpp: 2 warps, their 16 neurons
/// and the step tables) within Kokkos's level-0 limit. Builds the tables on first use
/// (Morphologies::warp_steps: a lookup under a mutex, so hines::solve asks once per call).
template <class ExecSpace, class RhsScalar, class MatrixScalar, class Layout, class MemorySpace>
const WarpSteps<MemorySpace>* warp_staged_tables(const HinesBatch<MatrixScalar, Layout, MemorySpace>& batch) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    const auto& shapes = batch.morphologies();
    if (shapes.count() != 1 || shapes.host_sizes()[0] != batch.rows() || batch.rows() + 3 > 0xffff) return nullptr;
    const auto& tables = shapes.warp_steps(impl::warp_staged_groups);
    const std::size_t bytes = impl::warp_staged_scratch_bytes<std::remove_const_t<MatrixScalar>,
                                                              std::remove_const_t<RhsScalar>>(batch.rows(), tables.steps);
    return bytes <= static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)) ? &tables : nullptr;
  }
#endif
  (void)batch;
  return nullptr;
}
}  // namespace impl

/// Whether hines::solve with algo::WarpStaged runs its warp kernel on `batch` (else PerNeuron):
/// see impl::warp_staged_tables. Builds the step tables on first use.
template <class ExecSpace, class RhsScalar, class MatrixScalar, class Layout, class MemorySpace>
bool warp_staged_runs(const ExecSpace&, const HinesBatch<MatrixScalar, Layout, MemorySpace>& batch) {
  return impl::warp_staged_tables<ExecSpace, RhsScalar>(batch) != nullptr;
}

namespace impl {

/// Whether algo::Automatic runs algo::WarpStaged wherever it can run (warp_staged_runs): on
/// Interleaved and BlockInterleaved<8>, from 1,600 neurons, matrix and right-hand side both double
/// or both float, where it was measured faster than every other kernel (H100, the 107-row size
/// class, f1ceb42 and 02a6984, docs/performance.md 2026-11-26 06:08-06:16 UTC). Double: 256,000
/// neurons 0.500-0.512 ms against PerNeuron's 0.759; 25,600 neurons 0.077-0.081 against
/// SubtreeParallel's 0.115; 1,600 neurons 0.024 against 0.059 (the rule below). Float: 0.371-0.377
/// against 0.409; 0.064 against 0.076; 0.026 against 0.048. (Until d8449c1 it lost in float: 0.48
/// against 0.41 ms.) Below 1,600 neurons, in mixed precision and on other layouts it is not
/// measured.
template <class Layout, class Matrix, class Value>
constexpr bool automatic_warp_staged(index_type systems) {
  using M = std::remove_const_t<Matrix>;
  using V = std::remove_const_t<Value>;
  return std::is_same_v<M, V> && (std::is_same_v<M, double> || std::is_same_v<M, float>) &&
         (std::is_same_v<Layout, layouts::Interleaved> || std::is_same_v<Layout, layouts::BlockInterleaved<8>>) &&
         systems >= 1600;
}

/// The morphology of neuron s: its id, or 0 when the batch has one morphology for all.
template <class Ids>
KOKKOS_FORCEINLINE_FUNCTION int morphology_of(const Ids& ids, index_type s) {
  return ids.data() != nullptr ? ids(s) : 0;
}

/// What every Hines kernel reads and writes: the batch's Views, the right-hand side, x, the
/// workspace (eliminated diagonal) and the status, as the kernels copy them to the device.
template <class Parent, class Sizes, class Ids, class A, class B, class D, class R, class X, class W, class Status>
struct Operands {
  index_type rows;
  Parent parent;
  Parent links;  ///< Morphologies::links(): parent and flags per row (TreeLinks, serial_hines.hpp)
  Sizes sizes;
  Ids ids;
  A a;
  B b;
  D d;
  R rhs;
  X x;
  W w;
  Status status;
  KOKKOS_FORCEINLINE_FUNCTION MorphologyRows<Parent> link_rows(int m) const { return {links, m}; }
};

/// The Operands of hines::solve for its argument types.
template <class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
using SolveOperands =
    Operands<typename Morphologies<MemorySpace>::parent_view, typename Morphologies<MemorySpace>::size_view,
             typename HinesBatch<MatrixScalar, Layout, MemorySpace>::morphology_view,
             typename HinesBatch<MatrixScalar, Layout, MemorySpace>::vector_type,
             typename HinesBatch<MatrixScalar, Layout, MemorySpace>::vector_type,
             typename HinesBatch<MatrixScalar, Layout, MemorySpace>::vector_type,
             BatchVector<RhsScalar, Layout, MemorySpace>, BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>,
             BatchVector<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>, StatusView<MemorySpace>>;

/// Kernel of algo::SubtreeParallel for hines::solve's argument types.
template <class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
using SubtreeParallelSolveKernel =
    SubtreeParallelKernel<SubtreePartition<MemorySpace>, SolveOperands<MatrixScalar, RhsScalar, Layout, MemorySpace>,
                          decltype(SubtreeTeamPlan<MemorySpace>::units)>;

/// Kernel of algo::PerNeuron (a functor, see "Kernels are functors" in core/kokkos_compat.hpp).
/// SolvePadding: algo::PerNeuron::solve_padding, a template argument because a run-time choice of
/// the row count costs registers (double BlockInterleaved<32> on sm_90: 66 instead of 64, 12% fewer
/// warps per multiprocessor, 18% slower at 256,000 neurons).
template <class Operands, bool SolvePadding>
struct PerNeuronKernel {
  Operands op;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int m = morphology_of(op.ids, s);
    const index_type n = op.sizes(m);
    // Without the pad rows, the neuron is a system of its own n rows.
    const int code = SerialHines::invoke(n, SolvePadding ? op.rows : n, op.link_rows(m), rows_of(op.a, s), rows_of(op.b, s),
                                         rows_of(op.d, s), rows_of(op.rhs, s), rows_of(op.x, s), rows_of(op.w, s));
    if (op.status.data() != nullptr) op.status(s) = code;
  }
};

/// Rows of neuron t of a team's block in scratch, interleaved like BlockInterleaved<BlockSize>
/// (row i of the block's neurons contiguous: conflict-free shared-memory banks on a GPU).
template <class Scratch, int BlockSize>
struct ScratchRows {
  Scratch scratch;
  int t;
  KOKKOS_FORCEINLINE_FUNCTION auto& operator()(index_type i) const { return scratch(i * BlockSize + t); }
};

/// Kernel of algo::BlockShared<BlockSize>: league rank r owns neurons [r BS, r BS + BS).
template <int BlockSize, class Scratch, class Operands>
struct BlockSharedKernel {
  index_type systems;
  int level;
  Operands op;
  bool solve_padding;  ///< algo::BlockShared::solve_padding

  /// One neuron of the team's block; the team's threads share out the block's neurons.
  struct Neuron {
    const BlockSharedKernel& k;
    Scratch scratch;
    index_type first;
    KOKKOS_INLINE_FUNCTION void operator()(const int t) const {
      const index_type s = first + t;
      if (s >= k.systems) return;
      const auto& op = k.op;
      const int m = morphology_of(op.ids, s);
      const ScratchRows<Scratch, BlockSize> staged{scratch, t};
      const index_type n = op.sizes(m), solved = k.solve_padding ? op.rows : n;
      const int code = SerialHines::invoke(n, solved, op.link_rows(m), rows_of(op.a, s), rows_of(op.b, s),
                                           rows_of(op.d, s), rows_of(op.rhs, s), staged, rows_of(op.w, s));
      for (index_type i = 0; i < solved; ++i) op.x(s, i) = staged(i);
      if (op.status.data() != nullptr) op.status(s) = code;
    }
  };

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const Scratch scratch(member.team_scratch(level), static_cast<std::size_t>(BlockSize) * op.rows);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, BlockSize),
                         Neuron{*this, scratch, static_cast<index_type>(member.league_rank()) * BlockSize});
  }
};

/// Runs BranchParallelKernel<Where> on `systems` neurons (0 < systems <= INT_MAX). One neuron per
/// team: teams of `team_size` threads (0: 1 on host spaces; on a GPU as many as the widest level
/// has sections, at most 64, and for a staged kernel at least a warp, so that its copies
/// coalesce), at most what the kernel's registers allow. SeveralPerTeam: up to neurons_per_team
/// neurons per team, each on `team_size` vector lanes (algo::StagedBranchParallel).
template <Staging Where, bool SeveralPerTeam, class ExecSpace, class MemorySpace, class Operands>
void launch_branch_parallel(const ExecSpace& exec, const BranchSchedule<MemorySpace>& schedule, const Operands& op,
                            index_type systems, int team_size, int neurons_per_team, bool solve_padding,
                            const char* label) {
  using Flags = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using TeamKernel = BranchParallelKernel<BranchSchedule<MemorySpace>, Operands, Flags, Where, SeveralPerTeam>;
  const std::size_t bytes = TeamKernel::neuron_bytes(op.rows);
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const bool device = !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
  if constexpr (SeveralPerTeam) {
    int lanes = 1;
    for (const int wanted = std::min(32, team_size > 0 ? team_size : (device ? 8 : 1)); lanes * 2 <= wanted;) lanes *= 2;
    TeamKernel kernel{schedule, op, systems, std::max(1, neurons_per_team), solve_padding};
    Policy probe(exec, 1, 1, lanes);
    probe.set_scratch_size(0, Kokkos::PerTeam(kernel.neurons_per_team * bytes));
    kernel.neurons_per_team = std::min(kernel.neurons_per_team, probe.team_size_max(kernel, Kokkos::ParallelForTag()));
    const index_type league = (systems + kernel.neurons_per_team - 1) / kernel.neurons_per_team;
    auto policy = compat::light_weight(Policy(exec, static_cast<int>(league), kernel.neurons_per_team, lanes));
    policy.set_scratch_size(0, Kokkos::PerTeam(kernel.neurons_per_team * bytes));
    Kokkos::parallel_for(label, policy, kernel);
  } else {
    const TeamKernel kernel{schedule, op, systems, 1, solve_padding};
    int team = 1;
    if (device || team_size > 0) {
      Policy probe(exec, static_cast<int>(systems), 1);
      probe.set_scratch_size(0, Kokkos::PerTeam(bytes));
      index_type wanted = std::min<index_type>(64, std::max<index_type>(1, schedule.widest_level));
      if (Where != Staging::none) wanted = std::max<index_type>(32, wanted);
      if (team_size > 0) wanted = team_size;
      team = static_cast<int>(std::min<index_type>(wanted, probe.team_size_max(kernel, Kokkos::ParallelForTag())));
    }
    auto policy = compat::light_weight(Policy(exec, static_cast<int>(systems), team));
    policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
    Kokkos::parallel_for(label, policy, kernel);
  }
}

/// The caller's workspace after a shape check, or a fresh uninitialised one when none was given.
template <class W>
W workspace_for(const char* where, index_type systems, index_type rows, const W& given) {
  if (given.storage().data() != nullptr) {
    require(given.systems() == systems && given.rows() == rows, where, "workspace is ", given.systems(), " systems x ",
            given.rows(), " rows, the batch ", systems, " x ", rows);
    return given;
  }
  return allocate_uninitialized<W>("tridiag::hines::workspace", typename W::layout_type(systems, rows));
}
}  // namespace impl

/// The teams algo::SubtreeParallel with `options` runs `batch` with on `exec`, rhs of scalar
/// RhsScalar (subtree_team_plan.hpp: per-block groups; what perf reports print). Built on first
/// use and kept by the batch, as hines::solve uses it.
template <class RhsScalar, class ExecSpace, class MatrixScalar, class Layout, class MemorySpace>
const SubtreeTeamPlan<MemorySpace>& subtree_parallel_plan(const ExecSpace& exec,
                                                           const HinesBatch<MatrixScalar, Layout, MemorySpace>& batch,
                                                           const algo::SubtreeParallel& options = {}) {
  using TeamKernel = impl::SubtreeParallelSolveKernel<MatrixScalar, RhsScalar, Layout, MemorySpace>;
  TeamKernel kernel{{}, {}, {}, batch.systems(), impl::subtree_lanes<ExecSpace>(), options.solve_padding,
                    options.split_path > 0};
  return impl::subtree_parallel_plan(exec, batch, options, kernel);
}

namespace impl {
/// What hines::solve with algo::Automatic runs on `batch`: WarpStaged where `warp_staged` is not
/// null (its step tables), else `kernel` (automatic_algorithm's rule).
template <class MemorySpace>
struct AutomaticChoice {
  const WarpSteps<MemorySpace>* warp_staged = nullptr;
  Kernel kernel = Kernel::per_neuron;
  bool stage_coefficients = false;  ///< with Kernel::staged_branch_parallel: a and b staged too
};
template <class RhsScalar, class ExecSpace, class MatrixScalar, class Layout, class MemorySpace>
AutomaticChoice<MemorySpace> automatic_choice(const ExecSpace& exec,
                                              const HinesBatch<MatrixScalar, Layout, MemorySpace>& batch) {
  AutomaticChoice<MemorySpace> choice;
  if (automatic_warp_staged<Layout, MatrixScalar, RhsScalar>(batch.systems()))
    choice.warp_staged = warp_staged_tables<ExecSpace, RhsScalar>(batch);
  if (choice.warp_staged != nullptr) return choice;
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  const index_type systems = batch.systems(), rows = batch.rows();
  StagedAtOnce staged;  // asked of the GPU once per call
  if constexpr (std::is_same_v<Layout, layouts::Flat>) staged = staged_at_once<ExecSpace, Matrix, Value>(exec, rows);
  choice.kernel = automatic_kernel_on<Layout>(exec, systems, rows, batch.grouped_mix(), staged, batch.mean_rows());
  if (choice.kernel == Kernel::staged_branch_parallel)
    choice.stage_coefficients = automatic_stages_coefficients(systems, rows, staged);
  return choice;
}
}  // namespace impl

/// Whether hines::solve with `automatic` splits a trunk of `batch` on `exec` (it runs
/// SubtreeParallel there and some morphology's trunk is split, impl::automatic_subtree_parallel):
/// the results of such morphologies' neurons are then within rounding of PerNeuron's, not bitwise.
/// false on host spaces. Builds what the solve would build on first use (the plan).
template <class RhsScalar, class ExecSpace, class MatrixScalar, class Layout, class MemorySpace>
bool automatic_splits_trunks(const ExecSpace& exec, const HinesBatch<MatrixScalar, Layout, MemorySpace>& batch,
                             const algo::Automatic& automatic = {}) {
  if constexpr (impl::automatic_subtree_layout<Layout>()) {
    if (impl::automatic_choice<RhsScalar>(exec, batch).kernel == Kernel::subtree_parallel)
      return subtree_parallel_plan<RhsScalar>(exec, batch, impl::automatic_subtree_parallel(exec, automatic)).splits;
  }
  return false;
}

/// What hines::solve with `automatic` runs on `batch` on `exec` (rhs of scalar RhsScalar), named
/// as the benchmark names its rows (perf_tests/sweep_hines.cpp): the name() of the algo:: tag it
/// runs, with "_dr" where StagedBranchParallel stages d and rhs only and "_split" where
/// SubtreeParallel splits a trunk (automatic_splits_trunks). Builds what the solve would build on
/// first use (the plan, WarpStaged's step tables).
template <class RhsScalar, class ExecSpace, class MatrixScalar, class Layout, class MemorySpace>
std::string automatic_kernel_name(const ExecSpace& exec, const HinesBatch<MatrixScalar, Layout, MemorySpace>& batch,
                                  const algo::Automatic& automatic = {}) {
  const auto choice = impl::automatic_choice<RhsScalar>(exec, batch);
  if (choice.warp_staged != nullptr) return algo::WarpStaged::name();
  switch (choice.kernel) {
    case Kernel::subtree_parallel:
      return std::string(algo::SubtreeParallel::name()) +
             (automatic_splits_trunks<RhsScalar>(exec, batch, automatic) ? "_split" : "");
    case Kernel::staged_branch_parallel: {
      algo::StagedBranchParallel staged;
      staged.stage_coefficients = choice.stage_coefficients;
      switch (staged_branch_parallel_staging<ExecSpace, std::remove_const_t<MatrixScalar>, std::remove_const_t<RhsScalar>>(
          batch.rows(), staged)) {
        case Staging::all: return algo::StagedBranchParallel::name();
        case Staging::diagonal_and_rhs: return std::string(algo::StagedBranchParallel::name()) + "_dr";
        case Staging::none: return algo::BranchParallel::name();  // what the staged solve then runs
      }
      return algo::StagedBranchParallel::name();
    }
    case Kernel::branch_parallel:
      return algo::BranchParallel::name();
    case Kernel::per_neuron:
      break;
  }
  return algo::PerNeuron::name();
}

namespace impl {
/// Throws unless x (and the workspace, when given) can be written without changing the solve's
/// own inputs: x may be rhs itself (in place), nothing else it or the workspace overlaps. (a and
/// b may be one vector: both are only read.)
template <class Batch, class Rhs, class X, class W>
void check_no_aliasing(const char* where, const Batch& batch, const Rhs& rhs, const X& x, const W& workspace) {
  using tridiag::impl::require_apart;
  const auto check = [&](const char* name, const auto& written) {
    require_apart(where, name, written, "the matrix's a", batch.a());
    require_apart(where, name, written, "the matrix's b", batch.b());
    require_apart(where, name, written, "the matrix's d", batch.d());
  };
  check("x", x);
  tridiag::impl::require_in_place_or_apart(where, x, rhs);
  if (workspace.data() != nullptr) {
    check("the workspace", workspace);
    require_apart(where, "the workspace", workspace, "rhs", rhs);
    require_apart(where, "the workspace", workspace, "x", x);
  }
}
}  // namespace impl

/// Solves A x = rhs for every neuron of the batch (one thread per neuron, `algorithm` picks the
/// kernel; see the file comment). x may be the same BatchVector as rhs (in place); x's pad rows
/// get rhs / d (0 for batches from make_problem), or are left untouched, neither read nor
/// written, by the kernels whose option solve_padding is false (every algorithm but WarpStaged,
/// which runs on batches without pad rows).
/// `status` (optional, one int per neuron) gets each neuron's code (SerialHines::invoke); a failed
/// neuron's x is NaN on every row (on its real rows only without solve_padding), the others are
/// unaffected. `workspace` (optional, the batch's shape) avoids an allocation per call inside
/// a time loop (on CUDA, a solve without one also waits for the device when the allocation it
/// made is freed, as Kokkos's cudaFree does). a, b, d and rhs are never written (unless x is rhs).
/// Throws tridiag::invalid_argument, before writing anything, when rhs, x, status or workspace
/// do not match the batch, when x shares storage with a, b or d, or overlaps rhs without being
/// it, or the workspace shares storage with any of them, or (BlockShared) the block's scratch
/// exceeds what the space offers.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace,
          class Algorithm = algo::PerNeuron>
void solve(const ExecSpace& exec, const HinesBatch<MatrixScalar, Layout, MemorySpace>& batch,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {}, Workspace<MatrixScalar, Layout, MemorySpace> workspace = {},
           Algorithm algorithm = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "hines::solve: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "hines::solve";
  const auto& d = batch.d();
  require_same_shape(where, "rhs", rhs, "matrix", d);
  require_same_shape(where, "x", x, "matrix", d);
  tridiag::impl::check_status(where, status, batch.systems());
  impl::check_no_aliasing(where, batch, rhs, x, workspace);
  const index_type systems = batch.systems(), rows = batch.rows();
  using Value = std::remove_const_t<RhsScalar>;
  using Operands = impl::SolveOperands<MatrixScalar, RhsScalar, Layout, MemorySpace>;
  // After workspace_for: the kernels get the workspace the solve allocated or was given.
  auto operands = [&]() -> Operands {
    const auto& shapes = batch.morphologies();
    return {rows,      shapes.parent(), shapes.links(), shapes.sizes(), batch.morphology_of(), batch.a(),
            batch.b(), d,               rhs,            x,              workspace,             status};
  };
  (void)algorithm;  // a tag: its type chooses the kernel (the BranchParallel ones carry options)
  // algo::WarpStaged's launch with the tables impl::warp_staged_tables found (so that a solve
  // looks them up once), for it and for algo::Automatic. Reached on CUDA device spaces only.
  auto launch_warp_staged = [&](const auto& steps) {  // generic: compiled where called
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      // A failing neuron is solved again by SerialHines, which needs the workspace.
      workspace = impl::workspace_for(where, systems, rows, workspace);
      if (systems == 0) return;
      constexpr index_type per_team = impl::warp_staged_warps * impl::warp_staged_neurons;
      const index_type league = (systems + per_team - 1) / per_team;
      require(league <= INT_MAX, where, "batch of ", systems, " neurons exceeds the league size limit");
      using TeamKernel = impl::WarpStagedKernel<Operands, Kokkos::View<int*, MemorySpace>>;
      const TeamKernel kernel{operands(), steps.packed, steps.steps, static_cast<int>(rows), systems};
      auto policy = compat::light_weight(
          Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(league), 32 * impl::warp_staged_warps));
      policy.set_scratch_size(
          0, Kokkos::PerTeam(impl::warp_staged_scratch_bytes<typename TeamKernel::Matrix, typename TeamKernel::Value>(
                 rows, steps.steps)));
      Kokkos::parallel_for("tridiag::hines::solve_warp_staged", policy, kernel);
      return;
    }
#endif
    (void)steps;  // impl::warp_staged_tables gives none on other spaces
  };

  if constexpr (std::is_same_v<Algorithm, algo::Automatic>) {
    const auto choice = impl::automatic_choice<RhsScalar>(exec, batch);
    if (choice.warp_staged != nullptr) {
      launch_warp_staged(*choice.warp_staged);
      return;
    }
    const Kernel kernel = choice.kernel;
    if constexpr (impl::automatic_subtree_layout<Layout>()) {
      if (kernel == Kernel::subtree_parallel) {
        solve(exec, batch, rhs, x, status, workspace, impl::automatic_subtree_parallel(exec, algorithm));
        return;
      }
    }
    if (kernel == Kernel::staged_branch_parallel) {
      algo::StagedBranchParallel staged;
      staged.stage_coefficients = choice.stage_coefficients;
      staged.solve_padding = algorithm.solve_padding;
      solve(exec, batch, rhs, x, status, workspace, staged);
    } else if (kernel == Kernel::branch_parallel) {
      algo::BranchParallel branch;
      branch.solve_padding = algorithm.solve_padding;
      solve(exec, batch, rhs, x, status, workspace, branch);
    } else {
      solve(exec, batch, rhs, x, status, workspace, algo::PerNeuron{algorithm.solve_padding});
    }
  } else if constexpr (std::is_same_v<Algorithm, algo::BranchParallel>) {
    require(algorithm.team_size >= 0, where, "algo::BranchParallel::team_size = ", algorithm.team_size,
            " is negative (0: automatic)");
    require(systems <= INT_MAX, where, "batch of ", systems, " neurons exceeds the league size limit");
    workspace = impl::workspace_for(where, systems, rows, workspace);
    if (systems == 0) return;
    impl::launch_branch_parallel<Staging::none, false>(exec, batch.morphologies().branch_schedule(), operands(),
                                                       systems, algorithm.team_size, 1, algorithm.solve_padding,
                                                       "tridiag::hines::solve_branch_parallel");
  } else if constexpr (std::is_same_v<Algorithm, algo::StagedBranchParallel>) {
    require(algorithm.team_size >= 0, where, "algo::StagedBranchParallel::team_size = ", algorithm.team_size,
            " is negative (0: automatic)");
    require(algorithm.neurons_per_team >= 1, where, "algo::StagedBranchParallel::neurons_per_team = ",
            algorithm.neurons_per_team, " must be at least 1");
    using Matrix = std::remove_const_t<MatrixScalar>;
    const Staging staging = staged_branch_parallel_staging<ExecSpace, Matrix, Value>(rows, algorithm);
    if (staging == Staging::none) {
      solve(exec, batch, rhs, x, status, workspace, algo::BranchParallel{algorithm.team_size, algorithm.solve_padding});
      return;
    }
    require(systems <= INT_MAX, where, "batch of ", systems, " neurons exceeds the league size limit");
    // The sweeps run in scratch: no workspace is needed, but one given must fit the batch.
    if (workspace.storage().data() != nullptr) impl::workspace_for(where, systems, rows, workspace);
    if (systems == 0) return;
    const auto& schedule = batch.morphologies().branch_schedule();
    const int team = algorithm.team_size, neurons = algorithm.neurons_per_team;
    const bool pad = algorithm.solve_padding;
    constexpr const char* label = "tridiag::hines::solve_staged_branch_parallel";
    if (neurons > 1) {
      if (staging == Staging::all) {
        impl::launch_branch_parallel<Staging::all, true>(exec, schedule, operands(), systems, team, neurons, pad,
                                                         label);
      } else {
        impl::launch_branch_parallel<Staging::diagonal_and_rhs, true>(exec, schedule, operands(), systems, team,
                                                                      neurons, pad, label);
      }
    } else if (staging == Staging::all) {
      impl::launch_branch_parallel<Staging::all, false>(exec, schedule, operands(), systems, team, 1, pad, label);
    } else {
      impl::launch_branch_parallel<Staging::diagonal_and_rhs, false>(exec, schedule, operands(), systems, team, 1,
                                                                     pad, label);
    }
  } else if constexpr (std::is_same_v<Algorithm, algo::SubtreeParallel>) {
    require(algorithm.warps >= 0, where, "algo::SubtreeParallel::warps = ", algorithm.warps, " is negative");
    require(algorithm.split_path >= 0, where, "algo::SubtreeParallel::split_path = ", algorithm.split_path,
            " is negative");
    require(algorithm.split_max_neurons >= 0, where, "algo::SubtreeParallel::split_max_neurons = ",
            algorithm.split_max_neurons, " is negative");
    constexpr int lanes = impl::subtree_lanes<ExecSpace>();
    // (The league size limit is checked when the plan is built, before the launch.)
    workspace = impl::workspace_for(where, systems, rows, workspace);
    if (systems == 0) return;
    using Policy = impl::SubtreeParallelPolicy<ExecSpace>;
    using TeamKernel = impl::SubtreeParallelSolveKernel<MatrixScalar, RhsScalar, Layout, MemorySpace>;
    TeamKernel kernel{{}, {}, operands(), systems, lanes, algorithm.solve_padding, algorithm.split_path > 0};
    const auto& plan = impl::subtree_parallel_plan(exec, batch, algorithm, kernel);
    kernel.part = plan.cut;
    kernel.units = plan.units;
    kernel.split_trunks = plan.splits;  // the split's scratch and barriers only where some team splits
    auto policy = compat::light_weight(Policy(exec, plan.teams(), lanes * plan.team_groups));
    policy.set_scratch_size(0, Kokkos::PerTeam(TeamKernel::scratch_bytes(lanes, plan.team_groups, kernel.split_trunks)));
    Kokkos::parallel_for("tridiag::hines::solve_subtree_parallel", policy, kernel);
  } else if constexpr (std::is_same_v<Algorithm, algo::WarpStaged>) {
    if (const auto* tables = impl::warp_staged_tables<ExecSpace, RhsScalar>(batch)) {
      launch_warp_staged(*tables);
      return;
    }
    solve(exec, batch, rhs, x, status, workspace, algo::PerNeuron{});
  } else if constexpr (std::is_same_v<Algorithm, algo::PerNeuron>) {
    workspace = impl::workspace_for(where, systems, rows, workspace);
    if (systems == 0) return;
    const auto policy = compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, systems));
    if (algorithm.solve_padding)
      Kokkos::parallel_for("tridiag::hines::solve", policy, impl::PerNeuronKernel<Operands, true>{operands()});
    else
      Kokkos::parallel_for("tridiag::hines::solve", policy, impl::PerNeuronKernel<Operands, false>{operands()});
  } else {
    constexpr int BS = Algorithm::block_size;
    const std::size_t bytes = block_shared_scratch_bytes<BS, Value>(rows);
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const int level = bytes <= static_cast<std::size_t>(Policy::scratch_size_max(0)) ? 0 : 1;
    require(bytes <= static_cast<std::size_t>(Policy::scratch_size_max(level)), where, "a block of ", BS,
            " neurons of ", rows, " rows needs ", bytes, " bytes of team scratch, ", ExecSpace::name(), " offers ",
            Policy::scratch_size_max(level), ": use a smaller block or algo::PerNeuron");
    const index_type league = (systems + BS - 1) / BS;
    require(league <= INT_MAX, where, "batch of ", systems, " neurons exceeds the league size limit");
    workspace = impl::workspace_for(where, systems, rows, workspace);
    if (systems == 0) return;
    using Scratch = Kokkos::View<Value*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    const impl::BlockSharedKernel<BS, Scratch, Operands> kernel{systems, level, operands(), algorithm.solve_padding};
    // Host teams of one thread: the league alone keeps the cores busy (as cyclic::solve).
    int team = 1;
    if (!Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
      Policy probe(exec, static_cast<int>(league), 1);
      probe.set_scratch_size(level, Kokkos::PerTeam(bytes));
      team = std::min(BS, probe.team_size_max(kernel, Kokkos::ParallelForTag()));
    }
    auto policy = compat::light_weight(Policy(exec, static_cast<int>(league), team));
    policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
    Kokkos::parallel_for("tridiag::hines::solve_block_shared", policy, kernel);
  }
}

}  // namespace tridiag::hines

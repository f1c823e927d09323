#pragma once
// Which neurons each team of algo::SubtreeParallel solves, and with how many thread groups
// (subtree_parallel_kernel.hpp, hines_solve.hpp).
//
// Neurons go in blocks of `lanes` consecutive storage slots (32 on a GPU: lane l of each of a
// block's warps on the block's neuron l, so that interleaved accesses stay coalesced; 1 on host
// spaces). Every block gets its number of groups g (the partition it is cut with,
// subtree_partition.hpp): options.warps when given, else 1 on host spaces, and on a GPU
//   g = the largest power of two <= min(16, size / 24, max(4, size * budget / total)), at least 1
// with size the block's largest morphology (real rows), total the sum of size over the blocks and
// budget = the threads the device runs at once / (2 lanes) (4,224 warps on an H100): larger
// cells get more groups, so that their longest chain, which bounds how soon a batch finishes
// when it cannot fill the device, shrinks towards the smaller cells'; at least 24 rows per group
// (subtree_rows_per_group). Then that and the plans with the largest g halved, again and again
// down to min(2, size / 24) (subtree_min_auto_groups), are weighed by a model of their time
// (subtree_plan_makespan: teams in league order on the places the device has for them, each
// taking its largest block's rows / g^0.75, the speedup of more warps measured for one large cell
// on the H100, plus, where the kernel solves the pad rows, subtree_pad_row_cost times its most
// padded lane's pad rows / g); the fastest is taken. A second wave of teams costs little when it holds the small
// cells of a batch grouped by size, and doubles the time when it holds large ones. One-morphology
// batches get the same g everywhere: on an H100, 4 for 25,600 neurons of 107 to 4,035 rows, 2 for
// 33,792 (4 would need a second wave), 4 for 64,000 (three waves of 4 warps beat two of 2 in the
// model; BG001 measured 4 warps against 1 only), what the measurements chose
// (docs/performance.md); a mixed batch grouped by morphology (Grouping::by_morphology) more for
// its largest cells than for its smallest instead of one number fitted to the largest. (The rule
// before 2026-11-25 allowed no fewer than 64 rows per group and never halved below 4: cells under
// 256 rows got 1 or 2 warps at 25,600 neurons, 107 rows 0.158 ms against 0.108 with 4, and every
// cell 4 warps in two waves at 33,792, AA0013 5.44 ms against 4.26 with 2.)
//
// A team has `team_groups` groups (the largest g, within the space's team size limit), and takes
// a unit of consecutive blocks of one g: blocks = team_groups / min(g, team_groups) of them, each
// walked by min(g, team_groups) groups (a group walks several of the partition's groups in turn
// when fewer run than the partition has, subtree_parallel_kernel.hpp). Every result is the
// sequential sweep's, bitwise, whatever the plan.
//
// Split blocks: in a batch grouped by morphology whose groups are not multiples of `lanes`
// neurons, the block at each group boundary holds two (or more) morphologies, and its warps walk
// both trees one after the other (the lanes of a warp diverge): such a block took about as long as
// its two cells' blocks together and, started with the largest cells, set the end of the batch
// (H100, the six classes grouped, 25,600 neurons: 0.593 ms against 0.501 with the groups aligned to
// 32 neurons, whose teams' time ranges showed that block alone running past the others;
// docs/performance.md). Where at most one block in subtree_split_fraction is mixed (a grouped
// batch), each mixed block becomes one unit per morphology in it, largest first, each unit solving
// only its morphology's lanes with that morphology's g, a team to itself. Where more blocks are
// mixed (neurons of different cells interleaved, Grouping::none) the blocks stay whole: splitting
// every block would multiply the teams and leave each of them a few lanes of every line it reads.
//
// Built on the host once per batch and (lanes, options, budget, team size) (HinesBatch::
// subtree_plan, hines_batch.hpp) and copied to the device.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

#include <tridiag/algorithms/hines/branch_schedule.hpp>  // impl::upload_table
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::hines {

/// The columns of SubtreeTeamPlan::units, per team (league rank): its first block, its number of
/// blocks, their groups g, the first row of g's partition in `cut` (morphology m at partition_row
/// + m), that partition's levels, the morphology whose lanes it solves (-1: every lane; a split
/// block's units, see the file comment), and whether one of its lanes' morphologies has a split
/// trunk in that partition (split_trunk.hpp: only such teams take the split's barriers).
struct SubtreeUnitFields {
  enum : int { first_block, blocks, groups_per_neuron, partition_row, levels, morphology, split_trunk, fields };
};

template <class MemorySpace>
struct SubtreeTeamPlan : SubtreeUnitFields {
  Kokkos::View<int* [fields], Kokkos::LayoutRight, MemorySpace> units;  ///< SubtreeUnitFields' columns
  /// The partitions of `groups` stacked in one set of tables (subtree_partition.hpp; its groups
  /// and levels fields unused): a kernel then picks one with an offset rather than by choosing
  /// among several sets of Views, which would hold registers for the whole kernel.
  SubtreePartition<MemorySpace> cut;
  std::vector<int> groups;  ///< the distinct g, increasing
  int team_groups = 1;      ///< groups (warps on a GPU) per team
  bool splits = false;      ///< whether some team holds a split trunk (units' split_trunk column)
  int teams() const { return static_cast<int>(units.extent(0)); }
};

namespace impl {

/// The most groups the automatic rule gives a block: 16 warps per 32 neurons, one such team per
/// multiprocessor (resident_teams), pay where a large cell's blocks are too few to fill the GPU
/// (H100, double, docs/performance.md, 2026-11-26: AA0013 at 2,327 neurons 1.31 -> 1.14 ms, with
/// a split trunk 0.83 -> 0.57; big-high at 4,267 neurons, 134 blocks, needs a second wave with
/// them and keeps 8). (Earlier measurements of "16 groups" ran them on at most 9 warps per team,
/// the launch bounds of then, hines_solve.hpp, and found them no faster.)
constexpr int subtree_max_auto_groups = 16;

/// The fewest rows per group the automatic rule starts from (a block of a cell of `rows` rows gets
/// at most rows / subtree_rows_per_group groups), and the fewest groups the model may halve a
/// block down to (subtree_min_auto_groups, or fewer for a cell of fewer rows). Measured on the
/// H100 (double, docs/performance.md): cells of 107 to 309 rows, 25,600 neurons, 4 warps per
/// block fastest (107 rows: 0.110 ms, 1 warp 0.156); 33,792 neurons, 2 (4 warps need a second
/// wave: 0.172 ms against 0.134); BG001 at 64,000 neurons 4 warps rather than 1.
constexpr int subtree_rows_per_group = 24;
constexpr int subtree_min_auto_groups = 2;

/// Mixed blocks are split (see the file comment) when at most one block in this many is mixed.
constexpr index_type subtree_split_fraction = 8;

/// Whether `mixed` of `blocks` blocks holding more than one morphology is few enough for a
/// grouped batch (subtree_split_fraction).
constexpr bool few_mixed_blocks(index_type mixed, index_type blocks) {
  return mixed * subtree_split_fraction <= blocks;
}

/// Whether neurons with morphology ids[s] (ids empty: one morphology) are several morphologies
/// stored grouped: blocks of `lanes` consecutive neurons, at least two of them, of which at most
/// one in subtree_split_fraction holds more than one morphology, and some block another
/// morphology than the first (HinesBatch::grouped_mix).
inline bool grouped_by_morphology(const std::vector<int>& ids, index_type systems, int lanes = 32) {
  if (ids.empty() || systems <= lanes) return false;
  const index_type block_count = (systems + lanes - 1) / lanes;
  index_type mixed = 0;
  bool several = false;
  for (index_type b = 0; b < block_count; ++b) {
    const index_type first = b * lanes, end = std::min(systems, first + lanes);
    bool block_mixed = false;
    for (index_type s = first + 1; s < end; ++s)
      block_mixed = block_mixed || ids[static_cast<std::size_t>(s)] != ids[static_cast<std::size_t>(first)];
    mixed += block_mixed;
    several = several || block_mixed || ids[static_cast<std::size_t>(first)] != ids[0];
  }
  return several && few_mixed_blocks(mixed, block_count);
}

/// What a unit of the plan is built from: a block, or the lanes of one morphology of a split block.
struct SubtreePiece {
  index_type block;
  int morphology;  ///< -1: every lane of the block
  index_type rows;  ///< the largest real rows among its lanes' morphologies
  /// The most pad rows among its lanes where they are solved (padded_rows of subtree_pieces minus
  /// the smallest real rows), else 0.
  index_type pad_rows = 0;
};

/// The plan's pieces for `systems` neurons in blocks of `lanes` (ids empty: morphology 0 for
/// every neuron), mixed blocks split where the batch is grouped (see the file comment).
/// padded_rows: the batch's rows where its pad rows are solved (algo::SubtreeParallel::
/// solve_padding), else 0.
inline std::vector<SubtreePiece> subtree_pieces(const std::vector<int>& ids, const std::vector<int>& morphology_rows,
                                                index_type systems, int lanes, index_type padded_rows = 0) {
  const index_type block_count = (systems + lanes - 1) / lanes;
  std::vector<SubtreePiece> pieces;
  std::vector<std::vector<int>> members(static_cast<std::size_t>(block_count));  // distinct morphologies per block
  index_type mixed = 0;
  for (index_type b = 0; b < block_count; ++b) {
    auto& m = members[static_cast<std::size_t>(b)];
    for (index_type s = b * lanes; s < std::min(systems, (b + 1) * lanes); ++s) {
      const int id = ids.empty() ? 0 : ids[static_cast<std::size_t>(s)];
      if (std::find(m.begin(), m.end(), id) == m.end()) m.push_back(id);
    }
    mixed += m.size() > 1;
  }
  const bool split = mixed > 0 && few_mixed_blocks(mixed, block_count);
  const auto rows_of = [&](int id) { return static_cast<index_type>(morphology_rows[static_cast<std::size_t>(id)]); };
  const auto pads_of = [&](index_type rows) { return padded_rows > rows ? padded_rows - rows : index_type(0); };
  for (index_type b = 0; b < block_count; ++b) {
    auto& m = members[static_cast<std::size_t>(b)];
    if (split && m.size() > 1) {
      std::stable_sort(m.begin(), m.end(), [&](int u, int v) { return rows_of(u) > rows_of(v); });
      for (int id : m) pieces.push_back({b, id, rows_of(id), pads_of(rows_of(id))});
    } else {
      index_type rows = 0, fewest = padded_rows;
      for (int id : m) {
        rows = std::max(rows, rows_of(id));
        fewest = std::min(fewest, rows_of(id));
      }
      pieces.push_back({b, -1, rows, pads_of(fewest)});
    }
  }
  return pieces;
}

/// Teams of `team_groups` warps a GPU holds at once, for budget_groups = its threads / 64: the
/// kernel takes at most 72 registers (hines_solve.hpp), 28 warps per multiprocessor of 64K
/// registers and 2,048 threads (budget_groups / 32 multiprocessors).
constexpr index_type resident_teams(index_type budget_groups, int team_groups) {
  return (budget_groups / 32) * std::max(1, 28 / team_groups);
}

/// Largest power of two <= x (x >= 1).
constexpr int power_of_two_floor(index_type x) {
  int p = 1;
  while (2 * static_cast<index_type>(p) <= x) p *= 2;
  return p;
}

/// g for each piece (a block or part of one, subtree_pieces), before the fit (see the file comment).
inline std::vector<int> subtree_piece_groups(const std::vector<SubtreePiece>& pieces, int warps, bool gpu,
                                             index_type budget_groups) {
  std::vector<int> g(pieces.size(), 1);
  if (warps > 0) {
    std::fill(g.begin(), g.end(), warps);
    return g;
  }
  if (!gpu) return g;
  double total = 0;
  for (const SubtreePiece& piece : pieces) total += static_cast<double>(piece.rows);
  if (!(total > 0)) return g;
  for (std::size_t b = 0; b < pieces.size(); ++b) {
    const index_type r = pieces[b].rows;
    const index_type share = static_cast<index_type>(static_cast<double>(r) * static_cast<double>(budget_groups) / total);
    const index_type cap =
        std::min<index_type>({subtree_max_auto_groups, r / subtree_rows_per_group, std::max<index_type>(4, share)});
    g[b] = power_of_two_floor(std::max<index_type>(1, cap));
  }
  return g;
}

/// The teams' units (first block, blocks, g, morphology) for per-piece groups g and team_groups
/// per team: consecutive whole blocks of one g share a team; a split block's piece has one.
inline std::vector<std::array<int, 4>> subtree_team_units(const std::vector<int>& g,
                                                          const std::vector<SubtreePiece>& pieces, int team_groups) {
  std::vector<std::array<int, 4>> units;
  const int count_of_pieces = static_cast<int>(g.size());
  for (int k = 0; k < count_of_pieces;) {
    const SubtreePiece& piece = pieces[static_cast<std::size_t>(k)];
    const int per_team = piece.morphology >= 0 ? 1 : std::max(1, team_groups / std::min(g[k], team_groups));
    int count = 1;
    while (count < per_team && k + count < count_of_pieces && g[k + count] == g[k] &&
           pieces[static_cast<std::size_t>(k + count)].morphology < 0)
      ++count;
    units.push_back({static_cast<int>(piece.block), count, g[k], piece.morphology});
    k += count;
  }
  return units;
}

/// Partitions (one per number of groups, each of `count` morphologies) stacked row-wise in one
/// set of tables: morphology m's rows from parts[q][1] (its trunk split where its path is long
/// enough) where split[m], else from parts[q][0] (the two differ only in their trunks).
template <class MemorySpace>
SubtreePartition<MemorySpace> stack_subtree_partitions(
    const std::vector<std::array<const SubtreePartition<MemorySpace>*, 2>>& parts, const std::vector<char>& split,
    index_type count) {
  using Partition = SubtreePartition<MemorySpace>;
  std::vector<std::vector<int>> run_begin, runs, trunk;
  Partition stacked;
  stacked.trunk_size = typename Partition::column("tridiag::hines::subtree_plan_trunk_size", parts.size() * count);
  auto trunk_size = Kokkos::create_mirror_view(stacked.trunk_size);
  index_type row = 0;
  for (const auto& pair : parts) {
    const auto h_begin = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pair[0]->run_begin);
    const auto h_runs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pair[0]->runs);
    std::array<decltype(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pair[0]->trunk)), 2> h_trunk;
    std::array<decltype(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pair[0]->trunk_size)), 2> h_size;
    for (int k = 0; k < 2; ++k) {
      h_trunk[k] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pair[k]->trunk);
      h_size[k] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pair[k]->trunk_size);
    }
    for (index_type m = 0; m < count; ++m, ++row) {
      const int k = split[static_cast<std::size_t>(m)] ? 1 : 0;
      run_begin.emplace_back(&h_begin(m, 0), &h_begin(m, 0) + h_begin.extent(1));
      runs.emplace_back(&h_runs(m, 0), &h_runs(m, 0) + h_runs.extent(1));
      trunk.emplace_back(&h_trunk[k](m, 0), &h_trunk[k](m, 0) + h_trunk[k].extent(1));
      trunk_size(row) = h_size[k](m);
    }
  }
  Kokkos::deep_copy(stacked.trunk_size, trunk_size);
  using Table = typename Partition::table;
  stacked.run_begin = upload_table<Table>("tridiag::hines::subtree_plan_run_begin", run_begin);
  stacked.runs = upload_table<Table>("tridiag::hines::subtree_plan_runs", runs);
  stacked.trunk = upload_table<Table>("tridiag::hines::subtree_plan_trunk", trunk);
  return stacked;
}

/// A solved pad row's cost in subtree_plan_makespan, in rows of the chain: one pass (x = rhs / d,
/// the rows of a group 4 at a time) where a real row takes two, the elimination and the
/// substitution; and shared among the groups evenly, without the chain's g^0.75. Without it the
/// model gave a grouped mix with its pad rows solved 16 warps per block where they were 19%
/// slower (the 11 shared cells, 10,000 neurons: 1.21 against 1.01 ms); with 1 instead of 0.5 it
/// took 4 for the 11 cells at 25,600 neurons, 11% slower than 8 (H100, double,
/// docs/performance.md, 2026-11-26).
constexpr double subtree_pad_row_cost = 0.5;

/// subtree_plan_makespan's model of a plan's time (see the file comment), in rows.
inline double subtree_plan_makespan(const std::vector<int>& g, const std::vector<SubtreePiece>& pieces,
                                    int team_groups, index_type budget_groups) {
  const index_type places = std::max<index_type>(1, resident_teams(budget_groups, team_groups));
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;  // places' finish times
  double end = 0;
  std::size_t piece = 0;  // the units come in the pieces' order, unit[1] pieces each
  for (const auto& unit : subtree_team_units(g, pieces, team_groups)) {
    const double groups = static_cast<double>(unit[2]);
    double time = 0;  // its slowest block's: the chain's rows, then its share of the pad rows
    for (int k = 0; k < unit[1]; ++k, ++piece)
      time = std::max(time, static_cast<double>(pieces[piece].rows) / std::pow(groups, 0.75) +
                                subtree_pad_row_cost * static_cast<double>(pieces[piece].pad_rows) / groups);
    const double start = static_cast<index_type>(free_at.size()) < places ? 0.0 : free_at.top();
    if (static_cast<index_type>(free_at.size()) >= places) free_at.pop();
    const double finish = start + time;
    free_at.push(finish);
    end = std::max(end, finish);
  }
  return end;
}

/// The plan for `systems` neurons whose morphology sizes (real rows) are morphology_rows[id(s)]
/// (ids empty: morphology 0 for every neuron). team_groups_limit: the most groups a team may run
/// (the space's team size limit over lanes). partition_for(g, split): the morphologies' partition
/// for g groups (Morphologies::subtree_partition), with its long trunk paths split where `split`
/// (and algo::SubtreeParallel::split_path > 0); a morphology's split one is taken where the batch
/// has at most split_max_neurons of its neurons (0: no limit; SubtreeParallel::split_max_neurons).
/// padded_rows: the batch's rows where the kernel solves the pad rows (subtree_pieces), else 0.
template <class MemorySpace, class PartitionFor>
SubtreeTeamPlan<MemorySpace> make_subtree_team_plan(const std::vector<int>& ids, const std::vector<int>& morphology_rows,
                                                    index_type systems, int lanes, int warps, bool gpu,
                                                    index_type budget_groups, int team_groups_limit,
                                                    index_type split_max_neurons, const PartitionFor& partition_for,
                                                    index_type padded_rows = 0) {
  using Plan = SubtreeTeamPlan<MemorySpace>;
  const index_type block_count = (systems + lanes - 1) / lanes;
  require(block_count <= INT_MAX, "hines::solve", "batch of ", systems, " neurons exceeds the league size limit");
  const std::vector<SubtreePiece> pieces = subtree_pieces(ids, morphology_rows, systems, lanes, padded_rows);
  std::vector<int> g = subtree_piece_groups(pieces, warps, gpu, budget_groups);
  Plan plan;
  const int largest = g.empty() ? 1 : *std::max_element(g.begin(), g.end());
  plan.team_groups = std::max(1, std::min(largest, team_groups_limit));
  if (warps == 0 && gpu) {  // the halvings, weighed by the model
    std::vector<int> candidate = g;
    double best = subtree_plan_makespan(candidate, pieces, plan.team_groups, budget_groups);
    for (int top = largest; top > 1; top /= 2) {
      bool halved = false;
      for (std::size_t b = 0; b < candidate.size(); ++b) {
        const int floor = power_of_two_floor(std::min<index_type>(
            subtree_min_auto_groups, std::max<index_type>(1, pieces[b].rows / subtree_rows_per_group)));
        if (candidate[b] == top && top / 2 >= floor) {
          candidate[b] /= 2;
          halved = true;
        }
      }
      if (!halved) break;
      const int now = *std::max_element(candidate.begin(), candidate.end());
      const int team = std::max(1, std::min(now, team_groups_limit));
      const double time = subtree_plan_makespan(candidate, pieces, team, budget_groups);
      if (time < best) {
        best = time;
        g = candidate;
        plan.team_groups = team;
      }
      top = now * 2;  // the loop halves it back
    }
  }
  plan.groups = g;
  std::sort(plan.groups.begin(), plan.groups.end());
  plan.groups.erase(std::unique(plan.groups.begin(), plan.groups.end()), plan.groups.end());
  const index_type count = static_cast<index_type>(morphology_rows.size());
  std::vector<index_type> neurons_of(static_cast<std::size_t>(count), 0);
  if (ids.empty() && count > 0) neurons_of[0] = systems;
  for (int id : ids) ++neurons_of[static_cast<std::size_t>(id)];
  std::vector<char> split(static_cast<std::size_t>(count));
  for (index_type m = 0; m < count; ++m)
    split[static_cast<std::size_t>(m)] = split_max_neurons == 0 || neurons_of[static_cast<std::size_t>(m)] <= split_max_neurons;
  // The split partitions only where some morphology may take them (they are built on first use).
  const bool any_split = std::find(split.begin(), split.end(), char(1)) != split.end();
  std::vector<std::array<const SubtreePartition<MemorySpace>*, 2>> pairs;
  for (int groups : plan.groups) {
    const SubtreePartition<MemorySpace>* plain = &partition_for(groups, false);
    pairs.push_back({plain, any_split ? &partition_for(groups, true) : plain});
  }
  plan.cut = stack_subtree_partitions<MemorySpace>(pairs, split, count);
  const auto units = subtree_team_units(g, pieces, plan.team_groups);
  plan.units = decltype(plan.units)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::subtree_units"),
                                    units.size());
  auto host = Kokkos::create_mirror_view(plan.units);
  // Which morphologies have a split trunk in each stacked partition.
  const auto stacked_sizes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.cut.trunk_size);
  std::vector<std::vector<int>> split_in(pairs.size());
  for (std::size_t q = 0; q < pairs.size(); ++q)
    for (index_type m = 0; m < count; ++m)
      split_in[q].push_back(stacked_sizes(static_cast<index_type>(q) * count + m) == split_trunk_marker);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const int groups = units[u][2];
    const std::size_t q = static_cast<std::size_t>(
        std::lower_bound(plan.groups.begin(), plan.groups.end(), groups) - plan.groups.begin());
    host(u, Plan::first_block) = units[u][0];
    host(u, Plan::blocks) = units[u][1];
    host(u, Plan::groups_per_neuron) = groups;
    host(u, Plan::partition_row) = static_cast<int>(q * count);
    host(u, Plan::levels) = pairs[q][0]->levels;
    host(u, Plan::morphology) = units[u][3];
    int splits = 0;
    const index_type first_slot = static_cast<index_type>(units[u][0]) * lanes;
    const index_type end_slot = std::min(systems, first_slot + static_cast<index_type>(units[u][1]) * lanes);
    for (index_type slot = first_slot; slot < end_slot && !splits; ++slot) {
      const int id = ids.empty() ? 0 : ids[static_cast<std::size_t>(slot)];
      if (units[u][3] < 0 || units[u][3] == id) splits = split_in[q][static_cast<std::size_t>(id)];
    }
    host(u, Plan::split_trunk) = splits;
    plan.splits = plan.splits || splits != 0;
  }
  Kokkos::deep_copy(plan.units, host);
  return plan;
}

}  // namespace impl
}  // namespace tridiag::hines

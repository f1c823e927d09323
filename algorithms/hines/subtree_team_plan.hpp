#pragma once
// Which neurons each team of algo::SubtreeParallel solves, and with how many thread groups
// (subtree_parallel_kernel.hpp, hines_solve.hpp).
//
// Neurons go in blocks of `lanes` consecutive storage slots (32 on a GPU: lane l of each of a
// block's warps on the block's neuron l, so that interleaved accesses stay coalesced; 1 on host
// spaces). Every block gets its number of groups g (the partition it is cut with,
// subtree_partition.hpp): options.warps when given, else 1 on host spaces, and on a GPU
//   g = the largest power of two <= min(8, size / 24, max(4, size * budget / total)), at least 1
// with size the block's largest morphology (real rows), total the sum of size over the blocks and
// budget = the threads the device runs at once / (2 lanes) (4,224 warps on an H100): larger
// cells get more groups, so that their longest chain, which bounds how soon a batch finishes
// when it cannot fill the device, shrinks towards the smaller cells'; at least 24 rows per group
// (subtree_rows_per_group). Then that and the plans with the largest g halved, again and again
// down to min(2, size / 24) (subtree_min_auto_groups), are weighed by a model of their time
// (subtree_plan_makespan: teams in league order on the places the device has for them, each
// taking its largest block's rows / g^0.75, the speedup of more warps measured for one large cell
// on the H100); the fastest is taken. A second wave of teams costs little when it holds the small
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
/// + m) and that partition's levels.
struct SubtreeUnitFields {
  enum : int { first_block, blocks, groups_per_neuron, partition_row, levels, fields };
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
  int teams() const { return static_cast<int>(units.extent(0)); }
};

namespace impl {

/// The most groups the automatic rule gives a block (16 warps per 32 neurons lost to barriers and
/// idle warps in every measurement, docs/performance.md).
constexpr int subtree_max_auto_groups = 8;

/// The fewest rows per group the automatic rule starts from (a block of a cell of `rows` rows gets
/// at most rows / subtree_rows_per_group groups), and the fewest groups the model may halve a
/// block down to (subtree_min_auto_groups, or fewer for a cell of fewer rows). Measured on the
/// H100 (double, docs/performance.md): cells of 107 to 309 rows, 25,600 neurons, 4 warps per
/// block fastest (107 rows: 0.110 ms, 1 warp 0.156); 33,792 neurons, 2 (4 warps need a second
/// wave: 0.172 ms against 0.134); BG001 at 64,000 neurons 4 warps rather than 1.
constexpr int subtree_rows_per_group = 24;
constexpr int subtree_min_auto_groups = 2;

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

/// g for each block of sizes block_rows, before the fit (see the file comment).
inline std::vector<int> subtree_block_groups(const std::vector<index_type>& block_rows, int warps, bool gpu,
                                             index_type budget_groups) {
  std::vector<int> g(block_rows.size(), 1);
  if (warps > 0) {
    std::fill(g.begin(), g.end(), warps);
    return g;
  }
  if (!gpu) return g;
  double total = 0;
  for (index_type r : block_rows) total += static_cast<double>(r);
  if (!(total > 0)) return g;
  for (std::size_t b = 0; b < block_rows.size(); ++b) {
    const index_type r = block_rows[b];
    const index_type share = static_cast<index_type>(static_cast<double>(r) * static_cast<double>(budget_groups) / total);
    const index_type cap =
        std::min<index_type>({subtree_max_auto_groups, r / subtree_rows_per_group, std::max<index_type>(4, share)});
    g[b] = power_of_two_floor(std::max<index_type>(1, cap));
  }
  return g;
}

/// The teams' units (first block, blocks, g) for per-block groups g and team_groups per team.
inline std::vector<std::array<int, 3>> subtree_team_units(const std::vector<int>& g, int team_groups) {
  std::vector<std::array<int, 3>> units;
  const int blocks = static_cast<int>(g.size());
  for (int b = 0; b < blocks;) {
    const int per_team = std::max(1, team_groups / std::min(g[b], team_groups));
    int count = 1;
    while (count < per_team && b + count < blocks && g[b + count] == g[b]) ++count;
    units.push_back({b, count, g[b]});
    b += count;
  }
  return units;
}

/// Partitions (one per number of groups, each of `count` morphologies) stacked row-wise in one
/// set of tables.
template <class MemorySpace>
SubtreePartition<MemorySpace> stack_subtree_partitions(const std::vector<const SubtreePartition<MemorySpace>*>& parts,
                                                       index_type count) {
  using Partition = SubtreePartition<MemorySpace>;
  std::vector<std::vector<int>> run_begin, runs, trunk;
  Partition stacked;
  stacked.trunk_size = typename Partition::column("tridiag::hines::subtree_plan_trunk_size", parts.size() * count);
  auto trunk_size = Kokkos::create_mirror_view(stacked.trunk_size);
  index_type row = 0;
  for (const Partition* p : parts) {
    const auto h_begin = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p->run_begin);
    const auto h_runs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p->runs);
    const auto h_trunk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p->trunk);
    const auto h_size = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p->trunk_size);
    for (index_type m = 0; m < count; ++m, ++row) {
      run_begin.emplace_back(&h_begin(m, 0), &h_begin(m, 0) + h_begin.extent(1));
      runs.emplace_back(&h_runs(m, 0), &h_runs(m, 0) + h_runs.extent(1));
      trunk.emplace_back(&h_trunk(m, 0), &h_trunk(m, 0) + h_trunk.extent(1));
      trunk_size(row) = h_size(m);
    }
  }
  Kokkos::deep_copy(stacked.trunk_size, trunk_size);
  using Table = typename Partition::table;
  stacked.run_begin = upload_table<Table>("tridiag::hines::subtree_plan_run_begin", run_begin);
  stacked.runs = upload_table<Table>("tridiag::hines::subtree_plan_runs", runs);
  stacked.trunk = upload_table<Table>("tridiag::hines::subtree_plan_trunk", trunk);
  return stacked;
}

/// subtree_plan_makespan's model of a plan's time (see the file comment), in rows.
inline double subtree_plan_makespan(const std::vector<int>& g, const std::vector<index_type>& block_rows,
                                    int team_groups, index_type budget_groups) {
  const index_type places = std::max<index_type>(1, resident_teams(budget_groups, team_groups));
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;  // places' finish times
  double end = 0;
  for (const auto& unit : subtree_team_units(g, team_groups)) {
    double rows = 0;
    for (int b = unit[0]; b < unit[0] + unit[1]; ++b) rows = std::max(rows, static_cast<double>(block_rows[b]));
    const double start = static_cast<index_type>(free_at.size()) < places ? 0.0 : free_at.top();
    if (static_cast<index_type>(free_at.size()) >= places) free_at.pop();
    const double finish = start + rows / std::pow(static_cast<double>(unit[2]), 0.75);
    free_at.push(finish);
    end = std::max(end, finish);
  }
  return end;
}

/// The plan for `systems` neurons whose morphology sizes (real rows) are morphology_rows[id(s)]
/// (ids empty: morphology 0 for every neuron). team_groups_limit: the most groups a team may run
/// (the space's team size limit over lanes). partition_for(g): the morphologies' partition for g
/// groups (Morphologies::subtree_partition).
template <class MemorySpace, class PartitionFor>
SubtreeTeamPlan<MemorySpace> make_subtree_team_plan(const std::vector<int>& ids, const std::vector<int>& morphology_rows,
                                                    index_type systems, int lanes, int warps, bool gpu,
                                                    index_type budget_groups, int team_groups_limit,
                                                    const PartitionFor& partition_for) {
  using Plan = SubtreeTeamPlan<MemorySpace>;
  const index_type block_count = (systems + lanes - 1) / lanes;
  require(block_count <= INT_MAX, "hines::solve", "batch of ", systems, " neurons exceeds the league size limit");
  std::vector<index_type> block_rows(static_cast<std::size_t>(block_count), 0);
  for (index_type s = 0; s < systems; ++s) {
    const int m = ids.empty() ? 0 : ids[static_cast<std::size_t>(s)];
    index_type& r = block_rows[static_cast<std::size_t>(s / lanes)];
    r = std::max<index_type>(r, morphology_rows[static_cast<std::size_t>(m)]);
  }
  std::vector<int> g = subtree_block_groups(block_rows, warps, gpu, budget_groups);
  Plan plan;
  const int largest = g.empty() ? 1 : *std::max_element(g.begin(), g.end());
  plan.team_groups = std::max(1, std::min(largest, team_groups_limit));
  if (warps == 0 && gpu) {  // the halvings, weighed by the model
    std::vector<int> candidate = g;
    double best = subtree_plan_makespan(candidate, block_rows, plan.team_groups, budget_groups);
    for (int top = largest; top > 1; top /= 2) {
      bool halved = false;
      for (std::size_t b = 0; b < candidate.size(); ++b) {
        const int floor = power_of_two_floor(std::min<index_type>(
            subtree_min_auto_groups, std::max<index_type>(1, block_rows[b] / subtree_rows_per_group)));
        if (candidate[b] == top && top / 2 >= floor) {
          candidate[b] /= 2;
          halved = true;
        }
      }
      if (!halved) break;
      const int now = *std::max_element(candidate.begin(), candidate.end());
      const int team = std::max(1, std::min(now, team_groups_limit));
      const double time = subtree_plan_makespan(candidate, block_rows, team, budget_groups);
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
  std::vector<const SubtreePartition<MemorySpace>*> parts;
  for (int groups : plan.groups) parts.push_back(&partition_for(groups));
  const index_type count = static_cast<index_type>(morphology_rows.size());
  plan.cut = stack_subtree_partitions<MemorySpace>(parts, count);
  const auto units = subtree_team_units(g, plan.team_groups);
  plan.units = decltype(plan.units)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::subtree_units"),
                                    units.size());
  auto host = Kokkos::create_mirror_view(plan.units);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const int groups = units[u][2];
    const std::size_t q = static_cast<std::size_t>(
        std::lower_bound(plan.groups.begin(), plan.groups.end(), groups) - plan.groups.begin());
    host(u, Plan::first_block) = units[u][0];
    host(u, Plan::blocks) = units[u][1];
    host(u, Plan::groups_per_neuron) = groups;
    host(u, Plan::partition_row) = static_cast<int>(q * count);
    host(u, Plan::levels) = parts[q]->levels;
  }
  Kokkos::deep_copy(plan.units, host);
  return plan;
}

}  // namespace impl
}  // namespace tridiag::hines

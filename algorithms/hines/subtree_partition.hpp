#pragma once
// How algo::SubtreeParallel (hines_solve.hpp, subtree_parallel_kernel.hpp) shares one neuron
// among `groups` thread groups: the tree cut, level after level, into disjoint subtrees small
// enough that the groups eliminate them at the same time, and what is left at the end, the
// "trunk", which one group then finishes.
//
// One level, on the rows not eliminated yet (level 0: all n rows; they always form a tree, or a
// forest, closed under parent), size(v) = rows of the subtree of v among them (v included),
// target = ceil(rows / groups):
//   cut root   a row v with size(v) <= target whose parent is a root's (-1) or has
//              size(parent) > target: the largest subtrees of at most `target` rows. Their
//              subtrees are disjoint, and every row is in one of them or above one;
//   eliminated the rows of the cut subtrees except their roots, dealt out to the groups by
//              subtree so that each gets about the same number of rows (largest subtree first, to
//              the group with the fewest rows so far): every such row's parent is in the same
//              subtree, and all children of a row are eliminated in one group, or none of them;
//   left       the cut roots and the rows above them (size > target): the next level's tree.
// Levels go on while one more pays: while its largest group plus what it leaves is shorter than
// what is left now by more than a level's barriers (`level_cost` rows), at most `max_levels`.
// Then the trunk (the rows left, increasing) is eliminated (last row first) and substituted
// (first row first) by one group. A path only loses its last `target` rows per level, so the
// longest root-to-leaf path bounds what levels can do.
// Every row's children are reduced by one group in one level (or all in the trunk), in
// decreasing order, as the sequential sweep does: the same bits.
// A group walks its rows of a level as maximal runs of consecutive rows, in decreasing order for
// the elimination and increasing order for the substitution. In a depth-first numbering (SWC
// files, the discretisation) a subtree is the range [v, v + size(v)), so a cut subtree is one
// run (less its root); any other Hines numbering works too, in more runs. Rows n..rows-1
// (padding of a mixed batch) are in no list.
//
// Built on the host, lazily, once per Morphologies, number of groups and split_path
// (Morphologies::subtree_partition, hines_batch.hpp), and copied to the device. Per morphology m
// (row-major Views, padded to the largest morphology), slot = level * groups + group:
//   run_begin(m, slot)  the slot's runs are runs(m, 2 j), runs(m, 2 j + 1) = first, last row, for
//                       run_begin(m, slot) <= j < run_begin(m, slot + 1), in decreasing row order
//                       (levels past a morphology's own are empty)
//   trunk(m, j)         the trunk, 0 <= j < trunk_size(m), increasing; or, where split_path > 0
//                       and the trunk's longest path has at least split_path rows, the split
//                       trunk's table (split_trunk.hpp) with trunk_size(m) = split_trunk_marker

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <tridiag/algorithms/hines/branch_schedule.hpp>  // impl::upload_table
#include <tridiag/algorithms/hines/split_trunk.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::hines {

template <class MemorySpace>
struct SubtreePartition {
  using table = Kokkos::View<int**, Kokkos::LayoutRight, MemorySpace>;
  using column = Kokkos::View<int*, MemorySpace>;
  int groups = 0;
  int levels = 0;  ///< the most levels of a morphology: the kernel's loops (and barriers)
  table run_begin, runs, trunk;
  column trunk_size;
  index_type longest_trunk = 0;  ///< the most trunk rows of a morphology (what one group walks alone)
  /// The longest chain of a morphology: per level its largest group, then its trunk (rows walked
  /// one after another between barriers, each sweep).
  index_type critical_rows = 0;
};

namespace impl {

/// The cut of one tree (see the file comment) on the host.
struct TreePartition {
  int levels = 0;
  std::vector<int> trunk;                                  ///< increasing
  std::vector<std::vector<std::pair<int, int>>> runs;      ///< per slot (level * groups + group):
                                                           ///< (first, last), decreasing
  index_type critical_rows = 0;                            ///< sum over levels of the largest group, plus the trunk
};

/// A level's cost in rows beyond its largest group (its barriers, two per sweep), and the most
/// levels: what partition_tree weighs a further level against.
constexpr index_type level_cost = 8;
constexpr int max_levels = 16;

/// One level of the cut of the rows with alive[i] (see the file comment): per group the rows it
/// eliminates, as runs, and the largest group's rows; clears alive[] of the eliminated rows.
inline index_type cut_level(const int* parent, index_type n, int groups, std::vector<char>& alive,
                            std::vector<std::vector<std::pair<int, int>>>& runs) {
  runs.assign(static_cast<std::size_t>(groups), {});
  index_type count = 0;
  std::vector<index_type> size(static_cast<std::size_t>(n), 0);
  for (index_type i = 0; i < n; ++i) count += alive[i] ? 1 : 0;
  for (index_type i = n - 1; i >= 0; --i)
    if (alive[i]) {
      size[i] += 1;
      if (parent[i] >= 0) size[parent[i]] += size[i];  // a live row's parent is live
    }
  const index_type target = (count + groups - 1) / groups;
  // cut_root_of[i]: the cut root whose subtree holds i, or -1 for a row left for the next level.
  std::vector<int> cut_root_of(static_cast<std::size_t>(n), -1);
  std::vector<int> cut_roots;
  std::vector<index_type> load;  // rows of each cut subtree less its root
  for (index_type i = 0; i < n; ++i) {
    if (!alive[i]) continue;
    const int p = parent[i];
    if (size[i] > target) continue;
    if (p < 0 || size[p] > target) {
      cut_root_of[i] = static_cast<int>(i);
      cut_roots.push_back(static_cast<int>(i));
      load.push_back(size[i] - 1);
    } else {
      cut_root_of[i] = cut_root_of[p];
    }
  }
  // Deal the subtrees out, largest first, each to the group with the fewest rows so far (the
  // lowest such group; ties between subtrees in root order): no group gets more than an even share
  // plus one subtree, at most `target` rows.
  std::vector<std::size_t> order(cut_roots.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t u, std::size_t v) { return load[u] > load[v]; });
  std::vector<index_type> rows_of_group(static_cast<std::size_t>(groups), 0);
  std::vector<int> group_of_root(static_cast<std::size_t>(n), -1);
  for (std::size_t j : order) {
    const int g = static_cast<int>(std::min_element(rows_of_group.begin(), rows_of_group.end()) - rows_of_group.begin());
    group_of_root[cut_roots[j]] = g;
    rows_of_group[g] += load[j];
  }
  // Each group's rows (cut subtrees less their roots) as maximal runs, last row first.
  std::vector<int> group_of_row(static_cast<std::size_t>(n), -1);
  for (index_type i = 0; i < n; ++i)
    if (cut_root_of[i] >= 0 && cut_root_of[i] != i) {
      group_of_row[i] = group_of_root[cut_root_of[i]];
      alive[i] = 0;
    }
  for (index_type i = n - 1; i >= 0;) {
    const int g = group_of_row[i];
    if (g < 0) {
      --i;
      continue;
    }
    const index_type last = i;
    while (i >= 0 && group_of_row[i] == g) --i;
    runs[g].push_back({static_cast<int>(i + 1), static_cast<int>(last)});
  }
  return *std::max_element(rows_of_group.begin(), rows_of_group.end());
}

/// Cuts the tree of n rows (parent: n entries, a Hines numbering) for `groups` >= 1 groups, in
/// levels while they pay (see the file comment).
inline TreePartition partition_tree(const int* parent, index_type n, int groups, index_type level_cost = impl::level_cost) {
  TreePartition t;
  std::vector<char> alive(static_cast<std::size_t>(n), 1);
  index_type left = n;  // rows not eliminated yet
  while (t.levels < max_levels && left > 0) {
    std::vector<char> next = alive;
    std::vector<std::vector<std::pair<int, int>>> runs;
    const index_type largest = cut_level(parent, n, groups, next, runs);
    index_type next_left = 0;
    for (char a : next) next_left += a ? 1 : 0;
    // The first level always (the single-level cut); a further one if it shortens the chain.
    if (t.levels > 0 && largest + next_left + level_cost >= left) break;
    if (next_left == left) break;  // nothing eliminated (only roots left)
    t.critical_rows += largest;
    for (auto& r : runs) t.runs.push_back(std::move(r));
    alive.swap(next);
    left = next_left;
    ++t.levels;
  }
  if (t.levels == 0) {  // an empty tree, or roots only: one empty level
    t.runs.assign(static_cast<std::size_t>(groups), {});
    t.levels = 1;
  }
  for (index_type i = 0; i < n; ++i)
    if (alive[i]) t.trunk.push_back(static_cast<int>(i));
  t.critical_rows += static_cast<index_type>(t.trunk.size());
  return t;
}

/// The partition of every morphology for `groups` groups; parent: row-major (count x rows) on the
/// host, sizes: rows of each morphology; split_path > 0: the trunks whose longest path has at
/// least that many rows split (split_trunk.hpp).
template <class MemorySpace>
SubtreePartition<MemorySpace> make_subtree_partition(const int* parent, const int* sizes, index_type count,
                                                     index_type rows, int groups, index_type split_path = 0) {
  std::vector<TreePartition> cuts;
  SubtreePartition<MemorySpace> s;
  s.groups = groups;
  for (index_type m = 0; m < count; ++m) {
    cuts.push_back(partition_tree(parent + m * rows, sizes[m], groups));
    s.levels = std::max(s.levels, cuts.back().levels);
    s.longest_trunk = std::max<index_type>(s.longest_trunk, static_cast<index_type>(cuts.back().trunk.size()));
    s.critical_rows = std::max(s.critical_rows, cuts.back().critical_rows);
  }
  std::vector<std::vector<int>> run_begin, runs, trunk;
  s.trunk_size = typename SubtreePartition<MemorySpace>::column("tridiag::hines::subtree_trunk_size", count);
  auto host_trunk_size = Kokkos::create_mirror_view(s.trunk_size);
  for (index_type m = 0; m < count; ++m) {
    const TreePartition& t = cuts[m];
    std::vector<int> begin(1, 0), flat;
    for (const auto& slot : t.runs) {
      for (const auto& [first, last] : slot) {
        flat.push_back(first);
        flat.push_back(last);
      }
      begin.push_back(static_cast<int>(flat.size() / 2));
    }
    // Levels past this morphology's own: empty slots.
    begin.resize(static_cast<std::size_t>(s.levels) * groups + 1, begin.back());
    host_trunk_size(m) = static_cast<int>(t.trunk.size());
    run_begin.push_back(std::move(begin));
    runs.push_back(std::move(flat));
    std::vector<int> split = encode_split_trunk(parent + m * rows, sizes[m], t.trunk, groups, split_path);
    if (split.empty()) {
      trunk.push_back(t.trunk);
    } else {
      host_trunk_size(m) = split_trunk_marker;
      trunk.push_back(std::move(split));
    }
  }
  Kokkos::deep_copy(s.trunk_size, host_trunk_size);
  using Table = typename SubtreePartition<MemorySpace>::table;
  s.run_begin = upload_table<Table>("tridiag::hines::subtree_run_begin", run_begin);
  s.runs = upload_table<Table>("tridiag::hines::subtree_runs", runs);
  s.trunk = upload_table<Table>("tridiag::hines::subtree_trunk", trunk);
  return s;
}

}  // namespace impl
}  // namespace tridiag::hines

#pragma once
// How algo::SubtreeParallel (hines_solve.hpp, subtree_parallel_kernel.hpp) shares one neuron
// among `groups` thread groups: the tree cut into disjoint subtrees, small enough that the groups
// eliminate them at the same time, and the "trunk" above them, which one group then finishes.
//
// The cut, for a tree (or forest) of n rows in a Hines numbering (parent(i) < i), size(v) = rows
// of the subtree of v (v included), target = ceil(n / groups):
//   cut root   a row v with size(v) <= target whose parent is a root's (-1) or has
//              size(parent) > target: the largest subtrees of at most `target` rows. Their
//              subtrees are disjoint, and every row is in one of them or above one, in the trunk;
//   trunk      the rows with size > target (all ancestors of cut roots) and the cut roots
//              themselves, in increasing row order: the parent of a trunk row is a trunk row, so
//              the trunk is eliminated (last row first) and substituted (first row first) on its
//              own, once the cut subtrees are done;
//   groups     the cut subtrees dealt out to the groups so that each gets about the same number
//              of rows (largest subtree first, to the group with the fewest rows so far); group k
//              eliminates the rows of its subtrees except their roots: every such row's parent is
//              in the same subtree.
// A group walks its rows as maximal runs of consecutive rows, all runs in decreasing order for
// the elimination (any decreasing order reduces each parent by its children in decreasing child
// order, as the sequential sweep does: the same bits) and increasing order for the substitution.
// In a depth-first numbering (SWC files, the discretisation) a subtree is the range [v, v +
// size(v)), so a subtree is one run (less its root); any other Hines numbering works too, in more
// runs. Rows n..rows-1 (padding of a mixed batch) are in no list.
//
// Built on the host, lazily, once per Morphologies and number of groups
// (Morphologies::subtree_partition, hines_batch.hpp), and copied to the device. Per morphology m
// (row-major Views, padded to the largest morphology):
//   run_begin(m, k)   group k's runs are runs(m, 2 j), runs(m, 2 j + 1) = first, last row, for
//                     run_begin(m, k) <= j < run_begin(m, k + 1), in decreasing row order
//   trunk(m, j)       the trunk, 0 <= j < trunk_size(m), increasing

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <tridiag/algorithms/hines/branch_schedule.hpp>  // impl::upload_table
#include <tridiag/core/types.hpp>

namespace tridiag::hines {

template <class MemorySpace>
struct SubtreePartition {
  using table = Kokkos::View<int**, Kokkos::LayoutRight, MemorySpace>;
  using column = Kokkos::View<int*, MemorySpace>;
  int groups = 0;
  table run_begin, runs, trunk;
  column trunk_size;
  index_type longest_trunk = 0;  ///< the most trunk rows of a morphology (what one group walks alone)
};

namespace impl {

/// The cut of one tree (see the file comment) on the host.
struct TreePartition {
  std::vector<int> trunk;                          ///< increasing
  std::vector<std::vector<std::pair<int, int>>> runs;  ///< per group: (first, last), decreasing
};

/// Cuts the tree of n rows (parent: n entries, a Hines numbering) for `groups` >= 1 groups.
inline TreePartition partition_tree(const int* parent, index_type n, int groups) {
  TreePartition t;
  t.runs.resize(static_cast<std::size_t>(groups));
  if (n == 0) return t;
  std::vector<index_type> size(static_cast<std::size_t>(n), 1);
  for (index_type i = n - 1; i > 0; --i)
    if (parent[i] >= 0) size[parent[i]] += size[i];
  const index_type target = (n + groups - 1) / groups;
  // cut_root_of[i]: the cut root whose subtree holds i, or -1 for a row above every cut root.
  std::vector<int> cut_root_of(static_cast<std::size_t>(n), -1);
  std::vector<int> cut_roots;
  std::vector<index_type> load;  // rows of each cut subtree less its root
  for (index_type i = 0; i < n; ++i) {
    const int p = parent[i];
    if (size[i] > target) {
      t.trunk.push_back(static_cast<int>(i));
    } else if (p < 0 || size[p] > target) {
      cut_root_of[i] = static_cast<int>(i);
      cut_roots.push_back(static_cast<int>(i));
      load.push_back(size[i] - 1);
      t.trunk.push_back(static_cast<int>(i));
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
    if (cut_root_of[i] >= 0 && cut_root_of[i] != i) group_of_row[i] = group_of_root[cut_root_of[i]];
  for (index_type i = n - 1; i >= 0;) {
    const int g = group_of_row[i];
    if (g < 0) {
      --i;
      continue;
    }
    const index_type last = i;
    while (i >= 0 && group_of_row[i] == g) --i;
    t.runs[g].push_back({static_cast<int>(i + 1), static_cast<int>(last)});
  }
  return t;
}

/// The partition of every morphology for `groups` groups; parent: row-major (count x rows) on the
/// host, sizes: rows of each morphology.
template <class MemorySpace>
SubtreePartition<MemorySpace> make_subtree_partition(const int* parent, const int* sizes, index_type count,
                                                     index_type rows, int groups) {
  std::vector<std::vector<int>> run_begin, runs, trunk;
  SubtreePartition<MemorySpace> s;
  s.groups = groups;
  s.trunk_size = typename SubtreePartition<MemorySpace>::column("tridiag::hines::subtree_trunk_size", count);
  auto host_trunk_size = Kokkos::create_mirror_view(s.trunk_size);
  for (index_type m = 0; m < count; ++m) {
    const TreePartition t = partition_tree(parent + m * rows, sizes[m], groups);
    std::vector<int> begin(1, 0), flat;
    for (const auto& group : t.runs) {
      for (const auto& [first, last] : group) {
        flat.push_back(first);
        flat.push_back(last);
      }
      begin.push_back(static_cast<int>(flat.size() / 2));
    }
    host_trunk_size(m) = static_cast<int>(t.trunk.size());
    s.longest_trunk = std::max<index_type>(s.longest_trunk, static_cast<index_type>(t.trunk.size()));
    run_begin.push_back(std::move(begin));
    runs.push_back(std::move(flat));
    trunk.push_back(t.trunk);
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

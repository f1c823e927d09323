#pragma once
// algo::SubtreeParallel's split trunk (option split_path, hines_solve.hpp): the trunk of the
// subtree partition (subtree_partition.hpp), which one group otherwise walks alone, solved by all
// the groups at once where its longest path is long (AA0013: 664 of its 693 trunk rows with 8
// groups, 4,035 rows in all).
//
// Why it can be split. Along a path p_0 (a root) .. p_{L-1}, with D_j, X_j the partial diagonal and
// rhs of row p_j once its other children are eliminated, the sweep's pivots follow
//   W_{j-1} = D_{j-1} - a_j b_j / W_j,
// a Moebius (fractional linear) map of W_j: maps compose as 2 x 2 matrices, so a segment of the
// path can compose its rows' maps without knowing the pivot that comes from below. Given the
// pivots, the rhs recurrence X_{j-1} = X0_{j-1} - (b_j / W_j) X_j and the substitution
// x_j = r_j - c_j x_{j-1} are affine in what enters a segment. So, the path cut into K segments,
// one per group, each step followed by a team barrier (subtree_parallel_kernel.hpp, step 2):
//   twigs  each group eliminates the other trunk rows hanging from its segment ("twigs", whole
//          subtrees) into the path, with SerialHines' operations; first it starts the partial
//          entries (w = d, x = rhs) of its path rows whose highest child is the path child;
//   A      each segment composes its maps (rescaled every 16 rows); group 0 chains the K maps
//          from the bottom: the pivot entering each segment;
//   B      each segment runs its pivots from that input, stores 1 / W, and composes its rhs
//          recurrence as sigma + tau X_in; group 0 chains those from the bottom;
//   C      each segment runs its rhs and stores r = X / W and c = a / W, as the sequential sweep
//          leaves them (so the levels' substitution reads the trunk as usual);
//   D      segment 0 substitutes; the others compose x = mu + nu x_in; group 0 chains them;
//   E      each other segment substitutes from its input; then each group's twigs.
// Every pass issues the loads of its next two rows before the current row's arithmetic and
// stores (the compiler cannot move a load above a store it cannot tell apart from it).
//
// Results differ from the sequential sweep's by rounding (the pivots reach the segments' ends
// through composed maps): not bitwise PerNeuron's. Status codes are SerialHines': the highest
// failing pivot (every path row's pivot is checked in B; a failure's NaN only spreads to rows
// nearer the root, which are lower), the lowest non-finite rhs (read raw on path rows in B), the
// lowest non-finite x; a pivot within rounding of the usable_pivot threshold may be judged
// differently.
// Measured on the H100 (docs/performance.md, 2026-11-26, f6a2d97, double): AA0013 at 1,000 and
// 2,327 neurons 1.24 -> 0.74 and 1.32 -> 0.83 ms; the 11 shared cells grouped at 25,600 neurons
// 1.78 -> 1.29 ms; AA0013 at 25,600 neurons (enough neurons to fill the GPU) 2.7% slower. Only the
// teams holding a split trunk take its barriers (SubtreeUnitFields::split_trunk).
//
// Table (one row of the partition's trunk table, trunk_size = split_trunk_marker):
//   {E, L, K, begin[0..K], E entries, L path entries}
// entries of segment k at [begin[k], begin[k + 1]): -(row + 1) for a path row whose partial
// entries start from d and rhs before its twigs, then the segment's twigs increasing; a path
// entry is row * 2 + 1 where the row's partial entries are in w and x (it has children off the
// path, or it is the bottom row with children), row * 2 where they are its d and rhs.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <vector>

#include <tridiag/core/types.hpp>

namespace tridiag::hines::impl {

/// trunk_size of a morphology whose trunk row holds a split trunk.
constexpr int split_trunk_marker = -1;
/// The most segments (groups) a split path gets, and the fewest rows per segment.
constexpr int split_trunk_max_segments = 16;
constexpr int split_trunk_min_segment_rows = 8;

/// Segments of a path of L rows split among `groups` groups.
inline int split_trunk_segments(int L, int groups) {
  int K = std::min(groups, split_trunk_max_segments);
  if (L / split_trunk_min_segment_rows < K) K = std::max(1, L / split_trunk_min_segment_rows);
  return K;
}

/// First path index of segment k of K over L rows (segment k: [lo(k), lo(k + 1))).
KOKKOS_FORCEINLINE_FUNCTION int split_trunk_lo(int L, int K, int k) {
  return static_cast<int>(static_cast<long long>(L) * k / K);
}

/// The split trunk's table row (see the file comment) of the tree of n rows (parent: n entries, a
/// Hines numbering) whose trunk (increasing) is `trunk`, for `groups` groups; empty where the
/// trunk's longest path has fewer than `min_path` rows (min_path <= 0: never split).
inline std::vector<int> encode_split_trunk(const int* parent, index_type n, const std::vector<int>& trunk, int groups,
                                           index_type min_path) {
  if (min_path <= 0 || trunk.empty()) return {};
  // The longest path inside the trunk (closed under parent): from its deepest row up to a root.
  std::vector<int> depth(static_cast<std::size_t>(n), 0);
  int deepest = trunk.front();
  for (int i : trunk) {
    depth[i] = parent[i] >= 0 ? depth[parent[i]] + 1 : 1;
    if (depth[i] > depth[deepest]) deepest = i;
  }
  if (depth[deepest] < min_path) return {};
  std::vector<int> path;
  for (int i = deepest; i >= 0; i = parent[i]) path.push_back(i);
  std::reverse(path.begin(), path.end());
  const int L = static_cast<int>(path.size());
  const int K = split_trunk_segments(L, groups);
  std::vector<int> path_index(static_cast<std::size_t>(n), -1), highest_child(static_cast<std::size_t>(n), -1),
      children(static_cast<std::size_t>(n), 0);
  for (int j = 0; j < L; ++j) path_index[path[j]] = j;
  for (index_type i = 0; i < n; ++i)
    if (parent[i] >= 0) {
      highest_child[parent[i]] = static_cast<int>(i);  // increasing i: the last one is the highest
      ++children[parent[i]];
    }
  auto segment_of = [&](int j) {
    int k = 0;
    while (k + 1 < K && split_trunk_lo(L, K, k + 1) <= j) ++k;
    return k;
  };
  std::vector<std::vector<int>> inits(static_cast<std::size_t>(K)), twigs(static_cast<std::size_t>(K));
  std::vector<int> attach(static_cast<std::size_t>(n), -1);  // the nearest path row's index
  for (int i : trunk) {  // increasing: parents first
    if (path_index[i] >= 0) {
      attach[i] = path_index[i];
    } else {
      attach[i] = parent[i] >= 0 ? attach[parent[i]] : 0;  // another tree of a forest: segment 0's
      twigs[static_cast<std::size_t>(segment_of(attach[i]))].push_back(i);
    }
  }
  // A row above the bottom has only trunk children (a child cut away in a level would make it a
  // cut root, and its path child would have gone with it), so its children off the path are twigs.
  std::vector<int> path_entries;
  for (int j = 0; j < L; ++j) {
    const int r = path[j];
    bool in_w = children[r] > 0;  // the bottom row: reduced by its children (levels or twigs)
    if (j + 1 < L) {
      in_w = children[r] > 1;
      if (in_w && highest_child[r] == path[j + 1]) inits[static_cast<std::size_t>(segment_of(j))].push_back(-(r + 1));
    }
    path_entries.push_back(r * 2 + (in_w ? 1 : 0));
  }
  std::vector<int> row{0, L, K}, entries;
  for (int k = 0; k < K; ++k) {
    row.push_back(static_cast<int>(entries.size()));
    entries.insert(entries.end(), inits[k].begin(), inits[k].end());
    entries.insert(entries.end(), twigs[k].begin(), twigs[k].end());
  }
  row.push_back(static_cast<int>(entries.size()));
  row[0] = static_cast<int>(entries.size());
  row.insert(row.end(), entries.begin(), entries.end());
  row.insert(row.end(), path_entries.begin(), path_entries.end());
  return row;
}

}  // namespace tridiag::hines::impl

#pragma once
// The step tables of algo::WarpStaged (warp_staged_kernel.hpp): a neuron's subtree partition for
// `groups` thread groups (subtree_partition.hpp, partition_tree) flattened into steps that every
// group takes at the same time, so that the lanes of a warp, one group each, run the same
// instructions with no branch on the tree:
//   - each barrier-separated segment (a level of the partition, then the trunk) is as many steps
//     as its largest group has rows; step t gives every group its t-th row of the segment (in the
//     elimination's order: each group's runs in decreasing row order; the trunk, group 0's only,
//     from its last row to its first), or a dummy where the group has fewer;
//   - a dummy reads a constant row (`source`: d = 1, rhs = 1, so that nothing divides 0 / 1, which
//     takes the division's slow path) and writes a scratch row (`sink`); a root's parent is the
//     sink in the elimination and a row of zeros (`zero`) in the substitution;
//   - carry: the row's parent is the group's next row of the segment (elimination) / its previous
//     one (substitution), so the entries pass in registers as SerialHines passes them;
//   - barrier: the segment ends after this step (elimination) / begins with it (substitution).
// The substitution is the elimination's steps backwards. Every row is reduced by the same group,
// in the same order of its children, as SerialHines does: the same bits (partition_tree's
// invariant).
// Entries are packed in two ints, {load | store << 16, parent | flags << 16}: rows below 65,535
// (warp_staged_kernel.hpp takes far smaller cells).

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::hines {

/// A morphology's step tables on the device (built by Morphologies::warp_steps).
template <class MemorySpace>
struct WarpSteps {
  int steps = 0;  ///< per sweep
  /// 2 ints per entry, entry (t, g) of the elimination at 2 (t groups + g), the substitution's
  /// after all the elimination's (at 2 (steps groups + t groups + g)).
  Kokkos::View<int*, MemorySpace> packed;
};

namespace impl {

/// One group's part of one step (see the file comment).
struct WarpStep {
  int load = 0, store = 0, parent = 0, flags = 0;
};
constexpr int warp_step_carry = 1;
constexpr int warp_step_barrier = 2;

/// The elimination and substitution steps of a tree of n rows (a Hines numbering) for `groups`
/// groups; rows n, n + 1, n + 2 are the source, sink and zero rows.
struct WarpStepTables {
  int steps = 0;
  std::vector<WarpStep> elimination, substitution;  ///< steps x groups, step-major
};

/// What one more level of the partition costs the lanes of a warp, in rows (partition_tree's
/// level_cost): a __syncwarp and the next row's entries read again, where SubtreeParallel's teams
/// pay a team barrier (impl::level_cost, 8). More levels shorten the trunk, which one group walks
/// alone: 39 instead of 44 steps for the 107-row cells of the small classes.
constexpr index_type warp_level_cost = 2;

inline WarpStepTables make_warp_step_tables(const int* parent, int n, int groups,
                                            index_type level_cost = warp_level_cost) {
  const int source = n, sink = n + 1, zero = n + 2;
  const TreePartition cut = partition_tree(parent, n, groups, level_cost);
  std::vector<std::vector<std::vector<int>>> segments;  // segment, group, rows in elimination order
  for (int level = 0; level < cut.levels; ++level) {
    std::vector<std::vector<int>> segment(static_cast<std::size_t>(groups));
    for (int g = 0; g < groups; ++g)
      for (const auto& [first, last] : cut.runs[static_cast<std::size_t>(level * groups + g)])
        for (int i = last; i >= first; --i) segment[g].push_back(i);
    segments.push_back(std::move(segment));
  }
  segments.emplace_back(static_cast<std::size_t>(groups));
  segments.back()[0].assign(cut.trunk.rbegin(), cut.trunk.rend());

  WarpStepTables t;
  std::vector<std::vector<int>> row_at;  // step, group: the row, or -1 for a dummy
  std::vector<char> ends_segment;
  for (const auto& segment : segments) {
    std::size_t length = 0;
    for (const auto& rows : segment) length = std::max(length, rows.size());
    for (std::size_t s = 0; s < length; ++s) {
      std::vector<int> rows(static_cast<std::size_t>(groups), -1);
      for (int g = 0; g < groups; ++g)
        if (s < segment[g].size()) rows[g] = segment[g][s];
      row_at.push_back(rows);
      ends_segment.push_back(s + 1 == length);
    }
  }
  t.steps = static_cast<int>(row_at.size());
  t.elimination.resize(row_at.size() * groups);
  t.substitution.resize(row_at.size() * groups);
  for (int s = 0; s < t.steps; ++s)
    for (int g = 0; g < groups; ++g) {
      const int i = row_at[s][g];
      WarpStep e{source, sink, sink, 0};
      if (i >= 0) {
        const int p = parent[i];
        const bool carry = !ends_segment[s] && p >= 0 && row_at[s + 1][g] == p;
        e = {i, i, p >= 0 ? p : sink, carry ? warp_step_carry : 0};
      }
      if (ends_segment[s]) e.flags |= warp_step_barrier;
      t.elimination[static_cast<std::size_t>(s) * groups + g] = e;
    }
  // Substitution step r is elimination step s = steps - 1 - r; a barrier before it when s ends a
  // segment (but the last: the trunk comes first); carry when the parent is the row the group
  // substituted at r - 1 (elimination step s + 1, same segment).
  for (int r = 0; r < t.steps; ++r) {
    const int s = t.steps - 1 - r;
    for (int g = 0; g < groups; ++g) {
      const int i = row_at[s][g];
      WarpStep e{source, sink, zero, 0};
      if (i >= 0) {
        const int p = parent[i];
        const bool carry = r > 0 && !ends_segment[s] && p >= 0 && row_at[s + 1][g] == p;
        e = {i, i, p >= 0 ? p : zero, carry ? warp_step_carry : 0};
      }
      if (r > 0 && ends_segment[s]) e.flags |= warp_step_barrier;
      t.substitution[static_cast<std::size_t>(r) * groups + g] = e;
    }
  }
  return t;
}

/// The tables packed for the device (WarpSteps::packed's order).
inline std::vector<int> pack_warp_steps(const WarpStepTables& t) {
  std::vector<int> packed;
  packed.reserve(4 * t.elimination.size());
  for (const auto* table : {&t.elimination, &t.substitution})
    for (const WarpStep& e : *table) {
      packed.push_back(e.load | (e.store << 16));
      packed.push_back(e.parent | (e.flags << 16));
    }
  return packed;
}

/// WarpSteps of the tree of n rows (n + 3 < 65,536) for `groups` groups.
template <class MemorySpace>
WarpSteps<MemorySpace> make_warp_steps(const int* parent, int n, int groups) {
  const WarpStepTables t = make_warp_step_tables(parent, n, groups);
  const std::vector<int> packed = pack_warp_steps(t);
  WarpSteps<MemorySpace> w;
  w.steps = t.steps;
  w.packed = Kokkos::View<int*, MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::warp_steps"),
                                             std::max<std::size_t>(1, packed.size()));
  auto host = Kokkos::create_mirror_view(w.packed);
  for (std::size_t k = 0; k < packed.size(); ++k) host(k) = packed[k];
  Kokkos::deep_copy(w.packed, host);
  // The kernel stages the tables by 16-byte copies; Kokkos aligns its allocations to at least 64.
  if (reinterpret_cast<std::uintptr_t>(w.packed.data()) % 16 != 0)
    throw std::logic_error("tridiag::hines: the step tables' allocation is not 16-byte aligned");
  return w;
}

}  // namespace impl
}  // namespace tridiag::hines

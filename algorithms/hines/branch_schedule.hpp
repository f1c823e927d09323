#pragma once
// The order in which algo::BranchParallel (hines_solve.hpp) works through a tree: the tree cut
// into sections (maximal unbranched paths: a section starts at a root or at a child of a node
// with several children, and follows single children), and the sections grouped by depth (the
// number of sections above them). Sections of one depth do not touch each other's rows, so a
// team solves them in parallel, one level after the other (as Arbor and DeepDendrite do): leaves
// to root for the elimination, root to leaves for the substitution.
//
// Built on the host, once per Morphologies (hines_batch.hpp), and copied to the device. Per
// morphology m (row-major Views, padded to the largest morphology):
//   order(m, k)           the rows in section order: level 0's sections, then level 1's, ...;
//                         each section from its first row (nearest the root) to its last
//   section_begin(m, j)   section j is order(m, section_begin(m, j) .. section_begin(m, j + 1))
//   level_begin(m, l)     level l holds sections level_begin(m, l) .. level_begin(m, l + 1)
//   levels(m)             number of levels
//   child_begin(m, i)     the children of row i are children(m, child_begin(m, i) .. (m, i + 1)),
//   children(m, k)        in decreasing row order (the order the sequential sweep adds them in,
//                         which keeps the results bitwise equal to SerialHines)

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include <tridiag/core/types.hpp>

namespace tridiag::hines {

template <class MemorySpace>
struct BranchSchedule {
  using table = Kokkos::View<int**, Kokkos::LayoutRight, MemorySpace>;
  using column = Kokkos::View<int*, MemorySpace>;
  table order, section_begin, level_begin, child_begin, children;
  column levels;
  index_type widest_level = 0;  ///< most sections in one level, over all morphologies
};

namespace impl {

/// Sections and levels of one tree (rows [0, n), parent row-major in `parent`).
struct TreeSchedule {
  std::vector<int> order, section_begin, level_begin, child_begin, children;
};

inline TreeSchedule schedule_tree(const int* parent, index_type n) {
  TreeSchedule t;
  std::vector<std::vector<int>> kids(static_cast<std::size_t>(n));
  for (index_type i = 0; i < n; ++i)
    if (parent[i] >= 0) kids[parent[i]].push_back(static_cast<int>(i));
  t.child_begin.assign(static_cast<std::size_t>(n) + 1, 0);
  for (index_type i = 0; i < n; ++i) {
    t.child_begin[i + 1] = t.child_begin[i] + static_cast<int>(kids[i].size());
    t.children.insert(t.children.end(), kids[i].rbegin(), kids[i].rend());  // decreasing
  }
  // Sections, found in increasing order of their first row: a section's parent section starts
  // before it (parent(i) < i), so its depth is known when the section is found.
  struct Section {
    int depth;
    std::vector<int> rows;
  };
  std::vector<Section> sections;
  std::vector<int> section_of(static_cast<std::size_t>(n), -1);
  for (index_type start = 0; start < n; ++start) {
    const int p = parent[start];
    if (p >= 0 && kids[p].size() == 1) continue;  // continues its parent's section
    Section s{p < 0 ? 0 : sections[section_of[p]].depth + 1, {}};
    for (int row = static_cast<int>(start);;) {
      s.rows.push_back(row);
      section_of[row] = static_cast<int>(sections.size());
      if (kids[row].size() != 1) break;
      row = kids[row][0];
    }
    sections.push_back(std::move(s));
  }
  std::stable_sort(sections.begin(), sections.end(),
                   [](const Section& x, const Section& y) { return x.depth < y.depth; });
  t.section_begin.push_back(0);
  for (std::size_t j = 0; j < sections.size(); ++j) {
    if (j == 0 || sections[j].depth != sections[j - 1].depth) t.level_begin.push_back(static_cast<int>(j));
    t.order.insert(t.order.end(), sections[j].rows.begin(), sections[j].rows.end());
    t.section_begin.push_back(static_cast<int>(t.order.size()));
  }
  t.level_begin.push_back(static_cast<int>(sections.size()));
  return t;
}

/// Copies per-morphology vectors into one padded row-major device table.
template <class Table>
Table upload_table(const char* label, const std::vector<std::vector<int>>& rows) {
  std::size_t width = 1;
  for (const auto& r : rows) width = std::max(width, r.size());
  Table table(std::string(label), rows.size(), width);
  auto host = Kokkos::create_mirror_view(table);
  for (std::size_t m = 0; m < rows.size(); ++m)
    for (std::size_t k = 0; k < rows[m].size(); ++k) host(m, k) = rows[m][k];
  Kokkos::deep_copy(table, host);
  return table;
}

/// The schedule of every morphology; parent: row-major (count x rows) on the host.
template <class MemorySpace>
BranchSchedule<MemorySpace> make_branch_schedule(const int* parent, const int* sizes, index_type count,
                                                 index_type rows) {
  std::vector<std::vector<int>> order, section_begin, level_begin, child_begin, children;
  std::vector<int> levels;
  BranchSchedule<MemorySpace> s;
  for (index_type m = 0; m < count; ++m) {
    TreeSchedule t = schedule_tree(parent + m * rows, sizes[m]);
    levels.push_back(static_cast<int>(t.level_begin.size()) - 1);
    for (std::size_t l = 0; l + 1 < t.level_begin.size(); ++l)
      s.widest_level = std::max<index_type>(s.widest_level, t.level_begin[l + 1] - t.level_begin[l]);
    order.push_back(std::move(t.order));
    section_begin.push_back(std::move(t.section_begin));
    level_begin.push_back(std::move(t.level_begin));
    child_begin.push_back(std::move(t.child_begin));
    children.push_back(std::move(t.children));
  }
  using Table = typename BranchSchedule<MemorySpace>::table;
  s.order = upload_table<Table>("tridiag::hines::schedule_order", order);
  s.section_begin = upload_table<Table>("tridiag::hines::schedule_sections", section_begin);
  s.level_begin = upload_table<Table>("tridiag::hines::schedule_levels", level_begin);
  s.child_begin = upload_table<Table>("tridiag::hines::schedule_child_begin", child_begin);
  s.children = upload_table<Table>("tridiag::hines::schedule_children", children);
  s.levels = typename BranchSchedule<MemorySpace>::column("tridiag::hines::schedule_level_count", count);
  auto host_levels = Kokkos::create_mirror_view(s.levels);
  for (index_type m = 0; m < count; ++m) host_levels(m) = levels[m];
  Kokkos::deep_copy(s.levels, host_levels);
  return s;
}

}  // namespace impl
}  // namespace tridiag::hines

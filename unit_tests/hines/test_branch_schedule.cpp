// The section/level schedule of algo::BranchParallel (branch_schedule.hpp), on the shared cells
// and on random trees and forests: every row appears exactly once; a section is a parent-child
// path whose inner rows have exactly one child; a section's first row hangs off a row of an
// earlier level (or is a root); children are listed in decreasing order. Kokkos-free.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <tridiag/algorithms/hines/branch_schedule.hpp>

#include "hines/hines_checks.hpp"

namespace tridiag::hines::test {
namespace {

void expect_valid_schedule(const std::vector<int>& parent, const std::string& what) {
  SCOPED_TRACE(what);
  const int n = static_cast<int>(parent.size());
  const impl::TreeSchedule t = impl::schedule_tree(parent.data(), n);
  std::vector<int> children_count(n, 0);
  for (int i = 0; i < n; ++i)
    if (parent[i] >= 0) ++children_count[parent[i]];
  // Children lists: exactly the children, decreasing.
  ASSERT_EQ(static_cast<int>(t.child_begin.size()), n + 1);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(t.child_begin[i + 1] - t.child_begin[i], children_count[i]) << "row " << i;
    for (int e = t.child_begin[i]; e < t.child_begin[i + 1]; ++e) {
      ASSERT_EQ(parent[t.children[e]], i);
      if (e > t.child_begin[i]) ASSERT_GT(t.children[e - 1], t.children[e]);
    }
  }
  // Every row once.
  std::vector<int> sorted = t.order;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(static_cast<int>(sorted.size()), n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
  // Sections and levels.
  std::vector<int> level_of_row(n, -1);
  const int levels = static_cast<int>(t.level_begin.size()) - 1;
  ASSERT_EQ(t.level_begin.front(), 0);
  ASSERT_EQ(t.level_begin.back() + 1, static_cast<int>(t.section_begin.size()));
  for (int l = 0; l < levels; ++l) {
    ASSERT_LT(t.level_begin[l], t.level_begin[l + 1]) << "empty level " << l;
    for (int j = t.level_begin[l]; j < t.level_begin[l + 1]; ++j) {
      const int first = t.order[t.section_begin[j]];
      const int p = parent[first];
      if (l == 0) {
        ASSERT_EQ(p, -1) << "level 0 section does not start at a root";
      } else {
        ASSERT_GE(p, 0);
        ASSERT_EQ(level_of_row[p], l - 1) << "section at row " << first << " hangs off level " << level_of_row[p];
        ASSERT_GE(children_count[p], 2) << "a single child would continue its parent's section";
      }
      for (int q = t.section_begin[j]; q < t.section_begin[j + 1]; ++q) {
        const int row = t.order[q];
        level_of_row[row] = l;
        if (q + 1 < t.section_begin[j + 1]) {
          ASSERT_EQ(children_count[row], 1) << "inner row " << row;
          ASSERT_EQ(parent[t.order[q + 1]], row);
        } else {
          ASSERT_NE(children_count[row], 1) << "section ends at row " << row << " with one child";
        }
      }
    }
  }
}

TEST(BranchSchedule, SharedCellsAndSizeClasses) {
  for (const auto& cell : test_cells()) expect_valid_schedule(cell.cell.parent, cell.name);
}

TEST(BranchSchedule, RandomTreesForestsAndChains) {
  for (int n : {1, 2, 3, 7, 64, 500})
    for (int forest : {0, 5}) expect_valid_schedule(random_tree(n, 20261123u + n + forest, forest).parent, "random");
  std::vector<int> chain(100);
  for (int i = 0; i < 100; ++i) chain[i] = i - 1;  // Thomas: one section, one level
  expect_valid_schedule(chain, "chain");
  EXPECT_EQ(impl::schedule_tree(chain.data(), 100).level_begin.size(), 2u);
  EXPECT_TRUE(impl::schedule_tree(chain.data(), 0).order.empty());
}

}  // namespace
}  // namespace tridiag::hines::test

// The split trunk's table (split_trunk.hpp) on the host: on the shared cells, random trees,
// forests and the shapes that break a wrong sweep, for 1, 3, 8 and 16 groups, every trunk row of
// the subtree partition appears once (on the path or as a twig), the path runs from a root down
// parent to child, each segment's path-row starts come before its twigs, its twigs increase and
// hang from a path row of the same segment (or are another tree of a forest); no table when off.

#include <string>
#include <tridiag/algorithms/hines/split_trunk.hpp>
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/hines_solve_runs.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::test::random_tree;
using hines::test::test_cells;

TEST(HinesSplitTrunkTable, EveryTrunkRowOnceTwigsWithTheirPathRowParentsFirst) {
  std::vector<std::vector<int>> trees;
  for (const auto& c : test_cells()) trees.push_back(c.cell.parent);
  for (int n : {50, 300, 900})
    for (int forest : {0, 7}) trees.push_back(random_tree(n, test_seed() + n + forest, forest).parent);
  for (const auto& shape : fold_shapes(test_seed())) trees.push_back(shape);
  int split_trees = 0;
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const auto& parent = trees[t];
    const index_type n = static_cast<index_type>(parent.size());
    for (int groups : {1, 3, 8, 16}) {
      SCOPED_TRACE("tree " + std::to_string(t) + ", " + std::to_string(groups) + " groups");
      const auto cut = hines::impl::partition_tree(parent.data(), n, groups);
      EXPECT_TRUE(hines::impl::encode_split_trunk(parent.data(), n, cut.trunk, groups, 0).empty()) << "off";
      const auto table = hines::impl::encode_split_trunk(parent.data(), n, cut.trunk, groups, 1);
      ASSERT_FALSE(table.empty());
      ++split_trees;
      const int E = table[0], P = table[1], K = table[2];
      ASSERT_EQ(K, hines::impl::split_trunk_segments(P, groups));
      ASSERT_EQ(static_cast<int>(table.size()), 4 + K + E + P);
      ASSERT_EQ(table[3], 0);
      ASSERT_EQ(table[3 + K], E);
      std::vector<int> seen(static_cast<std::size_t>(n), 0), segment_of_row(static_cast<std::size_t>(n), -1);
      std::vector<int> path;
      for (int j = 0; j < P; ++j) {
        const int r = table[4 + K + E + j] >> 1;
        path.push_back(r);
        ++seen[r];
        for (int k = 0; k < K; ++k)
          if (hines::impl::split_trunk_lo(P, K, k) <= j) segment_of_row[r] = k;
      }
      EXPECT_EQ(parent[path[0]], -1) << "the path starts at a root";
      for (int j = 1; j < P; ++j) ASSERT_EQ(parent[path[j]], path[j - 1]) << "path row " << j;
      for (int k = 0; k < K; ++k) {
        int previous = -1;
        bool twigs_started = false;
        for (int i = table[3 + k]; i < table[4 + k]; ++i) {
          const int e = table[4 + K + i];
          if (e < 0) {
            ASSERT_FALSE(twigs_started) << "a path row's start after the twigs";
            const int r = -e - 1;
            ASSERT_EQ(segment_of_row[r], k) << "row " << r << " started by another segment";
            continue;
          }
          twigs_started = true;
          ASSERT_GT(e, previous) << "twigs not increasing";
          previous = e;
          ++seen[e];
          const int p = parent[e];
          if (p >= 0) {  // its parent: a path row of this segment, or a twig before it in this segment
            segment_of_row[e] = segment_of_row[p] >= 0 ? segment_of_row[p] : -2;
            ASSERT_EQ(segment_of_row[e], k) << "twig " << e << " away from its parent's segment";
          } else {
            segment_of_row[e] = k;  // a root of another tree of a forest
          }
        }
      }
      std::vector<int> trunk_seen(static_cast<std::size_t>(n), 0);
      for (int r : cut.trunk) trunk_seen[r] = 1;
      for (index_type i = 0; i < n; ++i) ASSERT_EQ(seen[i], trunk_seen[i]) << "row " << i;
    }
  }
  EXPECT_GT(split_trees, 0);
}

}  // namespace
}  // namespace tridiag::test

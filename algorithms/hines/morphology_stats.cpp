#include <tridiag/algorithms/hines/morphology_stats.hpp>

#include <algorithm>
#include <vector>

namespace tridiag::hines {

MorphologyStats compute_stats(const Morphology& morphology) {
  const std::size_t n = morphology.samples.size();
  // One built by hand: a child listed before its parent gave a wrong max_depth, a short
  // parent_index a read out of range.
  morphology.check_parent_order("hines::compute_stats");
  MorphologyStats stats;
  stats.points = static_cast<long>(n);
  stats.soma = morphology.soma;
  std::vector<int> children(n, 0);
  std::vector<long> depth(n, 1);  // samples from the root to this one, inclusive
  for (std::size_t i = 0; i < n; ++i) {
    const int p = morphology.parent_index[i];
    if (p >= 0) {
      ++children[p];
      depth[i] = depth[p] + 1;  // p < i: already final
    }
    stats.max_depth = std::max(stats.max_depth, depth[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (children[i] >= 2) ++stats.branch_points;
    if (children[i] == 0) ++stats.tips;
  }
  return stats;
}

}  // namespace tridiag::hines

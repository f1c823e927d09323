// The shape of SubtreeParallel's trunk (not part of the library): for each SWC file and
// compartment length given (0: the default discretisation), with 8 and 16 groups, the partition's
// levels, trunk rows, the longest path inside the trunk, the trunk rows whose parent is not the
// previous trunk row, its branch points and the longest chain (subtree_partition.hpp). Host build
// as hines_split_trunk_host_check.cpp. At 07976b0 (2026-11-26): AA0013, 8 groups: 1 level, trunk
// 693 rows, its longest path 664; BG001 55 and 25; C080400A3 41 and 27.
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <cstdio>
using namespace tridiag;
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
  for (int k = 1; k + 1 < argc; k += 2) {
    hines::DiscretizationOptions o;
    double len = atof(argv[k + 1]);
    if (len > 0) o.max_length_um = len;
    auto parent = hines::discretize(hines::load_swc(argv[k]), o).parent;
    for (int g : {8, 16}) {
      auto t = hines::impl::partition_tree(parent.data(), parent.size(), g);
      int breaks = 0, depth_max = 0;
      std::vector<int> depth(parent.size(), 0), children(parent.size(), 0);
      for (size_t j = 0; j < t.trunk.size(); ++j) {
        int i = t.trunk[j];
        int p = parent[i];
        if (j > 0 && p != t.trunk[j - 1]) ++breaks;
        depth[i] = p >= 0 ? depth[p] + 1 : 1;
        if (p >= 0) children[p]++;
        depth_max = std::max(depth_max, depth[i]);
      }
      int branchy = 0;
      for (int i : t.trunk) if (children[i] > 1) ++branchy;
      printf("%s g=%d rows %zu levels %d trunk %zu longest trunk path %d, rows whose parent is not the previous trunk row %d, trunk branch points %d, chain %lld\n",
             argv[k], g, parent.size(), t.levels, t.trunk.size(), depth_max, breaks, branchy, (long long)t.critical_rows);
    }
  }
  }
  Kokkos::finalize();
}

// Experiment helper (not part of the library): writes one discretised shared cell and the
// library's subtree partition of it (subtree_partition.hpp, partition_tree) as text, for drivers
// that are plain CUDA and do not link the library (hines_warp_uniform_driver.cu).
// Build (development machine, host Kokkos from scripts/setup.sh):
//   g++ -std=c++17 -O2 -fopenmp -I<build>/include -I<kokkos>/include hines_cell_dump.cpp
//     <repo>/algorithms/hines/{swc,cable_sections,discretization}.cpp -o cell_dump
//     -L<kokkos>/lib -lkokkoscore -ldl
// Run: ./cell_dump FILE.swc MAX_LENGTH_UM GROUPS > cell.txt
// Output: "n groups levels trunk", then n parents, then per slot (level * groups + group) its row
// count and rows in elimination order (decreasing), then the trunk (increasing).
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <tridiag/algorithms/hines/swc.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  using namespace tridiag::hines;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FILE.swc MAX_LENGTH_UM GROUPS\n", argv[0]);
    return 2;
  }
  DiscretizationOptions options;
  options.max_length_um = std::atof(argv[2]);
  const CompartmentalCell cell = discretize(load_swc(argv[1]), options);
  const int groups = std::atoi(argv[3]);
  const auto cut = impl::partition_tree(cell.parent.data(), cell.size(), groups);
  std::printf("%d %d %d %zu\n", cell.size(), groups, cut.levels, cut.trunk.size());
  for (int p : cell.parent) std::printf("%d\n", p);
  for (const auto& slot : cut.runs) {
    std::vector<int> rows;
    for (const auto& [first, last] : slot)
      for (int i = last; i >= first; --i) rows.push_back(i);
    std::printf("%zu", rows.size());
    for (int i : rows) std::printf(" %d", i);
    std::printf("\n");
  }
  for (int i : cut.trunk) std::printf("%d\n", i);
  return 0;
}

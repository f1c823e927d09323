// Driver of the A/B run of algo::SubtreeParallel's launch bounds <896, 1> and 16 automatic groups
// (docs/performance.md, "the largest cells' blocks with 16 warps"; not part of the library). Built
// twice, against the library's headers before the change (<288, 3>, at most 8 groups) and after,
// it times algo::Automatic (pad rows solved, and not) and SubtreeParallel's automatic plan
// (without and with split trunks) on the batches the change may touch: one large cell at 1,000 to
// 25,600 neurons, the six classes and the 11 shared cells mixed (grouped by morphology, and round
// robin) at 1,000 to 100,000 neurons, and the single cells at 25,600 neurons of issue 6's strict
// ratios. Random diagonally dominant values (hines_driver_common.hpp), median of 9 after a
// warm-up; each line's checksum of x must be the same in both builds where no trunk is split.
// Build (development machine), once per header tree:
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -I<headers>/include -I<kokkos>/include
//     --expt-extended-lambda --expt-relaxed-constexpr -fopenmp hines_wide_auto_driver.cpp
//     -o drv_auto -L<build> -ltridiag -L<kokkos>/lib -lkokkoscore -lkokkoscontainers -ldl
// Run: ./drv_auto SWC_DIR
#include "hines_trunk_cells.hpp"

namespace {
using SP = hines::algo::SubtreeParallel;

/// `cells` mixed, N / C neurons each: grouped (largest first, as Grouping::by_morphology stores
/// them) or round robin (neuron s has cell s % C).
double mix(const char* name, const std::vector<Named>& cells, index_type N, bool grouped, double copy) {
  const MixedBatch m = mixed_batch(cells, N, grouped);
  const auto& morph = m.morph;
  const auto& ids = m.ids;
  const index_type real = m.real;
  const std::string base = std::string(name) + (grouped ? " grouped" : " round-robin");
  double best = 1e30;
  best = std::min(best, run<layouts::Interleaved>((base + " Automatic").c_str(), morph, ids, N, real, copy, hines::algo::Automatic{}));
  best = std::min(best, run<layouts::Interleaved>((base + " Automatic no pads").c_str(), morph, ids, N, real, copy, hines::algo::Automatic{false}));
  if (grouped) {
    best = std::min(best, run<layouts::Interleaved>((base + " SP no pads").c_str(), morph, ids, N, real, copy, SP{0, false}));
    best = std::min(best, run<layouts::Interleaved>((base + " SP split no pads").c_str(), morph, ids, N, real, copy, SP{0, false, 64, 0}));
  }
  return best;
}

void cell(const Named& c, index_type N, double copy) {
  const auto morph = hines::make_morphologies<Mem>({c.parent});
  const Kokkos::View<int*, Mem> none;
  const index_type real = N * morph.rows();
  run<layouts::Interleaved>((c.name + " Automatic").c_str(), morph, none, N, real, copy, hines::algo::Automatic{});
  run<layouts::Interleaved>((c.name + " SP").c_str(), morph, none, N, real, copy, SP{0, false});
  run<layouts::Interleaved>((c.name + " SP split").c_str(), morph, none, N, real, copy, SP{0, false, 64, 0});
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const TrunkCells cells = trunk_cells(argv[1]);
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s\n", copy);
    for (index_type N : {1000, 2327, 4224, 8448, 16896, 25600}) cell(cells.aa0013, N, copy);
    for (index_type N : {1000, 4267, 25600}) cell(cells.classes[0], N, copy);
    for (const auto& c : cells.shared)
      if (c.name == "BG001.CNG.swc" || c.name == "C080400A3.CNG.swc")
        for (index_type N : {1000, 4000}) cell(c, N, copy);
    const index_type N = 25600;
    double sum6 = 0, sum11 = 0;
    for (const auto& c : cells.classes) sum6 += alone(c, N, copy) / cells.classes.size();
    for (const auto& c : cells.shared) sum11 += alone(c, N, copy) / cells.shared.size();
    for (index_type n : {25600, 64000, 100000}) {
      const double t = mix("six classes", cells.classes, n, true, copy);
      if (n == N) printf("six classes at 25600: singles %.4f ms, mixed %.4f ms, strict ratio %.3f\n", sum6 * 1e3, t * 1e3, sum6 / t);
    }
    for (index_type n : {1000, 10000, 25600, 64000, 100000}) {
      const double t = mix("11 cells", cells.shared, n, true, copy);
      if (n == N) printf("11 cells at 25600: singles %.4f ms, mixed %.4f ms, strict ratio %.3f\n", sum11 * 1e3, t * 1e3, sum11 / t);
    }
    for (index_type n : {1000, 10000, 25600}) mix("11 cells", cells.shared, n, false, copy);
  }
  Kokkos::finalize();
  return 0;
}

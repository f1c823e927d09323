// Driver of the wide-team experiment of issue 6 (not part of the library; results in
// docs/performance.md, "the largest cells' blocks with 16 warps, on their own stream"). The mixes
// at 25,600 neurons end with their largest cells' teams (big-high's, AA0013's), which walk their
// rows with 8 warps per block of 32 neurons while sharing each multiprocessor with two other
// teams: SubtreeParallel's launch bounds (288 threads, 3 teams) allow no more warps per team.
// Built with -DTRIDIAG_SUBTREE_LAUNCH_BOUNDS=896,1 the kernel keeps the same 72-register bound
// (65536 / 896 -> 72) but may run teams of 16 warps. This driver times
//   - big-high's 4,267 neurons and AA0013's 2,327 alone, with 4, 8 and 16 warps per block;
//   - each mix three ways: one grouped batch in one launch (what the library does), and its
//     largest cell as a batch of its own (8 or 16 warps) with the other cells as a second grouped
//     batch, one after the other on one stream or at once on two CUDA streams;
//   - the single cells at 25,600 neurons, for issue 6's strict ratios.
// Random diagonally dominant values (hines_driver_common.hpp), median of 9 after a warm-up; every
// split batch's checksum of x is compared with PerNeuron's on the same values (SubtreeParallel
// without split trunks: bitwise).
// Build (development machine):
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -DTRIDIAG_SUBTREE_LAUNCH_BOUNDS=896,1 -I<build>/include
//     -I<kokkos>/include --expt-extended-lambda --expt-relaxed-constexpr -fopenmp
//     hines_wide_teams_driver.cpp -o drv_wide -L<build> -ltridiag -L<kokkos>/lib -lkokkoscore
//     -lkokkoscontainers -ldl
// Run: ./drv_wide SWC_DIR
#include "hines_trunk_cells.hpp"

#include <cuda_runtime.h>
#include <memory>

#define WIDE_STR2(...) #__VA_ARGS__
#define WIDE_STR(...) WIDE_STR2(__VA_ARGS__)

namespace {
using SP = hines::algo::SubtreeParallel;

void report(const char* what, double t, index_type real, double copy) {
  printf("%-58s med %.4f ms  useful %.1f%% of copy\n", what, t * 1e3, 5.0 * 8 * real / t / 1e9 / copy * 100);
}

/// The whole mix as one grouped batch, one launch (automatic plan, split_path as given).
double one_launch(const char* name, const std::vector<Named>& cells, index_type N, index_type split_path, double copy) {
  Grouped all(cells, N);
  const double t = median_seconds([&] { all.p->solve(Exec(), SP{0, false, split_path, 0}); }, 9);
  char what[200];
  snprintf(what, sizeof what, "%s: one launch, split %lld", name, (long long)split_path);
  report(what, t, all.real, copy);
  return t;
}

/// The largest cell's share of a mix of N neurons (Named list largest first) split off: it as a
/// batch of its own (`big_warps` warps per block, split_path as given), the rest as one grouped
/// batch (automatic plan), one after the other and on two streams; and the whole mix in one launch.
void split_mix(const char* name, const std::vector<Named>& cells, index_type N, int big_warps, index_type split_path,
               double singles_ms, double copy) {
  const int C = static_cast<int>(cells.size());
  index_type first = 0;  // the first group of mixed() and the bench: s * C / N == 0
  while (first * C / N == 0) ++first;
  Grouped big({cells[0]}, first), rest(std::vector<Named>(cells.begin() + 1, cells.end()), N - first);
  const SP big_algo{big_warps, false, split_path, 0};
  const SP rest_algo{0, false, split_path, 0};
  // PerNeuron's checksums on the same values.
  big.p->solve(Exec(), hines::algo::PerNeuron{false});
  rest.p->solve(Exec(), hines::algo::PerNeuron{false});
  Kokkos::fence();
  const double ref_big = big.checksum(), ref_rest = rest.checksum();
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  {
    const Exec e1(s1), e2(s2);
    char what[200];
    const double t_big = median_seconds([&] { big.p->solve(e1, big_algo); }, 9);
    snprintf(what, sizeof what, "%s: largest cell alone (%lld), %d warps, split %lld", name, (long long)first, big_warps,
             (long long)split_path);
    report(what, t_big, big.real, copy);
    const double t_rest = median_seconds([&] { rest.p->solve(e2, rest_algo); }, 9);
    snprintf(what, sizeof what, "%s: the other cells (%lld)", name, (long long)(N - first));
    report(what, t_rest, rest.real, copy);
    const double t_seq = median_seconds([&] { big.p->solve(e1, big_algo); rest.p->solve(e1, rest_algo); }, 9);
    snprintf(what, sizeof what, "%s: both, one stream", name);
    report(what, t_seq, big.real + rest.real, copy);
    const double t_two = median_seconds([&] { big.p->solve(e1, big_algo); rest.p->solve(e2, rest_algo); }, 9);
    snprintf(what, sizeof what, "%s: both, two streams", name);
    report(what, t_two, big.real + rest.real, copy);
    Kokkos::fence();
    const double c_big = big.checksum(), c_rest = rest.checksum();
    printf("%s: checksums largest %.17g (PerNeuron %.17g), others %.17g (PerNeuron %.17g)%s\n", name, c_big, ref_big,
           c_rest, ref_rest, c_big == ref_big && c_rest == ref_rest ? ", equal" : ", DIFFER");
    if (singles_ms > 0)
      printf("%s: strict ratio two streams %.3f (singles %.4f ms)\n", name, singles_ms / (t_two * 1e3), singles_ms);
  }
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const TrunkCells cells = trunk_cells(argv[1]);
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s; SubtreeParallel launch bounds %s\n", copy, WIDE_STR(TRIDIAG_SUBTREE_LAUNCH_BOUNDS));
    const index_type N = 25600;
    for (int w : {4, 8, 16}) {
      const auto morph = hines::make_morphologies<Mem>({cells.classes[0].parent});
      char what[100];
      snprintf(what, sizeof what, "big-high SP %d warps", w);
      run<layouts::Interleaved>(what, morph, {}, 4267, 4267 * morph.rows(), copy, SP{w, false, 0, 0});
    }
    for (index_type split : {index_type(0), index_type(64)})
      for (int w : {8, 16}) {
        const auto morph = hines::make_morphologies<Mem>({cells.aa0013.parent});
        char what[100];
        snprintf(what, sizeof what, "AA0013 SP %d warps split %lld", w, (long long)split);
        run<layouts::Interleaved>(what, morph, {}, 2327, 2327 * morph.rows(), copy, SP{w, false, split, 0});
      }
    double sum6 = 0, sum11 = 0;
    for (const auto& c : cells.classes) sum6 += alone(c, N, copy) / cells.classes.size();
    for (const auto& c : cells.shared) sum11 += alone(c, N, copy) / cells.shared.size();
    const double mix6 = one_launch("six classes", cells.classes, N, 0, copy);
    printf("six classes at 25600: singles %.4f ms, one launch %.4f ms, ratio %.3f\n", sum6 * 1e3, mix6 * 1e3, sum6 / mix6);
    for (int w : {8, 16}) split_mix("six classes", cells.classes, N, w, 0, sum6 * 1e3, copy);
    const double mix11 = std::min(one_launch("11 cells", cells.shared, N, 0, copy), one_launch("11 cells", cells.shared, N, 64, copy));
    printf("11 cells at 25600: singles %.4f ms, one launch %.4f ms, ratio %.3f\n", sum11 * 1e3, mix11 * 1e3, sum11 / mix11);
    for (int w : {8, 16})
      for (index_type split : {index_type(0), index_type(64)}) split_mix("11 cells", cells.shared, N, w, split, sum11 * 1e3, copy);
  }
  Kokkos::finalize();
  return 0;
}

// Driver of the exclusive-multiprocessor experiment of issue 6 (not part of the library; results in
// docs/performance.md). The mixes at 25,600 neurons end with their largest cells' chains
// (AA0013's, big-high's). Alone, AA0013's 2,327 neurons with 16 warps per block of 32 neurons and a
// split trunk take 0.57 ms on 73 multiprocessors; beside the other cells' teams on a second stream
// they lose most of that (hines_wide_teams_driver.cpp: the mix 1.28 ms, strict ratio 0.82). Here
// the largest cell's teams are filled up to 28 warps with warps that have no work
// (hines_exclusive_sm.patch: 28 x 32 threads x 72 registers fill a multiprocessor's 65,536), so
// that no other team shares their multiprocessors, and launched first, on a stream of the highest
// priority; the other cells run beside them on the remaining multiprocessors, on a second stream.
// Times (median of 9 after a warm-up, ms) with issue 6's strict ratio against the singles (the
// faster of SubtreeParallel and Automatic at 25,600 neurons, hines_trunk_cells.hpp's alone).
// Build (development machine), with hines_exclusive_sm.patch applied to the headers:
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -I<build>/include -I<kokkos>/include --expt-extended-lambda
//     --expt-relaxed-constexpr -fopenmp hines_exclusive_sm_driver.cpp -o drv_exclusive -L<build>
//     -ltridiag -L<kokkos>/lib -lkokkoscore -lkokkoscontainers -ldl
// Run: ./drv_exclusive SWC_DIR
#include "hines_trunk_cells.hpp"

#include <cuda_runtime.h>

namespace {
using SP = hines::algo::SubtreeParallel;

void report(const std::string& what, double t, double singles_ms) {
  printf("%-72s %.4f ms", what.c_str(), t * 1e3);
  if (singles_ms > 0) printf("  strict ratio %.3f", singles_ms / (t * 1e3));
  printf("\n");
}

/// The first `big` cells of a mix of N neurons (largest first, N / C each, as mixed_batch deals
/// them) as one batch and the others as a second, each with SubtreeParallel (automatic plan, the
/// split_path given; the big batch `big_warps` warps per block, 0: automatic), the big batch's teams
/// filled to `team_warps` warps (0: not), on two streams, the big one of the highest priority.
void split_mix(const char* name, const std::vector<Named>& cells, index_type N, int big, int big_warps, index_type split_path,
               int team_warps, double singles_ms) {
  const int C = static_cast<int>(cells.size());
  index_type first = 0;  // neurons of the first `big` groups: s * C / N < big
  while (first * C / N < big) ++first;
  Grouped head(std::vector<Named>(cells.begin(), cells.begin() + big), first),
      rest(std::vector<Named>(cells.begin() + big, cells.end()), N - first);
  const SP head_algo{big_warps, false, split_path, 0};
  const SP rest_algo{0, false, split_path, 0};
  head.p->solve(Exec(), hines::algo::PerNeuron{false});
  rest.p->solve(Exec(), hines::algo::PerNeuron{false});
  Kokkos::fence();
  const double ref_head = head.checksum(), ref_rest = rest.checksum();
  int least = 0, greatest = 0;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  cudaStream_t s1, s2;
  cudaStreamCreateWithPriority(&s1, cudaStreamNonBlocking, greatest);
  cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, least);
  {
    const Exec e1(s1), e2(s2);
    char what[240];
    auto launch_head = [&] {
      hines::impl::experiment_team_warps = team_warps;
      head.p->solve(e1, head_algo);
      hines::impl::experiment_team_warps = 0;
    };
    snprintf(what, sizeof what, "%s: first %d cell(s) (%lld neurons), %d warps, split %lld, teams of %d", name, big,
             (long long)first, big_warps, (long long)split_path, team_warps);
    report(std::string(what) + ", alone", median_seconds(launch_head, 9), 0);
    report(std::string(what) + ", the others alone", median_seconds([&] { rest.p->solve(e2, rest_algo); }, 9), 0);
    report(std::string(what) + ", both on two streams", median_seconds([&] { launch_head(); rest.p->solve(e2, rest_algo); }, 9),
           singles_ms);
    Kokkos::fence();
    const double c_head = head.checksum(), c_rest = rest.checksum();
    printf("  checksums: first %.17g (PerNeuron %.17g), others %.17g (PerNeuron %.17g), relative differences %.1e %.1e\n",
           c_head, ref_head, c_rest, ref_rest, std::abs(c_head - ref_head) / std::abs(ref_head),
           std::abs(c_rest - ref_rest) / std::abs(ref_rest));
  }
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}
}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  Kokkos::initialize(argc, argv);
  {
    const TrunkCells cells = trunk_cells(argv[1]);
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s\n", copy);
    const index_type N = 25600;
    double sum6 = 0, sum11 = 0;
    for (const auto& c : cells.classes) sum6 += alone(c, N, copy) / cells.classes.size();
    for (const auto& c : cells.shared) sum11 += alone(c, N, copy) / cells.shared.size();
    const MixedBatch m6 = mixed_batch(cells.classes, N);
    const double mix6 = std::min(mixed("six classes one launch (SP auto)", cells.classes, N, copy),
                                 run<layouts::Interleaved>("six classes one launch (Automatic)", m6.morph, m6.ids, N, m6.real, copy,
                                                           hines::algo::Automatic{false}));
    const MixedBatch m11 = mixed_batch(cells.shared, N);
    const double mix11 = run<layouts::Interleaved>("11 cells one launch (Automatic)", m11.morph, m11.ids, N, m11.real, copy,
                                                   hines::algo::Automatic{false});
    printf("six classes at 25600: singles %.4f ms, one launch %.4f ms, strict ratio %.3f\n", sum6 * 1e3, mix6 * 1e3, sum6 / mix6);
    printf("11 cells at 25600: singles %.4f ms, one launch %.4f ms, strict ratio %.3f\n", sum11 * 1e3, mix11 * 1e3, sum11 / mix11);
    printf("11 cells, largest first:");
    for (const auto& c : cells.shared) printf(" %s (%zu)", c.name.c_str(), c.parent.size());
    printf("\n");
    for (int big : {1, 2, 3})
      for (int warps : {16, 8})
        for (int team : {0, 28}) split_mix("11 cells", cells.shared, N, big, warps, 64, team, sum11 * 1e3);
    for (int big : {1, 2})
      for (int warps : {8, 16})
        for (int team : {0, 28}) split_mix("six classes", cells.classes, N, big, warps, 64, team, sum6 * 1e3);
  }
  Kokkos::finalize();
  return 0;
}

// Experiment (not part of the library): does a warp that stages a few whole neurons in shared
// memory and solves each with several lanes reach issue 6's 70% of copy at 256,000 neurons?
// docs/performance.md ("keeping the eliminated entries on chip") found that one thread per neuron
// cannot keep enough of its rows on chip at a memory-bound occupancy, and estimated that g >= 5
// threads per neuron, the neuron in scratch, would be needed. This kernel tries exactly that, in
// raw CUDA (dynamic shared memory beyond Kokkos 3.4's 40 KiB per team):
//   - one warp per NPW consecutive neurons of layouts::Interleaved (NPW = 8, 4, 2 or 1; main()
//     runs 8 and 4), their
//     d and rhs (and with STAGE_AB also a and b) copied into the warp's shared memory with
//     coalesced loads (a warp load covers 32 / NPW rows of NPW neighbouring neurons);
//   - lane l on neuron l % NPW as group l / NPW of G = 32 / NPW: the library's subtree partition
//     for G groups (subtree_partition.hpp, partition_tree), level after level, __syncwarp() as the
//     level barrier, then the trunk by group 0, then the substitution back; w and x kept in place
//     of d and rhs in shared memory (the sweep reads d(i) or the partial w(i) from the same word);
//   - x written back with coalesced stores: 5 values of DRAM traffic per row (a, b, d, rhs, x).
// Same operations per row as SerialHines (serial_hines.hpp): x must equal the library's PerNeuron
// bit for bit (the checksum). Not included, unlike the library: the pivot and finiteness checks
// (a little fewer instructions than a library kernel would run).
// Build (development machine, as hines_lean_driver.cpp):
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -I<build>/include -I<kokkos>/include
//     --expt-extended-lambda -fopenmp hines_warp_staged_driver.cpp -o drv_ws -L<kokkos>/lib
//     -lkokkoscore -lkokkoscontainers -ldl
// Run: ./drv_ws 256000 c0.txt [more parent files] (a parent file: the row count, then parent(i))
// Results: docs/performance.md, "a warp per few neurons, staged in shared memory".
#include "hines_driver_common.hpp"

namespace ws {

/// The partition of one cell for G groups, flattened for the kernel: slot (level, group) rows in
/// elimination order (decreasing) at slot_rows[slot_begin[slot] .. slot_begin[slot + 1]), the
/// trunk increasing.
struct Schedule {
  int levels = 0, trunk_len = 0;
  index_type critical = 0;
  Kokkos::View<int*, Mem> slot_begin, slot_rows, slot_links, trunk, trunk_links;
};

Schedule make_schedule(const std::vector<int>& parent, const std::vector<int>& links, int G) {
  const auto cut = hines::impl::partition_tree(parent.data(), static_cast<index_type>(parent.size()), G);
  std::vector<int> begin(1, 0), rows;
  for (const auto& slot : cut.runs) {
    for (const auto& [first, last] : slot)
      for (int i = last; i >= first; --i) rows.push_back(i);
    begin.push_back(static_cast<int>(rows.size()));
  }
  auto up = [](const char* what, const std::vector<int>& v) {
    Kokkos::View<int*, Mem> d(std::string(what), std::max<std::size_t>(1, v.size()));
    auto h = Kokkos::create_mirror_view(d);
    for (std::size_t k = 0; k < v.size(); ++k) h(k) = v[k];
    Kokkos::deep_copy(d, h);
    return d;
  };
  Schedule s;
  s.levels = cut.levels;
  s.trunk_len = static_cast<int>(cut.trunk.size());
  s.critical = cut.critical_rows;
  s.slot_begin = up("slot_begin", begin);
  s.slot_rows = up("slot_rows", rows);
  s.trunk = up("trunk", cut.trunk);
  std::vector<int> row_links, trunk_links;
  for (int i : rows) row_links.push_back(links[i]);
  for (int i : cut.trunk) trunk_links.push_back(links[i]);
  s.slot_links = up("slot_links", row_links);
  s.trunk_links = up("trunk_links", trunk_links);
  return s;
}

struct Args {
  const double *a, *b, *d, *rhs;
  double* x;
  long N;
  int n;
  const int *slot_begin, *slot_rows, *slot_links, *trunk, *trunk_links;
  int trunk_len, levels;
  long long* phases;  ///< per warp: cycles of staging, elimination, substitution, store (or null)
};

template <int NPW, bool STAGE_AB, int BATCH, int PD>
__global__ void __launch_bounds__(32) warp_staged(Args g) {
  extern __shared__ double sh[];
  constexpr int G = 32 / NPW;
  long long clock0 = clock64(), clocks[4];
  const int lane = threadIdx.x;
  const long base = static_cast<long>(blockIdx.x) * NPW;
  const int n = g.n;
  const long N = g.N;
  double* D = sh;            // d, then w (partial, then c_i)
  double* R = sh + n * NPW;  // rhs, then x (partial, then r_i, then the solution)
  double* A = sh + 2 * n * NPW;
  double* B = sh + 3 * n * NPW;
  // 1. Stage: lanes on neighbouring (row, neuron) words, NPW neurons per row.
  // BATCH rows of loads issued before their stores to shared memory (BATCH = 1: one at a time).
  for (int e0 = lane; e0 < n * NPW; e0 += 32 * BATCH) {
    double td[BATCH], tr[BATCH], ta[BATCH], tb[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      const int e = e0 + 32 * u;
      if (e < n * NPW) {
        const long at = static_cast<long>(e / NPW) * N + base + e % NPW;
        td[u] = g.d[at];
        tr[u] = g.rhs[at];
        if constexpr (STAGE_AB) {
          ta[u] = g.a[at];
          tb[u] = g.b[at];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      const int e = e0 + 32 * u;
      if (e < n * NPW) {
        D[e] = td[u];
        R[e] = tr[u];
        if constexpr (STAGE_AB) {
          A[e] = ta[u];
          B[e] = tb[u];
        }
      }
    }
  }
  __syncwarp();
  clocks[0] = clock64();
  const int m = lane % NPW, k = lane / NPW;
  auto ab = [&](int i, double& ai, double& bi) {
    if constexpr (STAGE_AB) {
      ai = A[i * NPW + m];
      bi = B[i * NPW + m];
    } else {
      const long at = static_cast<long>(i) * N + base + m;
      ai = __ldg(g.a + at);
      bi = __ldg(g.b + at);
    }
  };
  // One row of SerialHines' backward sweep, w and x in place of d and rhs.
  double wc = 0, xc = 0;
  bool carried = false;
  auto eliminate = [&](int i, int link, int next, double ai, double bi) {
    const int p = hines::TreeLinks::parent(link);
    double wi, xi;
    if (carried) {
      wi = wc;
      xi = xc;
    } else {
      wi = D[i * NPW + m];
      xi = R[i * NPW + m];
    }
    carried = false;
    const double ri = xi / wi;
    R[i * NPW + m] = ri;
    if (p >= 0) {
      double wp = D[p * NPW + m], xp = R[p * NPW + m];
      const double ci = ai / wi;
      D[i * NPW + m] = ci;
      wp -= bi * ci;
      xp -= bi * ri;
      if (p == next) {
        wc = wp;
        xc = xp;
        carried = true;
      } else {
        D[p * NPW + m] = wp;
        R[p * NPW + m] = xp;
      }
    }
  };
  // One sequence of rows eliminated in turn, at positions first, first + step, ... (count of
  // them) of rows / lks: each row's index, link, a and b loaded PD positions ahead into a ring of
  // registers (from global memory without STAGE_AB), so that a step waits on no table or input
  // load, only on its own shared-memory entries.
  auto walk = [&](const int* rows, const int* lks, int first, int count, int step) {
    carried = false;
    int rn[PD], ln[PD];
    double an[PD], bn[PD];
#pragma unroll
    for (int u = 0; u < PD; ++u)
      if (u < count) {
        rn[u] = rows[first + u * step];
        ln[u] = lks[first + u * step];
        ab(rn[u], an[u], bn[u]);
      }
    for (int t0 = 0; t0 < count; t0 += PD) {
#pragma unroll
      for (int u = 0; u < PD; ++u) {
        const int t = t0 + u;
        if (t < count) {
          const int i = rn[u], link = ln[u];
          const double ai = an[u], bi = bn[u];
          if (t + PD < count) {
            rn[u] = rows[first + (t + PD) * step];
            ln[u] = lks[first + (t + PD) * step];
            ab(rn[u], an[u], bn[u]);
          }
          eliminate(i, link, t + 1 < count ? rn[(u + 1) % PD] : -1, ai, bi);
        }
      }
    }
  };
  // 2. Levels, each group its slot; then the trunk by group 0.
  for (int level = 0; level < g.levels; ++level) {
    const int slot = level * G + k;
    const int j0 = g.slot_begin[slot], j1 = g.slot_begin[slot + 1];
    walk(g.slot_rows, g.slot_links, j0, j1 - j0, 1);
    __syncwarp();
  }
  if (k == 0) walk(g.trunk, g.trunk_links, g.trunk_len - 1, g.trunk_len, -1);
  __syncwarp();
  clocks[1] = clock64();
  // 3. Substitution: the trunk by group 0, then the last level first, each slot's rows increasing.
  int previous_row = -1;
  double previous = 0;
  auto substitute = [&](int i, int link) {
    const int p = hines::TreeLinks::parent(link);
    double xi = R[i * NPW + m];
    if (p >= 0) xi -= D[i * NPW + m] * (p == previous_row ? previous : R[p * NPW + m]);
    R[i * NPW + m] = xi;
    previous = xi;
    previous_row = i;
  };
  if (k == 0)
    for (int j = 0; j < g.trunk_len; ++j) substitute(g.trunk[j], g.trunk_links[j]);
  __syncwarp();
  for (int level = g.levels - 1; level >= 0; --level) {
    const int slot = level * G + k;
    previous_row = -1;
    for (int j = g.slot_begin[slot + 1] - 1; j >= g.slot_begin[slot]; --j) substitute(g.slot_rows[j], g.slot_links[j]);
    __syncwarp();
  }
  clocks[2] = clock64();
  // 4. x out, coalesced.
  for (int e = lane; e < n * NPW; e += 32) g.x[static_cast<long>(e / NPW) * N + base + e % NPW] = R[e];
  clocks[3] = clock64();
  if (g.phases != nullptr && lane == 0) {
    long long* out = g.phases + 4 * static_cast<long>(blockIdx.x);
    out[0] = clocks[0] - clock0;
    for (int q = 1; q < 4; ++q) out[q] = clocks[q] - clocks[q - 1];
  }
}

template <int NPW, bool STAGE_AB, int BATCH = 8, int PD = 1>
void run(const std::vector<int>& parent, const hines::Morphologies<Mem>& morph, index_type N, double copy,
         double reference) {
  const int n = static_cast<int>(parent.size());
  const std::size_t bytes = std::size_t(STAGE_AB ? 4 : 2) * n * NPW * sizeof(double);
  char what[96];
  snprintf(what, sizeof what, "warp staged, %d neurons x %d lanes, %s, batch %d, a b %d ahead", NPW, 32 / NPW,
           STAGE_AB ? "a b d rhs" : "d rhs", BATCH, PD);
  if (bytes > 227 * 1024 || N % NPW != 0) {
    printf("%-46s skipped (%zu bytes of shared memory per warp)\n", what, bytes);
    return;
  }
  auto host_links = Kokkos::create_mirror_view(morph.links());
  Kokkos::deep_copy(host_links, morph.links());
  std::vector<int> links(n);
  for (int i = 0; i < n; ++i) links[i] = host_links(0, i);
  const Schedule s = make_schedule(parent, links, 32 / NPW);
  RandomBatch<layouts::Interleaved> p(morph, {}, N);
  Args g{p.a.data(), p.b.data(), p.d.data(), p.rhs.data(), p.x.data(), N, n, s.slot_begin.data(),
         s.slot_rows.data(), s.slot_links.data(), s.trunk.data(), s.trunk_links.data(), s.trunk_len, s.levels, nullptr};
  cudaFuncSetAttribute(warp_staged<NPW, STAGE_AB, BATCH, PD>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, warp_staged<NPW, STAGE_AB, BATCH, PD>, 32, bytes);
  const unsigned blocks = static_cast<unsigned>(N / NPW);
  const double t = median_seconds([&] { warp_staged<NPW, STAGE_AB, BATCH, PD><<<blocks, 32, bytes>>>(g); }, 9);
  const cudaError_t err = cudaGetLastError();
  double sum = 0;
  using V = BatchVector<double, layouts::Interleaved, Mem>;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Checksum<V>{p.x, index_type(n)}, sum);
  // One more run with each warp's phases timed (clock64; the runs above time nothing).
  Kokkos::View<long long*, Mem> phases("phases", 4 * std::size_t(blocks));
  Args timed = g;
  timed.phases = phases.data();
  warp_staged<NPW, STAGE_AB, BATCH, PD><<<blocks, 32, bytes>>>(timed);
  auto hp = Kokkos::create_mirror_view(phases);
  Kokkos::deep_copy(hp, phases);
  double mean[4] = {0, 0, 0, 0};
  for (unsigned w = 0; w < blocks; ++w)
    for (int q = 0; q < 4; ++q) mean[q] += double(hp(4 * w + q)) / blocks;
  const double useful = 5.0 * 8 * N * n;
  printf("%-46s N=%7lld  med %.4f ms  useful %.1f%% of copy  %2d warps/SM  chain %lld rows (%d levels, trunk %d)  %s  checksum %.17g %s\n",
         what, (long long)N, t * 1e3, useful / t / 1e9 / copy * 100, per_sm, (long long)s.critical, s.levels,
         s.trunk_len, cudaGetErrorString(err), sum, sum == reference ? "same" : "DIFFERENT");
  printf("    cycles per warp (mean): staging %.0f, elimination %.0f, substitution %.0f, store %.0f; %.0f per chain row eliminated\n",
         mean[0], mean[1], mean[2], mean[3], mean[1] / double(s.critical));
}

}  // namespace ws

int main(int argc, char** argv) {
  return for_each_cell(argc, argv, [](const std::vector<int>& parent, const hines::Morphologies<Mem>& morph,
                                      index_type N, double copy) {
    const index_type n = morph.rows();
    using V = BatchVector<double, layouts::Interleaved, Mem>;
    double reference = 0;
    {
      RandomBatch<layouts::Interleaved> problem(morph, {}, N);
      problem.solve(Exec(), hines::algo::PerNeuron{false});
      Kokkos::fence();
      Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Checksum<V>{problem.x, n}, reference);
    }
    run<layouts::Interleaved>("library PerNeuron Interleaved", morph, {}, N, N * n, copy, hines::algo::PerNeuron{false});
    ws::run<8, true, 8, 1>(parent, morph, N, copy, reference);
    ws::run<8, true, 8, 2>(parent, morph, N, copy, reference);
    ws::run<8, false, 16, 1>(parent, morph, N, copy, reference);
    ws::run<8, false, 16, 2>(parent, morph, N, copy, reference);
    ws::run<8, false, 16, 4>(parent, morph, N, copy, reference);
    ws::run<4, false, 16, 4>(parent, morph, N, copy, reference);
    ws::run<4, true, 8, 2>(parent, morph, N, copy, reference);
  });
}

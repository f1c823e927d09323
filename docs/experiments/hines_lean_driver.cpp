// Experiment (not part of the library): can one thread per neuron keep a neuron's eliminated
// entries in the H100's L2 between its two sweeps? PerNeuron moves ~9.2 values of DRAM traffic per
// row at 256,000 neurons (docs/performance.md): a, b, d, rhs read, w and x written by the backward
// sweep, read back by the forward one, x written again. Only 5 are useful; 70% of copy needs <= ~6.6.
// Here a lean one-thread-per-neuron Hines kernel for a batch of copies of one cell on Interleaved
// (the same operations as SerialHines, so the same bits) runs
//   - with HINT 0: plain accesses; 1: the inputs read evict-first (ld.global.cs) and the final x
//     written evict-first (st.global.cs), so that the streams do not push w and x out of L2;
//     2: as 1, and each 128-byte line of w dropped from L2 without its write-back
//     (discard.global.L2) once the warp's forward sweep has read it;
//   - with fewer warps per multiprocessor (team scratch requested only to limit residency), so
//     that the neurons in flight times their entries fit in L2.
// Prints the median time of 9 after a warm-up, % of copy in useful bytes and a checksum of x
// (equal to the library's PerNeuron: the same operations).
// Build (development machine, CUDA Kokkos from scripts/deps/build_kokkos.sh --backend cuda):
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -I<build>/include -I<kokkos>/include
//     --expt-extended-lambda -fopenmp hines_lean_driver.cpp -o drv_lean -L<kokkos>/lib
//     -lkokkoscore -lkokkoscontainers -ldl
// Run: ./drv_lean c0.txt 256000 [more sizes] (a parent file: the row count, then parent(i) per line)
// Results: docs/performance.md, "can L2 keep a neuron's eliminated entries between the sweeps?".
#include "hines_driver_common.hpp"
#include <cstdint>

namespace lean {
template <int HINT>
KOKKOS_FORCEINLINE_FUNCTION double load_in(const double* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (HINT >= 1) return __ldcs(p);
#endif
  return *p;
}
template <int HINT>
KOKKOS_FORCEINLINE_FUNCTION void store_out(double* p, double v) {
#if defined(__CUDA_ARCH__)
  if constexpr (HINT >= 1) { __stcs(p, v); return; }
#endif
  *p = v;
}
KOKKOS_FORCEINLINE_FUNCTION void prefetch_l2(const double* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.L2 [%0];" ::"l"(p));
#else
  (void)p;
#endif
}

template <int HINT, int PF>
struct Kernel {
  const double *a, *b, *d, *rhs;
  double *x, *w;
  const int* links;  // the cell's TreeLinks, shared by every neuron
  int n;
  index_type N;
  StatusView<Mem> status;

  KOKKOS_FORCEINLINE_FUNCTION void solve(index_type s) const {
    using hines::TreeLinks;
    const index_type stride = N;
    const double *as = a + s, *bs = b + s, *ds = d + s, *rs = rhs + s;
    double *xs = x + s, *ws = w + s;
    double wc = 0, xc = 0;
    bool carried = false;
    int bad_rhs = n;
    for (int i = n - 1; i >= 0; --i) {
      const index_type o = i * stride;
      if (PF > 0 && i >= PF) {
        const index_type q = (i - PF) * stride;
        prefetch_l2(as + q); prefetch_l2(bs + q); prefetch_l2(ds + q); prefetch_l2(rs + q);
      }
      const int link = links[i];
      const bool leaf = (link & TreeLinks::has_children) == 0, first = (link & TreeLinks::first_child) != 0;
      const int p = TreeLinks::parent(link);
      double wi, xi;
      if (carried) { wi = wc; xi = xc; }
      else if (leaf) { wi = load_in<HINT>(ds + o); xi = load_in<HINT>(rs + o); }
      else { wi = ws[o]; xi = xs[o]; }
      double ai = 0, bi = 0, wp = 0, xp = 0;
      const index_type op = index_type(p) * stride;
      if (p >= 0) {
        ai = load_in<HINT>(as + o); bi = load_in<HINT>(bs + o);
        if (first) { wp = load_in<HINT>(ds + op); xp = load_in<HINT>(rs + op); }
        else { wp = ws[op]; xp = xs[op]; }
      }
      if (!carried && leaf && !tridiag::compat::isfinite(xi) && i < bad_rhs) bad_rhs = i;
      if (!tridiag::impl::usable_pivot(wi)) {
        for (int k = 0; k < n; ++k) xs[k * stride] = tridiag::compat::quiet_nan<double>();
        status(s) = i + 1;
        return;
      }
      carried = false;
      const double ri = xi / wi;
      xs[o] = ri;
      if (p >= 0) {
        if (first && !tridiag::compat::isfinite(xp) && p < bad_rhs) bad_rhs = p;
        const double ci = ai / wi;
        ws[o] = ci;
        wp -= bi * ci;
        xp -= bi * ri;
        if (p == i - 1) { wc = wp; xc = xp; carried = true; }
        else { ws[op] = wp; xs[op] = xp; }
      }
    }
    int bad_x = n;
    double previous = 0;
    for (int i = 0; i < n; ++i) {
      const index_type o = i * stride;
      if (PF > 0 && i + PF < n) { prefetch_l2(xs + (i + PF) * stride); prefetch_l2(ws + (i + PF) * stride); }
      const int p = TreeLinks::parent(links[i]);
      double xi = xs[o];
      if (p >= 0) {
        const double wi = ws[o];
        xi -= wi * (p == i - 1 ? previous : xs[index_type(p) * stride]);
      }
      if (bad_x == n && !tridiag::compat::isfinite(xi)) bad_x = i;
      store_out<HINT>(xs + o, xi);
      previous = xi;
#if defined(__CUDA_ARCH__)
      if constexpr (HINT >= 2) {  // every lane of the warp has read its w(i): drop the lines
        if (p >= 0) {
          __syncwarp();
          if ((threadIdx.x & 15) == 0) asm volatile("discard.global.L2 [%0], 128;" ::"l"(ws + o) : "memory");
        }
      }
#endif
    }
    int code = 0;
    if (bad_rhs < n || bad_x < n) {
      for (int k = 0; k < n; ++k) xs[k * stride] = tridiag::compat::quiet_nan<double>();
      code = -((bad_rhs < n ? bad_rhs : bad_x) + 1);
    }
    status(s) = code;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type& m) const {
    const index_type s = index_type(m.league_rank()) * m.team_size() + m.team_rank();
    if (s < N) solve(s);
  }
  KOKKOS_INLINE_FUNCTION void operator()(index_type s) const { solve(s); }
};
}  // namespace lean

template <int HINT, int PF>
double run_lean(const char* what, const hines::Morphologies<Mem>& morph, index_type N, double copy, int scratch,
                double reference) {
  const index_type n = morph.rows();
  using V = BatchVector<double, layouts::Interleaved, Mem>;
  RandomBatch<layouts::Interleaved> p(morph, {}, N);  // a, b, d, rhs, x, w, status; the batch unused
  const V &a = p.a, &b = p.b, &d = p.d, &rhs = p.rhs, &x = p.x, &w = p.w;
  const StatusView<Mem>& status = p.status;
  lean::Kernel<HINT, PF> k{a.data(), b.data(), d.data(), rhs.data(), x.data(), w.data(), morph.links().data(), int(n), N, status};
  if (HINT >= 2 && (N % 16 != 0 || reinterpret_cast<std::uintptr_t>(w.data()) % 128 != 0)) {
    printf("%s: skipped (discard needs N %% 16 == 0 and 128-byte aligned w)\n", what);
    return 0;
  }
  auto launch = [&]() {
    if (scratch < 0) {
      Kokkos::parallel_for("lean_range", Kokkos::RangePolicy<Exec>(0, N), k);
    } else {
      Kokkos::TeamPolicy<Exec> policy((N + 31) / 32, 32);
      if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
      Kokkos::parallel_for("lean_team", policy, k);
    }
  };
  const double t = median_seconds(launch, 9);
  double sum = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Checksum<V>{x, n}, sum);
  const double useful = 5.0 * 8 * N * n;
  printf("%-40s N=%7lld  med %.4f ms  useful %.1f%% of copy  checksum %.17g %s\n", what, (long long)N, t * 1e3,
         useful / t / 1e9 / copy * 100, sum, sum == reference ? "same" : "DIFFERENT");
  return t;
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const auto morph = hines::make_morphologies<Mem>({load(argv[1])});
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s, cell %s, %d rows\n", copy, argv[1], (int)morph.rows());
    const Kokkos::View<int*, Mem> none;
    for (int k = 2; k < argc; ++k) {
      const index_type N = atoll(argv[k]);
      // The library's PerNeuron: the reference checksum.
      const index_type n = morph.rows();
      using V = BatchVector<double, layouts::Interleaved, Mem>;
      double reference = 0;
      {
        RandomBatch<layouts::Interleaved> problem(morph, none, N);
        problem.solve(Exec(), hines::algo::PerNeuron{false});
        Kokkos::fence();
        Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Checksum<V>{problem.x, n}, reference);
      }
      run<layouts::Interleaved>("library PerNeuron Interleaved", morph, none, N, N * n, copy, hines::algo::PerNeuron{false});
      run_lean<0, 1>("lean range h0 pf1", morph, N, copy, -1, reference);
      run_lean<1, 1>("lean range h1 pf1", morph, N, copy, -1, reference);
      run_lean<2, 1>("lean range h2 pf1", morph, N, copy, -1, reference);
      run_lean<0, 0>("lean range h0 pf0", morph, N, copy, -1, reference);
      for (int sc : {0, 12288, 16384, 24576, 40960}) {
        char what[64];
        snprintf(what, sizeof what, "lean team32 scratch %d h0 pf1", sc);
        run_lean<0, 1>(what, morph, N, copy, sc, reference);
        snprintf(what, sizeof what, "lean team32 scratch %d h1 pf1", sc);
        run_lean<1, 1>(what, morph, N, copy, sc, reference);
        snprintf(what, sizeof what, "lean team32 scratch %d h2 pf1", sc);
        run_lean<2, 1>(what, morph, N, copy, sc, reference);
        snprintf(what, sizeof what, "lean team32 scratch %d h2 pf4", sc);
        run_lean<2, 4>(what, morph, N, copy, sc, reference);
      }
    }
  }
  Kokkos::finalize();
}

// Host check of the split-trunk experiment (docs/experiments/hines_split_trunk.patch; not part of
// the library): SubtreeParallel{warps} against PerNeuron on the same random batch (Serial, and
// OpenMP teams of several groups: the barriers), AA0013 alone, four shared cells mixed, the six
// size classes mixed; prints the largest |difference| / max |x| and the failed statuses. Build
// (development machine, host Kokkos): g++ -std=c++17 -O2 -fopenmp -I<patched headers> -I<kokkos>/include
// hines_split_trunk_host_check.cpp -L<host build> -ltridiag -L<kokkos>/lib -lkokkoscore -ldl
// Run: TRIDIAG_TRUNK_SPLIT_MIN=64 OMP_NUM_THREADS=4 ./split_check SWC_DIR (16: the six classes'
// short trunks split too). Result at 07976b0 + the patch (2026-11-26): 1.1e-16 to 1.7e-16 with 8
// and 16 groups, 0 (bitwise equal: nothing split) where the path is shorter than the threshold.
#include <tridiag/tridiag.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <cstdio>
#include <cmath>
#include <string>
using namespace tridiag;
using Mem = Kokkos::HostSpace;
using Layout = layouts::Interleaved;
using V = BatchVector<double, Layout, Mem>;

std::vector<int> cell(const std::string& path, double len) {
  hines::DiscretizationOptions o;
  if (len > 0) o.max_length_um = len;
  return hines::discretize(hines::load_swc(path), o).parent;
}

template <class Exec>
void check(const char* what, const std::vector<std::vector<int>>& parents, index_type N, int warps) {
  const auto morph = hines::make_morphologies<Mem>(parents);
  const int C = parents.size();
  Kokkos::View<int*, Mem> ids("ids", N);
  for (index_type s = 0; s < N; ++s) ids(s) = int(s * C / N);
  const index_type rows = morph.rows();
  V a("a", Layout(N, rows)), b("b", Layout(N, rows)), d("d", Layout(N, rows)), rhs("rhs", Layout(N, rows)),
      x1("x1", Layout(N, rows)), x2("x2", Layout(N, rows)), w("w", Layout(N, rows));
  unsigned long long st = 12345;
  auto rnd = [&]() { st = st * 6364136223846793005ull + 1442695040888963407ull; return double(st >> 11) * (1.0 / 9007199254740992.0); };
  for (index_type s = 0; s < N; ++s) {
    const int m = ids(s);
    for (index_type i = 0; i < rows; ++i) { a(s, i) = -0.1 - rnd(); b(s, i) = -0.1 - rnd(); rhs(s, i) = rnd() - 0.5; d(s, i) = 0.5 + rnd(); }
    for (index_type i = 1; i < (index_type)parents[m].size(); ++i) { const int p = parents[m][i]; d(s, i) += -a(s, i) + 0.1; d(s, p) += -b(s, i); }
  }
  hines::HinesBatch<double, Layout, Mem> batch(morph, C > 1 ? ids : Kokkos::View<int*, Mem>(), a, b, d);
  StatusView<Mem> st1("st1", N), st2("st2", N);
  for (index_type s = 0; s < N; ++s) for (index_type i = 0; i < rows; ++i) { x1(s, i) = NAN; x2(s, i) = NAN; }
  hines::solve(Exec(), batch, rhs, x1, st1, {}, hines::algo::PerNeuron{});
  hines::solve(Exec(), batch, rhs, x2, st2, hines::Workspace<double, Layout, Mem>(w), hines::algo::SubtreeParallel{warps, true});
  Kokkos::fence();
  double maxdiff = 0, maxx = 0; int bad = 0, identical = 1;
  for (index_type s = 0; s < N; ++s) {
    if (st1(s) != 0 || st2(s) != 0) ++bad;
    for (index_type i = 0; i < rows; ++i) {
      const double u = x1(s, i), v = x2(s, i);
      if (!(std::fabs(u - v) <= maxdiff)) maxdiff = std::isnan(u - v) ? INFINITY : std::fabs(u - v);
      maxx = std::max(maxx, std::fabs(u));
      if (u != v) identical = 0;
    }
  }
  printf("%-28s N=%5lld warps %2d: max|diff| / max|x| = %.3g%s, bad status %d\n", what, (long long)N, warps, maxdiff / maxx,
         identical ? " (bitwise equal)" : "", bad);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::string dir = argv[1];
    std::vector<std::vector<int>> classes, shared;
    for (int k = 5; k >= 0; --k) {
      const auto& c = hines::seed_size_classes[k];
      classes.push_back(cell(dir + "/" + c.shared_file, c.max_length_um));
    }
    for (const char* f : {"AA0013.swc", "BG001.CNG.swc", "10-2012-02-09-001.CNG.swc", "tc200.CNG.swc"})
      shared.push_back(cell(dir + "/" + f, 0));
    for (int warps : {1, 2, 8, 16}) {
      check<Kokkos::Serial>("Serial AA0013", {shared[0]}, 3, warps);
      check<Kokkos::OpenMP>("OpenMP AA0013", {shared[0]}, 5, warps);
      check<Kokkos::OpenMP>("OpenMP shared4 mix", shared, 8, warps);
      check<Kokkos::OpenMP>("OpenMP six classes", classes, 12, warps);
    }
  }
  Kokkos::finalize();
}

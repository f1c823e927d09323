// Backward error of every tridiagonal solver on weakly diagonally dominant SPD matrices: implicit
// diffusion through a high-contrast medium, rows (-k_i, k_i + k_{i+1}, -k_{i+1}) with k
// log-uniform in 10^[-C, C], 64 systems per batch, random right-hand sides in [-1, 1], Flat,
// double, on the default execution space (a GPU in a CUDA build). Each solver as a user calls it
// (partitioned with its own plan, tridiag::solve's automatic choice), and partitioned with 2 to 64
// threads per system where the space allows. docs/numerics.md gives the runs and their output.
//
// Backward error of a system: ||A x - d||_inf / (||A||_inf ||x||_inf + ||d||_inf) in long double
// (batch_backward_error.hpp); the worst over the systems with status 0, in units of double's eps.
// The unit tests' bound is 8 (n + 1) eps.
//
// Build: against an installed tridiag, like examples/consumer (host: g++ -std=c++17 -fopenmp -O2
// with tridiag's and Kokkos' include folders, libtridiag.a and -lkokkoscontainers -lkokkoscore
// -ldl; CUDA: the same with Kokkos' bin/nvcc_wrapper -arch=sm_90 --expt-extended-lambda).
// Run: OMP_NUM_THREADS=64 OMP_PROC_BIND=false ./probe   (a team of the partitioned solver has at
// most as many threads as the space: 64 lets it cut a system into up to 64 chunks, as a GPU does)
#include "batch_backward_error.hpp"

#include <tridiag/tridiag.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace tridiag;
using E = Kokkos::DefaultExecutionSpace;
using M = E::memory_space;
using L = layouts::Flat;

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::printf("%s\n", configuration_string().c_str());
    std::printf("%-6s %-6s %-72s %-8s %s\n", "C", "n", "solver", "failed", "worst backward error (eps)");
    for (const double C : {2.0, 3.0, 8.0})
      for (const index_type n : {64, 200, 512, 1000, 4096, 20000}) {
        const index_type systems = 64;
        std::mt19937_64 gen(11);
        std::uniform_real_distribution<double> u(-1, 1);
        auto sys = allocate_system<L, double, M>("s", systems, n);
        auto ha = create_host_copy(sys.matrix.lower), hb = create_host_copy(sys.matrix.diag),
             hc = create_host_copy(sys.matrix.upper), hd = create_host_copy(sys.rhs);
        std::vector<double> k(n + 1);
        for (index_type s = 0; s < systems; ++s) {
          for (auto& v : k) v = std::pow(10.0, C * u(gen));
          for (index_type i = 0; i < n; ++i) {
            hb(s, i) = k[i] + k[i + 1];
            ha(s, i) = i > 0 ? -k[i] : 0.0;  // zero corners: the stored matrix is the one solved
            hc(s, i) = i + 1 < n ? -k[i + 1] : 0.0;
            hd(s, i) = u(gen);
          }
        }
        deep_copy(sys.matrix.lower, ha), deep_copy(sys.matrix.diag, hb), deep_copy(sys.matrix.upper, hc);
        deep_copy(sys.rhs, hd);
        BatchVector<double, L, M> x("x", systems, n);
        StatusView<M> status("status", systems);
        const auto report = [&](const std::string& name) {
          const BatchBackwardError e = batch_backward_error(ha, hb, hc, hd, x, status);
          std::printf("%-6g %-6lld %-72s %-8d %.3Lg\n", C, static_cast<long long>(n), name.c_str(), e.failed,
                      e.worst / 2.220446049250313e-16L);
        };
        Kokkos::deep_copy(status, -1);
        thomas::solve(E(), sys.matrix, sys.rhs, x, status);
        report("thomas");
        pivoting::solve(E(), sys.matrix, sys.rhs, x, status);
        report("pivoting");
        for (const auto algorithm : {cyclic::Algorithm::cr, cyclic::Algorithm::pcr, cyclic::Algorithm::cr_pcr}) {
          if (cyclic::scratch_bytes<double>(n, algorithm) > cyclic::scratch_capacity<E>()) continue;
          cyclic::solve(E(), sys.matrix, sys.rhs, x, status, algorithm);
          report(cyclic::name(algorithm));
        }
        partitioned::solve(E(), sys.matrix, sys.rhs, x, status);
        report("partitioned (" + partitioned::plan(E(), systems, n).describe() + ")");
        for (const int P : {2, 8, 32, 64}) {
          partitioned::Options options;
          options.threads_per_system = P;
          options.systems_per_team = 1;
          options.split = partitioned::Options::Split::never;
          try {
            partitioned::solve(E(), sys.matrix, sys.rhs, x, status, options);
          } catch (const invalid_argument&) {
            continue;  // more threads than a team can have here, or chunks too long for this space
          }
          report("partitioned P=" + std::to_string(P));
        }
        const Algorithm automatic = solve(E(), sys.matrix, sys.rhs, x, status);
        report(std::string("automatic -> ") + name(automatic));
      }
  }
  Kokkos::finalize();
}

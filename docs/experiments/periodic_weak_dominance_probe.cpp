// Backward error of periodic::solve (Sherman-Morrison over two Thomas solves) on weakly
// diagonally dominant periodic matrices: implicit diffusion around a ring through a high-contrast
// medium, row i = (-k_i, m + k_i + k_{i+1}, -k_{i+1}) with indices modulo n (k_n = k_0), k
// log-uniform in 10^[-C, C] and a mass term m (m = 0 would be singular: constants are in the
// null space). 64 systems per batch, right-hand sides uniform in [-1, 1], Flat, double and float,
// on the default execution space. docs/numerics.md gives the runs and their output.
//
// Backward error of a system: ||A x - d||_inf / (||A||_inf ||x||_inf + ||d||_inf) in long double
// over the ring's rows (batch_backward_error.hpp), the worst over the systems with status 0, in
// units of the working precision's eps. For comparison, the same matrices with the corners cut
// (a(0) = c(n-1) = 0: Dirichlet-like ends, the same interior) solved by thomas::solve.
//
// Build and run as weak_dominance_probe.cpp (its header says how).
#include "batch_backward_error.hpp"

#include <tridiag/tridiag.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tridiag;
using E = Kokkos::DefaultExecutionSpace;
using M = E::memory_space;
using L = layouts::Flat;

template <class R>
void probe(double C, double m, index_type n, bool ring) {
  const index_type systems = 64;
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  auto sys = allocate_system<L, R, M>("s", systems, n);
  auto ha = create_host_copy(sys.matrix.lower), hb = create_host_copy(sys.matrix.diag),
       hc = create_host_copy(sys.matrix.upper), hd = create_host_copy(sys.rhs);
  std::vector<double> k(n);
  for (index_type s = 0; s < systems; ++s) {
    for (auto& v : k) v = std::pow(10.0, C * u(gen));
    for (index_type i = 0; i < n; ++i) {
      const double right = k[(i + 1) % n];
      hb(s, i) = R(m + k[i] + right);
      ha(s, i) = R(ring || i > 0 ? -k[i] : 0.0);
      hc(s, i) = R(ring || i + 1 < n ? -right : 0.0);
      hd(s, i) = R(u(gen));
    }
  }
  deep_copy(sys.matrix.lower, ha), deep_copy(sys.matrix.diag, hb), deep_copy(sys.matrix.upper, hc);
  deep_copy(sys.rhs, hd);
  BatchVector<R, L, M> x("x", systems, n);
  StatusView<M> status("status", systems);
  Kokkos::deep_copy(status, -1);
  if (ring)
    periodic::solve(E(), sys.matrix, sys.rhs, x, status);
  else
    thomas::solve(E(), sys.matrix, sys.rhs, x, status);
  const BatchBackwardError e = batch_backward_error(ha, hb, hc, hd, x, status);
  std::printf("%-7s %-4g %-7g %-6lld %-22s %-7d %.3Lg\n", sizeof(R) == 8 ? "double" : "float", C, m,
              static_cast<long long>(n), ring ? "periodic" : "thomas (corners cut)", e.failed,
              e.worst / static_cast<long double>(std::numeric_limits<R>::epsilon()));
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::printf("%s\n", configuration_string().c_str());
    std::printf("%-7s %-4s %-7s %-6s %-22s %-7s %s\n", "scalar", "C", "m", "n", "solver", "failed",
                "worst backward error (eps of the scalar)");
    for (const double C : {0.0, 2.0, 3.0, 8.0})
      for (const double m : {1.0, 1e-4, 1e-8})
        for (const index_type n : {3, 64, 1000})
          for (const bool ring : {true, false}) {
            probe<double>(C, m, n, ring);
            probe<float>(C, m, n, ring);
          }
  }
  Kokkos::finalize();
}

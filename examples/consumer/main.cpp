// The smallest tridiag application: a batch of Poisson-like systems (-1, 2, -1) with the right-hand
// side of the exact solution x = 1, solved with one thread per system on the default execution
// space. Exits non-zero if the answer is wrong.

#include <cmath>
#include <cstdio>

#include <tridiag/tridiag.hpp>

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int failures = 0;
  {
    using Layout = tridiag::layouts::Interleaved;
    const tridiag::index_type systems = 1000, n = 100;
    auto sys = tridiag::allocate_system<Layout, double>("poisson", systems, n);
    auto a = sys.matrix.lower, b = sys.matrix.diag, c = sys.matrix.upper, d = sys.rhs;
    Kokkos::parallel_for(
        "assemble", systems, KOKKOS_LAMBDA(const tridiag::index_type s) {
          for (tridiag::index_type i = 0; i < n; ++i) {
            a(s, i) = -1;
            b(s, i) = 2;
            c(s, i) = -1;
            d(s, i) = (i == 0 || i == n - 1) ? 1 : 0;  // row sums of the matrix: x = 1 solves it
          }
        });
    tridiag::BatchVector<double, Layout> x("x", systems, n);
    tridiag::StatusView<Kokkos::DefaultExecutionSpace::memory_space> status("status", systems);
    tridiag::thomas::solve(Kokkos::DefaultExecutionSpace(), sys.matrix, sys.rhs, x, status);
    tridiag::check(status);
    double max_error = 0;
    Kokkos::parallel_reduce(
        "error", systems * n,
        KOKKOS_LAMBDA(const tridiag::index_type k, double& m) {
          const double e = tridiag::compat::abs(x(k % systems, k / systems) - 1.0);
          m = e > m ? e : m;
        },
        Kokkos::Max<double>(max_error));
    std::printf("%s\nconsumer: %lld systems x %lld rows, max |x - 1| = %.3e\n",
                tridiag::configuration_string().c_str(), static_cast<long long>(systems),
                static_cast<long long>(n), max_error);
    failures = max_error < 1e-10 ? 0 : 1;
  }
  Kokkos::finalize();
  return failures;
}

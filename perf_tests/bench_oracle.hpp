#pragma once
// Checks a timed result against an independent oracle (STYLE 6.6/6.7): a sample of systems
// (first, last, 14 drawn from the seed) is gathered on the device into a small buffer, copied to
// the host (outside any timed region) and compared with LAPACK ?gtsv (partial pivoting, run in
// double whatever the benchmark precision). The error of a system is its relative forward error
// max_i |x_i - x_ref,i| / max_i |x_ref,i|; the bound is 1e3 * n * eps(scalar), loose for these
// well-conditioned (strictly diagonally dominant) matrices and far below what a wrong solver gives.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "bench_problem.hpp"

namespace tridiag::bench {

/// Sampled systems in host memory, flat: element (k, i) of sample k at k * n + i.
struct HostSamples {
  index_type n = 0;
  std::vector<index_type> ids;            ///< which systems of the batch
  std::vector<double> a, b, c, d, x;      ///< inputs and the solution under test
  std::vector<int> status;                ///< solver status per sample (0 when the solver has none)
};

struct OracleResult {
  double max_rel_error = 0;   ///< largest relative forward error over the samples (NaN if any NaN)
  double bound = 0;           ///< 1e3 * n * eps
  index_type worst_system = -1;
  bool wrong = false;         ///< an error above the bound, a NaN, a nonzero status or a LAPACK failure
  std::string why;            ///< when wrong: what was wrong
};

/// Bound of the relative forward error for a scalar of machine epsilon `eps`.
inline double error_bound(index_type n, double eps) { return 1e3 * double(n) * eps; }

/// Compares the samples with LAPACK dgtsv.
OracleResult check_with_lapack(const HostSamples& samples, double eps);

/// Gathers the sampled systems of a problem (inputs and x, and the status when `with_status`).
/// Fences.
template <class Scalar, class Layout, class Memory>
HostSamples gather_samples(const Problem<Scalar, Layout, Memory>& p, const std::vector<index_type>& ids,
                           bool with_status) {
  using Exec = typename Memory::execution_space;
  HostSamples h;
  h.n = p.rows;
  h.ids = ids;
  const index_type n = p.rows, ns = static_cast<index_type>(ids.size()), total = ns * n;
  Kokkos::View<index_type*, Kokkos::HostSpace> ids_host("tridiag::bench::sample_ids_host", ns);
  for (index_type k = 0; k < ns; ++k) ids_host(k) = ids[k];
  auto ids_dev = Kokkos::create_mirror_view_and_copy(Memory(), ids_host);
  Kokkos::View<Scalar**, Kokkos::LayoutRight, Memory> out("tridiag::bench::samples", 5, total);
  Kokkos::View<int*, Memory> status_out("tridiag::bench::sample_status", ns);
  const auto a = p.data.matrix.lower, b = p.data.matrix.diag, c = p.data.matrix.upper, d = p.data.rhs;
  const auto x = p.x;
  const auto status = p.status;
  Kokkos::parallel_for(
      "tridiag::bench::gather_samples", Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, total),
      KOKKOS_LAMBDA(const index_type k) {
        const index_type s = ids_dev(k / n), i = k % n;
        out(0, k) = a(s, i);
        out(1, k) = b(s, i);
        out(2, k) = c(s, i);
        out(3, k) = d(s, i);
        out(4, k) = x(s, i);
        if (i == 0) status_out(k / n) = with_status ? status(s) : 0;
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  auto status_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status_out);
  std::vector<double>* dst[5] = {&h.a, &h.b, &h.c, &h.d, &h.x};
  for (int v = 0; v < 5; ++v) {
    dst[v]->resize(static_cast<std::size_t>(total));
    for (index_type k = 0; k < total; ++k) (*dst[v])[k] = static_cast<double>(host(v, k));
  }
  h.status.assign(status_host.data(), status_host.data() + ns);
  return h;
}

}  // namespace tridiag::bench

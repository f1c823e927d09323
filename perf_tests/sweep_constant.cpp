// The `constant` sweep: constant-coefficient batches (one (a, b, c) triple per system, or one for
// the whole batch), for every precision x n x systems, on the interleaved and flat layouts:
//  * thomas-constant                  thomas::solve_constant, one triple per system;
//  * thomas-constant-factored         factorize_constant (untimed) + solve, one triple per system;
//  * thomas-constant-shared           thomas::solve_constant, one triple for the batch;
//  * thomas-constant-shared-factored  factorize_constant (untimed) + solve, one triple: one pair of
//                                     factor arrays of length n serves every system;
//  * thomas                           thomas::solve on the same systems with a, b, c filled in
//                                     (per-system triples): what the constant solvers save.
// Useful bytes of every row: the constant model (read d, write x, 3 scalars per triple: per system,
// or once for the *-shared rows), so the general row's GB/s show how far it is from what the
// problem needs. Every timed result is
// checked against LAPACK on sampled systems and every status must be 0.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <tridiag/algorithms/thomas/constant_coefficients.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_context.hpp"
#include "bench_environment.hpp"
#include "bench_exec.hpp"
#include "bench_oracle.hpp"
#include "bench_problem.hpp"
#include "bench_rows.hpp"
#include "bench_timer.hpp"
#include "bench_traffic.hpp"
#include "progress.hpp"

namespace tridiag::bench {

namespace {

/// Triple t: a, c in [-1, 1), b = +-(|a| + |c| + m), m in [0.5, 1). Named functors throughout
/// (core/kokkos_compat.hpp).
template <class Coefficients>
struct GenerateTriples {
  Coefficients coefficients;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type t) const {
    using Scalar = typename Coefficients::non_const_value_type;
    const std::uint64_t base = std::uint64_t(t) * 8u;
    const double a = hash_uniform(seed, base), c = hash_uniform(seed, base + 1);
    const double margin = 0.75 + 0.25 * hash_uniform(seed, base + 2);
    const double sign = hash_uniform(seed, base + 3) < 0 ? -1.0 : 1.0;
    coefficients(t, 0) = Scalar(a);
    coefficients(t, 1) = Scalar(sign * ((a < 0 ? -a : a) + (c < 0 ? -c : c) + margin));
    coefficients(t, 2) = Scalar(c);
  }
};

/// d in [-1, 1) per element; the filled-in matrix of the general row (triple s per system s).
template <class Coefficients, class V>
struct GenerateConstantBatch {
  Coefficients coefficients;
  V a, b, c, d, x;
  index_type n;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    using Scalar = typename Coefficients::non_const_value_type;
    for (index_type i = 0; i < n; ++i) {
      a(s, i) = coefficients(s, 0);
      b(s, i) = coefficients(s, 1);
      c(s, i) = coefficients(s, 2);
      d(s, i) = Scalar(hash_uniform(seed ^ 0xd00dULL, std::uint64_t(s) * std::uint64_t(n) + std::uint64_t(i)));
      x(s, i) = compat::quiet_nan<Scalar>();
    }
  }
};

/// Sample j: rows of system ids(j) with the coefficients of triple ids(j) % triples.
template <class Coefficients, class D, class X, class Index, class Out, class Status, class StatusOut>
struct GatherConstant {
  Coefficients coefficients;
  D d;
  X x;
  Index ids;
  Out out;
  Status status;
  StatusOut status_out;
  index_type n, triples;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type j) const {
    const index_type s = ids(j), t = s % triples;
    for (index_type i = 0; i < n; ++i) {
      out(0, j * n + i) = coefficients(t, 0);
      out(1, j * n + i) = coefficients(t, 1);
      out(2, j * n + i) = coefficients(t, 2);
      out(3, j * n + i) = d(s, i);
      out(4, j * n + i) = x(s, i);
    }
    status_out(j) = status(s);
  }
};

struct CPoint {
  std::string precision;
  index_type systems = 0, n = 0;
  std::vector<Row> rows;
  std::string label() const { return precision + " " + std::to_string(systems) + " x " + std::to_string(n); }
};

template <class Exec, class Coefficients, class D, class X, class Status>
void check_constant(BenchContext& ctx, const CPoint& pt, Row& row, const Coefficients& coefficients, const D& d,
                    const X& x, const Status& status, double eps) {
  using Memory = typename Exec::memory_space;
  const std::string what = row.algorithm + "/" + row.layout + " " + pt.label() + " on " + row.device;
  index_type failed = 0;
  Kokkos::parallel_reduce("tridiag::bench::count_failed",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, pt.systems),
                          CountNonzeroStatus<Status>{status}, failed);
  if (failed > 0)
    fail(ctx, what, row,
         std::to_string(failed) + " of " + std::to_string(pt.systems) + " systems returned a nonzero status");
  const auto ids = sample_systems(pt.systems, ctx.options.seed);
  const index_type ns = static_cast<index_type>(ids.size()), n = pt.n;
  Kokkos::View<index_type*, Kokkos::HostSpace> ids_h("tridiag::bench::ids", ns);
  for (index_type j = 0; j < ns; ++j) ids_h(j) = ids[j];
  auto ids_d = Kokkos::create_mirror_view_and_copy(Memory(), ids_h);
  Kokkos::View<double**, Kokkos::LayoutRight, Memory> out("tridiag::bench::samples", 5, ns * n);
  Kokkos::View<int*, Memory> status_out("tridiag::bench::sample_status", ns);
  const index_type triples = static_cast<index_type>(coefficients.extent(0));
  Kokkos::parallel_for("tridiag::bench::gather_constant",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, ns),
                       GatherConstant<Coefficients, D, X, decltype(ids_d), decltype(out), Status, decltype(status_out)>{
                           coefficients, d, x, ids_d, out, status, status_out, n, triples});
  auto out_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  auto status_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status_out);
  HostSamples samples;
  samples.n = n;
  samples.ids = ids;
  std::vector<double>* dst[5] = {&samples.a, &samples.b, &samples.c, &samples.d, &samples.x};
  for (int v = 0; v < 5; ++v)
    for (index_type k = 0; k < ns * n; ++k) dst[v]->push_back(out_h(v, k));
  samples.status.assign(status_h.data(), status_h.data() + ns);
  check_sample(ctx, what, row, std::move(samples), eps);
}

template <class Scalar, class Layout, class Exec>
void measure_layout(BenchContext& ctx, CPoint& pt, const Exec& exec) {
  using Memory = typename Exec::memory_space;
  using V = BatchVector<Scalar, Layout, Memory>;
  using Coefficients = thomas::ConstantCoefficients<Scalar, Memory>;
  const double eps = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  const index_type nsys = pt.systems, n = pt.n;
  Coefficients per_system("tridiag::bench_triples", nsys), shared("tridiag::bench_triple", 1);
  V d("tridiag::bench_d", nsys, n), x("tridiag::bench_x", nsys, n);
  thomas::Workspace<Scalar, Layout, Memory> work("tridiag::bench_workspace", nsys, n);
  StatusView<Memory> status("tridiag::bench_status", nsys);
  Kokkos::parallel_for("tridiag::bench::generate_triples",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, nsys),
                       GenerateTriples<Coefficients>{per_system, ctx.options.seed});
  Kokkos::parallel_for("tridiag::bench::generate_triple",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, 1),
                       GenerateTriples<Coefficients>{shared, ctx.options.seed + 1});
  {
    // The filled-in batch of the general row (freed before the constant rows run).
    auto sys = allocate_system<Layout, Scalar, Memory>("tridiag::bench_filled", nsys, n);
    Kokkos::parallel_for("tridiag::bench::generate_constant_batch",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, nsys),
                         GenerateConstantBatch<Coefficients, V>{per_system, sys.matrix.lower, sys.matrix.diag,
                                                                sys.matrix.upper, sys.rhs, x, n, ctx.options.seed});
    exec.fence();
    tridiag::deep_copy(d, sys.rhs);  // the constant rows solve the same right-hand sides
    const TridiagonalBatch<const Scalar, Layout, Memory> matrix(sys.matrix);
    const BatchVector<const Scalar, Layout, Memory> rhs(sys.rhs);
    Row row;
    row.algorithm = "thomas";
    row.layout = layout_label<Layout>();
    row.device = device_of(exec);
    row.on_device = is_device_space<Exec>();
    row.useful_bytes = traffic::constant_useful_bytes(nsys, n, nsys, sizeof(Scalar));  // one triple per system
    row.memory_bytes = static_cast<std::int64_t>(4 * d.storage().span() + x.storage().span() + work.storage().span()) *
                           std::int64_t(sizeof(Scalar)) +
                       std::int64_t(status.span() * sizeof(int));
    Kokkos::deep_copy(status, -1);
    row.timing = time_on(exec, ctx.options.repetitions(), [&] { thomas::solve(exec, matrix, rhs, x, status, work); });
    check_constant<Exec>(ctx, pt, row, per_system, d, x, status, eps);
    pt.rows.push_back(std::move(row));
  }
  const BatchVector<const Scalar, Layout, Memory> rhs(d);
  const auto base_memory =
      static_cast<std::int64_t>(d.storage().span() + x.storage().span()) * std::int64_t(sizeof(Scalar)) +
      std::int64_t(status.span() * sizeof(int));
  for (const bool one_triple : {false, true}) {
    const Coefficients coefficients = one_triple ? shared : per_system;
    const std::string prefix = one_triple ? "thomas-constant-shared" : "thomas-constant";
    for (const bool factored : {false, true}) {
      Row row;
      row.algorithm = factored ? prefix + "-factored" : prefix;
      row.layout = layout_label<Layout>();
      row.device = device_of(exec);
      row.on_device = is_device_space<Exec>();
      row.useful_bytes =
          traffic::constant_useful_bytes(nsys, n, static_cast<index_type>(coefficients.extent(0)), sizeof(Scalar));
      const std::int64_t coefficient_bytes = std::int64_t(coefficients.span() * sizeof(Scalar));
      Kokkos::deep_copy(x.storage(), std::numeric_limits<Scalar>::quiet_NaN());
      Kokkos::deep_copy(status, -1);
      if (factored) {
        const index_type triples = static_cast<index_type>(coefficients.extent(0));
        thomas::ConstantFactorization<Scalar, Layout, Memory> factors("tridiag::bench_factors", triples, n);
        thomas::factorize_constant(exec, coefficients, factors);
        exec.fence();
        row.memory_bytes = base_memory + coefficient_bytes + factors.bytes();
        row.timing = time_on(exec, ctx.options.repetitions(), [&] { thomas::solve(exec, factors, rhs, x, status); });
      } else {
        row.memory_bytes = base_memory + coefficient_bytes + std::int64_t(work.storage().span() * sizeof(Scalar));
        row.timing = time_on(exec, ctx.options.repetitions(),
                             [&] { thomas::solve_constant(exec, coefficients, rhs, x, status, work); });
      }
      check_constant<Exec>(ctx, pt, row, coefficients, d, x, status, eps);
      pt.rows.push_back(std::move(row));
    }
  }
}

template <class Scalar, class Exec>
void run_point(BenchContext& ctx, const Exec& exec, index_type systems, index_type n) {
  CPoint pt;
  pt.precision = precision_name<Scalar>();
  pt.systems = systems;
  pt.n = n;
  guarded_measurement(ctx, "constant/interleaved " + pt.label(),
                      [&] { measure_layout<Scalar, layouts::Interleaved>(ctx, pt, exec); });
  guarded_measurement(ctx, "constant/flat " + pt.label(),
                      [&] { measure_layout<Scalar, layouts::Flat>(ctx, pt, exec); });
  for (auto& row : pt.rows) {
    double general_ms = 0;
    for (const auto& other : pt.rows)
      if (other.algorithm == "thomas" && other.layout == row.layout && other.passed)
        general_ms = other.timing.median_ms();
    if (general_ms > 0 && row.algorithm != "thomas") {
      std::ostringstream ratio;
      ratio.precision(3);
      ratio << "x" << general_ms / row.timing.median_ms() << " vs thomas on the filled-in matrix";
      row.note = ratio.str();
    }
    emit_row(ctx, "constant", pt.precision, pt.systems, pt.n, row);
  }
}

template <class Exec>
void sweep_on(BenchContext& ctx, const Exec& exec) {
  const Options& o = ctx.options;
  ProgressScope progress(ctx, o.precisions.size() * o.sizes.size() * o.systems.size());
  for (const auto& precision : o.precisions)
    for (const index_type n : o.sizes)
      for (const index_type systems : o.systems) {
        const std::string what = "constant " + precision + " " + std::to_string(systems) + " x " + std::to_string(n);
        progress.step(what + " on " + Exec::name());
        guarded_measurement(ctx, what, [&] {
          if (precision == "float")
            run_point<float>(ctx, exec, systems, n);
          else
            run_point<double>(ctx, exec, systems, n);
        });
      }
  progress.done(std::string("constant on ") + Exec::name());
}

}  // namespace

void run_constant_sweep(BenchContext& ctx) {
  ensure_copy_reference(ctx);
  with_exec(ctx.options.exec, [&](auto exec) { sweep_on(ctx, exec); });
}

}  // namespace tridiag::bench

// The `tridiag` sweep: for every precision x n x systems ("a point"),
//  * thomas::solve on the chosen execution space in the layouts Interleaved, BlockInterleaved<32>,
//    BlockInterleaved<8>, Flat and UnifiedVector (algorithm "thomas");
//  * the baselines of the speedup columns, both on the host and in the flat layout: the textbook
//    one-system-after-another Thomas on one core ("thomas-sequential", solve_sequentially; skipped
//    above 2e8 unknowns unless --full) and Kokkos::OpenMP on all
//    threads ("thomas-openmp"). When the chosen space is itself OpenMP, its flat row is that
//    baseline and is not measured twice; on Serial the flat row is thomas::solve (lockstep groups,
//    faster than the textbook baseline) and thomas-sequential has its own row;
//  * on a CUDA build with --exec cuda (or CUDA as default): cuSPARSE gtsv2StridedBatch on the flat
//    data and gtsvInterleavedBatch algorithms 0, 1, 2 on the interleaved data;
//  * the partitioned solver, the cyclic family and the automatic choice (flat, and the first and
//    automatic on the interleaved layouts); where the partitioned plan pairs two warps per system
//    (P = 64 on a GPU) also "partitioned(scratch-exchange)", the same solve with its interface
//    system through team scratch (partitioned::Options::paired_warps = false), and
//    "partitioned(2 systems/team)" (systems_per_team = 2; the plan's is 1).
// Data are generated where they are solved; the solver's inputs are const (thomas::solve writes x,
// its workspace and the status only), the workspace is preallocated on GPUs (host solves keep c' in
// per-thread scratch), so a timed region is the solve and nothing else. Every result is checked
// against LAPACK (bench_oracle.hpp) afterwards; x is NaN and the status -1 before each measurement
// (the measurements of a layout share its data), so a row that a solver did not write shows.
// The rows of a point are written once the whole point is measured (the speedups need all of it).

#include <climits>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/solve.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/layouts/layouts.hpp>

#include "bench_context.hpp"
#include "bench_environment.hpp"
#include "bench_exec.hpp"
#include "bench_faults.hpp"
#include "bench_oracle.hpp"
#include "bench_problem.hpp"
#include "bench_rows.hpp"
#include "bench_timer.hpp"
#include "bench_traffic.hpp"
#include "progress.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "cusparse_reference.hpp"
#endif

namespace tridiag::bench {

namespace {

/// Which speedup column a measurement is the denominator of, if any.
enum class Role { none, sequential, openmp, cusparse_interleaved, cusparse_strided };

struct Measurement {
  std::string algorithm, layout, device;
  Role role = Role::none;
  bool on_device = false;  ///< pct_of_copy_bw against the device copy (else the host triad)
  Timing timing;
  double useful_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::optional<double> max_rel_error;
  bool passed = true;  ///< every status 0 and the sampled systems right (check_result)
};

struct Point {
  std::string precision;
  index_type systems = 0, n = 0;
  bool long_systems = false;  ///< n > long_system_rows without --full: thomas and cyclic rows skipped
  std::vector<Measurement> results;

  std::string label() const {
    return precision + " " + std::to_string(systems) + " x " + std::to_string(n);
  }
};

template <class Scalar>
double epsilon_of() {
  return static_cast<double>(std::numeric_limits<Scalar>::epsilon());
}

/// Checks the solution held in p.x against LAPACK; with_status also requires every system's
/// status to be 0 (the matrices are strictly diagonally dominant: no breakdown is allowed). A
/// failure is reported and counted, and m.passed is cleared: emit_point writes no row for it.
template <class Scalar, class Layout, class Memory>
void check_result(BenchContext& ctx, const Point& pt, Measurement& m, const Problem<Scalar, Layout, Memory>& p,
                  bool with_status) {
  const std::string what =
      m.algorithm + "/" + m.layout + " " + pt.label() + " on " + m.device;
  if (with_status) {
    using Exec = typename Memory::execution_space;
    const auto status = p.status;
    index_type failed = 0;
    Kokkos::parallel_reduce(
        "tridiag::bench::count_failed", Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, p.systems),
        CountNonzeroStatus<std::remove_const_t<decltype(status)>>{status}, failed);
    if (failed > 0) {
      m.passed = false;
      ctx.wrong_result(what, std::to_string(failed) + " of " + std::to_string(p.systems) +
                                 " systems returned a nonzero status");
    }
  }
  HostSamples samples = gather_samples(p, sample_systems(p.systems, ctx.options.seed), with_status);
  if (faults::wrong_solution(m.algorithm)) faults::corrupt(samples.x);
  const OracleResult r = check_with_lapack(samples, epsilon_of<Scalar>());
  m.max_rel_error = r.max_rel_error;
  if (r.wrong) {
    m.passed = false;
    ctx.wrong_result(what, r.why);
  }
}

/// The seed's sequential baseline: the textbook Thomas algorithm on one core, one system after
/// another (c' in one buffer of n values, reused). Not thomas::solve on Kokkos::Serial: on host
/// spaces that solves groups of systems in lockstep (host_group_thomas.hpp), a faster algorithm
/// than the baseline the speedup column is defined against.
template <class Scalar>
void solve_sequentially(const TridiagonalBatch<const Scalar, layouts::Flat, Kokkos::HostSpace>& matrix,
                        const BatchVector<const Scalar, layouts::Flat, Kokkos::HostSpace>& rhs,
                        const BatchVector<Scalar, layouts::Flat, Kokkos::HostSpace>& x,
                        const StatusView<Kokkos::HostSpace>& status,
                        const Kokkos::View<Scalar*, Kokkos::HostSpace>& c_prime) {
  const index_type n = matrix.rows();
  const thomas::impl::ViewRows<Kokkos::View<Scalar*, Kokkos::HostSpace>> g{c_prime};
  for (index_type s = 0; s < matrix.systems(); ++s)
    status(s) = thomas::SerialThomas::invoke(n, rows_of(matrix.lower, s), rows_of(matrix.diag, s),
                                             rows_of(matrix.upper, s), rows_of(rhs, s), rows_of(x, s), g);
}

/// The timed call of a measurement of `algorithm`: `run`, or where the test binary injects
/// unwritten-solution for it (bench_faults.hpp), a call that writes status 0 and leaves x alone.
template <class Status, class Run>
auto timed_call(const std::string& algorithm, const Status& status, Run run) {
  const bool unwritten = faults::unwritten_solution(algorithm);
  return [unwritten, status, run]() {
    if (unwritten)
      Kokkos::deep_copy(status, 0);
    else
      run();
  };
}

/// Times thomas::solve of problem p on exec and checks the result; the sequential role times
/// solve_sequentially instead.
template <class Exec, class Scalar, class Layout, class Memory>
void measure_thomas(BenchContext& ctx, Point& pt, const Exec& exec, const Problem<Scalar, Layout, Memory>& p,
                    const std::string& algorithm, Role role) {
  const TridiagonalBatch<const Scalar, Layout, Memory> matrix(p.data.matrix);
  const BatchVector<const Scalar, Layout, Memory> rhs(p.data.rhs);
  p.poison_outputs();
  Measurement m;
  m.algorithm = algorithm;
  m.layout = layout_label<Layout>();
  m.device = device_of(exec);
  m.role = role;
  m.on_device = is_device_space<Exec>();
  if constexpr (std::is_same_v<Layout, layouts::Flat> && std::is_same_v<Memory, Kokkos::HostSpace>) {
    if (role == Role::sequential) {
      const Kokkos::View<Scalar*, Kokkos::HostSpace> c_prime("c'", static_cast<std::size_t>(p.rows));
      m.timing = time_on(exec, ctx.options.repetitions(), timed_call(m.algorithm, p.status, [&] {
                           solve_sequentially<Scalar>(matrix, rhs, p.x, p.status, c_prime);
                         }));
    }
  }
  if (role != Role::sequential)
    m.timing = time_on(exec, ctx.options.repetitions(), timed_call(m.algorithm, p.status, [&] {
                         thomas::solve(exec, matrix, rhs, p.x, p.status, p.workspace);
                       }));
  m.useful_bytes = traffic::tridiag_useful_bytes(p.systems, p.rows, sizeof(Scalar));
  m.memory_bytes = p.memory_bytes();
  check_result(ctx, pt, m, p, /*with_status=*/true);
  pt.results.push_back(std::move(m));
}

/// Times tridiag::solve with one of the cooperative algorithms (partitioned, cyclic family, or
/// automatic) on problem p and checks the result. Skips what does not apply: cyclic solvers on
/// long systems without --full (said once per point by run_point) and for systems too long for
/// team scratch (said here), the partitioned solver on host spaces (one team per system walking
/// its chunks in a workspace: automatic never picks it there). The partitioned solver gets its
/// workspace (partitioned::workspace_bytes) allocated before the timing, as thomas::solve does.
template <class Exec, class Scalar, class Layout, class Memory>
void measure_solver(BenchContext& ctx, Point& pt, const Exec& exec, const Problem<Scalar, Layout, Memory>& p,
                    Algorithm algorithm, const std::string& variant = "", const partitioned::Options& partitioned_options = {}) {
  const bool host = !is_device_space<Exec>();
  const bool cyclic = algorithm == Algorithm::cr || algorithm == Algorithm::pcr || algorithm == Algorithm::cr_pcr;
  if (cyclic) {
    if (pt.long_systems) return;
    const auto kind = algorithm == Algorithm::cr ? cyclic::Algorithm::cr
                      : algorithm == Algorithm::pcr ? cyclic::Algorithm::pcr
                                                    : cyclic::Algorithm::cr_pcr;
    const auto bytes = cyclic::scratch_bytes<Scalar>(p.rows, kind);
    const auto capacity = cyclic::scratch_capacity<Exec>();
    if (bytes > capacity) {
      ctx.message("tridiag-bench: " + std::string(name(algorithm)) + "/" + layout_label<Layout>() + " " + pt.label() +
                  ": skipped, needs " + std::to_string(bytes) + " bytes of team scratch, " + Exec::name() +
                  " offers " + std::to_string(capacity));
      return;
    }
  }
  const Algorithm resolved =
      algorithm == Algorithm::automatic ? automatic_algorithm<Exec, Layout>(exec, p.systems, p.rows) : algorithm;
  if (host && resolved == Algorithm::partitioned && algorithm != Algorithm::automatic) return;
  const TridiagonalBatch<const Scalar, Layout, Memory> matrix(p.data.matrix);
  const BatchVector<const Scalar, Layout, Memory> rhs(p.data.rhs);
  p.poison_outputs();
  Measurement m;
  m.algorithm = algorithm == Algorithm::automatic ? std::string("auto(") + name(resolved) + ")" : name(algorithm);
  m.algorithm += variant;
  m.layout = layout_label<Layout>();
  m.device = device_of(exec);
  m.on_device = is_device_space<Exec>();
  SolveOptions options;
  options.algorithm = resolved;
  options.partitioned = partitioned_options;
  std::int64_t workspace_bytes = 0;
  if (resolved == Algorithm::thomas) {
    m.timing = time_on(exec, ctx.options.repetitions(), timed_call(m.algorithm, p.status, [&] {
                         thomas::solve(exec, matrix, rhs, p.x, p.status, p.workspace);
                       }));
  } else if (resolved == Algorithm::partitioned) {
    const partitioned::Workspace<Memory> workspace(
        "tridiag::bench_partitioned_workspace", partitioned::workspace_bytes(exec, matrix, rhs, partitioned_options));
    workspace_bytes = static_cast<std::int64_t>(workspace.bytes());
    m.timing = time_on(exec, ctx.options.repetitions(), timed_call(m.algorithm, p.status, [&] {
                         partitioned::solve(exec, matrix, rhs, p.x, p.status, partitioned_options, workspace);
                       }));
  } else {
    m.timing = time_on(exec, ctx.options.repetitions(), timed_call(m.algorithm, p.status, [&] {
                         tridiag::solve(exec, matrix, rhs, p.x, p.status, options);
                       }));
  }
  m.useful_bytes = traffic::tridiag_useful_bytes(p.systems, p.rows, sizeof(Scalar));
  m.memory_bytes = p.memory_bytes() + workspace_bytes;
  check_result(ctx, pt, m, p, /*with_status=*/true);
  pt.results.push_back(std::move(m));
}

/// The host baselines on a host problem in the flat layout, except the one the chosen space
/// already measured as its own flat row.
template <class Exec, class Scalar>
void measure_host_baselines(BenchContext& ctx, Point& pt, const Problem<Scalar, layouts::Flat, Kokkos::HostSpace>& h,
                            bool run_sequential) {
#if defined(KOKKOS_ENABLE_SERIAL)
  // Also on Serial: its flat thomas row is thomas::solve (host_group_thomas.hpp), not this baseline.
  if (run_sequential)
    guarded_measurement(ctx, "thomas-sequential " + pt.label(),
            [&] { measure_thomas(ctx, pt, Kokkos::Serial(), h, "thomas-sequential", Role::sequential); });
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (!std::is_same_v<Exec, Kokkos::OpenMP>) {
    guarded_measurement(ctx, "thomas-openmp " + pt.label(),
            [&] { measure_thomas(ctx, pt, Kokkos::OpenMP(), h, "thomas-openmp", Role::openmp); });
  }
#endif
  (void)ctx;
  (void)pt;
  (void)h;
  (void)run_sequential;
}

#if defined(KOKKOS_ENABLE_CUDA)
template <class Scalar, class Layout, class Memory>
void measure_cusparse(BenchContext& ctx, Point& pt, const Problem<Scalar, Layout, Memory>& p,
                      CusparseAlgorithm algorithm) {
  const std::string what = std::string(cusparse_name(algorithm)) + " " + pt.label();
  if (double(p.systems) * double(p.rows) > double(INT_MAX)) {
    ctx.message("tridiag-bench: " + what + ": skipped, cuSPARSE takes int sizes and m x batch exceeds INT_MAX");
    return;
  }
  p.poison_outputs();  // (cuSPARSE writes no status; the check reads none)
  Kokkos::fence();
  const CusparseTiming t = time_cusparse(
      algorithm, static_cast<int>(p.rows), static_cast<int>(p.systems), p.data.matrix.lower.storage().data(),
      p.data.matrix.diag.storage().data(), p.data.matrix.upper.storage().data(), p.data.rhs.storage().data(),
      p.x.storage().data(), ctx.options.repetitions());
  if (!t.error.empty()) {
    ctx.failed(what, t.error);
    return;
  }
  Measurement m;
  m.algorithm = cusparse_name(algorithm);
  m.layout = layout_label<Layout>();
  m.device = device_of(Kokkos::Cuda());
  m.role = cusparse_is_interleaved(algorithm) ? Role::cusparse_interleaved : Role::cusparse_strided;
  m.on_device = true;
  m.timing = t.timing;
  m.useful_bytes = traffic::tridiag_useful_bytes(p.systems, p.rows, sizeof(Scalar));
  m.memory_bytes = static_cast<std::int64_t>(t.memory_bytes);
  check_result(ctx, pt, m, p, /*with_status=*/false);
  pt.results.push_back(std::move(m));
}
#endif

/// Everything measured on one layout's data: the thomas row, and on the flat data the host
/// baselines and cuSPARSE's strided solver, on the interleaved data cuSPARSE's interleaved ones.
template <class Scalar, class Layout, class Exec>
void measure_layout(BenchContext& ctx, Point& pt, const Exec& exec, bool run_sequential) {
  using Memory = typename Exec::memory_space;
  const std::uint64_t seed = ctx.options.seed;
  Problem<Scalar, Layout, Memory> p(pt.systems, pt.n);
  generate(exec, p, seed);
  exec.fence();

  constexpr bool flat = std::is_same_v<Layout, layouts::Flat>;
  Role role = Role::none;
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (flat && std::is_same_v<Exec, Kokkos::OpenMP>) role = Role::openmp;
#endif
  // One thread per system: not on long systems (run_point says so), unless it is the baseline.
  if (!pt.long_systems || role != Role::none)
    guarded_measurement(ctx, "thomas/" + layout_label<Layout>() + " " + pt.label(),
            [&] { measure_thomas(ctx, pt, exec, p, "thomas", role); });
  // The cooperative solvers where they make sense: every one on the flat layout (their home),
  // the partitioned one and the automatic choice on the interleaved family too.
  constexpr bool interleaved = std::is_same_v<Layout, layouts::Interleaved>;
  if constexpr (flat || interleaved || std::is_same_v<Layout, layouts::BlockInterleaved<32>>) {
    std::vector<Algorithm> algorithms = {Algorithm::partitioned, Algorithm::automatic};
    if constexpr (flat) algorithms.insert(algorithms.end(), {Algorithm::cr, Algorithm::pcr, Algorithm::cr_pcr});
    for (const Algorithm algorithm : algorithms)
      guarded_measurement(ctx, std::string(name(algorithm)) + "/" + layout_label<Layout>() + " " + pt.label(),
              [&] { measure_solver(ctx, pt, exec, p, algorithm); });
    if constexpr (flat) {
      auto variant = [&](const std::string& label, const partitioned::Options& opts) {
        guarded_measurement(ctx, "partitioned" + label + "/" + layout_label<Layout>() + " " + pt.label(),
                [&] { measure_solver(ctx, pt, exec, p, Algorithm::partitioned, label, opts); });
      };
      for (const index_type rows : ctx.options.partitioned_rows) {
        partitioned::Options opts;
        opts.rows_per_thread = static_cast<int>(rows);
        variant("(rows=" + std::to_string(rows) + ")", opts);
      }
      // Where the plan pairs two warps per system, the same solve with every PCR step through
      // team scratch (partitioned::Options::paired_warps), and with two systems per team (the
      // plan's one: team barriers then hold back two warps, not four).
      if (!pt.long_systems && partitioned::plan(exec, pt.systems, pt.n, {}, sizeof(Scalar), sizeof(Scalar)).paired_warps) {
        partitioned::Options opts;
        opts.paired_warps = false;
        variant("(scratch-exchange)", opts);
        opts = {};
        opts.systems_per_team = 2;
        variant("(2 systems/team)", opts);
      }
    }
  }

  if constexpr (flat) {
    if constexpr (std::is_same_v<Memory, Kokkos::HostSpace>) {
      measure_host_baselines<Exec>(ctx, pt, p, run_sequential);
    } else {
      guarded_measurement(ctx, "host baselines " + pt.label(), [&] {
        Problem<Scalar, layouts::Flat, Kokkos::HostSpace> h(pt.systems, pt.n);
        const Kokkos::DefaultHostExecutionSpace host;
        generate(host, h, seed);
        host.fence();
        measure_host_baselines<Exec>(ctx, pt, h, run_sequential);
      });
    }
  }
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    if constexpr (flat) measure_cusparse(ctx, pt, p, CusparseAlgorithm::gtsv2_strided_batch);
    if constexpr (std::is_same_v<Layout, layouts::Interleaved>) {
      for (auto algorithm : {CusparseAlgorithm::gtsv_interleaved_batch_0, CusparseAlgorithm::gtsv_interleaved_batch_1,
                             CusparseAlgorithm::gtsv_interleaved_batch_2})
        measure_cusparse(ctx, pt, p, algorithm);
    }
  }
#endif
}

/// Writes the rows of a measured point, with the speedups against its baselines. A measurement
/// whose check failed is no row (its time would pass for that of a solve) and no baseline.
void emit_point(BenchContext& ctx, const Point& pt) {
  std::optional<double> sequential, openmp, cusparse_interleaved, cusparse_strided;
  for (const auto& m : pt.results) {
    if (!m.passed) continue;
    const double t = m.timing.median_ms();
    switch (m.role) {
      case Role::sequential: sequential = t; break;
      case Role::openmp: openmp = t; break;
      case Role::cusparse_interleaved:
        if (!cusparse_interleaved || t < *cusparse_interleaved) cusparse_interleaved = t;
        break;
      case Role::cusparse_strided: cusparse_strided = t; break;
      case Role::none: break;
    }
  }
  const auto ratio = [](const std::optional<double>& reference, double t) -> std::optional<double> {
    if (!reference || !(t > 0)) return std::nullopt;
    return *reference / t;
  };
  const std::string commit_id = commit();
  for (const auto& m : pt.results) {
    if (!m.passed) {
      ctx.left_out(m.algorithm + "/" + m.layout + " " + pt.label() + " on " + m.device);
      continue;
    }
    CsvRow r;
    r.sweep = "tridiag";
    r.algorithm = m.algorithm;
    r.layout = m.layout;
    r.precision = pt.precision;
    r.systems = pt.systems;
    r.size = pt.n;
    const double t = m.timing.median_ms();
    r.time_ms = t;
    r.useful_GBps = traffic::gbps(m.useful_bytes, t);
    if (const auto reference = ctx.copy.for_space(m.on_device); reference && *reference > 0)
      r.pct_of_copy_bw = 100.0 * *r.useful_GBps / *reference;
    r.speedup_vs_sequential = ratio(sequential, t);
    r.speedup_vs_openmp = ratio(openmp, t);
    r.speedup_vs_cusparse_interleaved = ratio(cusparse_interleaved, t);
    r.speedup_vs_cusparse_strided = ratio(cusparse_strided, t);
    r.memory_bytes = m.memory_bytes;
    r.max_rel_error = m.max_rel_error;
    r.device = m.device;
    r.commit = commit_id;
    std::ostringstream extra;
    extra.precision(4);
    extra << "min " << m.timing.min_ms() << " ms, " << m.timing.reps() << " reps";
    ctx.emit(r, extra.str());
  }
}

template <class Scalar, class Exec>
void run_point(BenchContext& ctx, const Exec& exec, index_type systems, index_type n) {
  Point pt;
  pt.precision = precision_name<Scalar>();
  pt.systems = systems;
  pt.n = n;
  pt.long_systems = !ctx.options.full && n > long_system_rows;
  const bool run_sequential = ctx.options.full || double(systems) * double(n) <= sequential_unknowns_limit;
  if (!run_sequential)
    ctx.message("tridiag-bench: " + pt.label() + ": sequential baseline skipped (more than 2e8 unknowns; --full runs it)");
  if (pt.long_systems) {
    const bool host = !is_device_space<Exec>();
    ctx.message("tridiag-bench: " + pt.label() + ": long systems (n > " + std::to_string(long_system_rows) +
                "): skipped thomas (one thread per system) on every layout" +
                (host ? std::string(" but flat (the ") + Exec::name() + " baseline)" : std::string()) +
                ", and cr, pcr, cr_pcr; --full runs them");
  }
  measure_layout<Scalar, layouts::Interleaved>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::BlockInterleaved<32>>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::BlockInterleaved<8>>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::Flat>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::UnifiedVector>(ctx, pt, exec, run_sequential);
  emit_point(ctx, pt);
}

template <class Exec>
void sweep_on(BenchContext& ctx, const Exec& exec) {
  const Options& o = ctx.options;
  if constexpr (!is_device_space<Exec>()) {
    // measure_solver skips the partitioned rows on a host space: say so (and that the rows asked
    // for by --partitioned-rows are among them) instead of leaving them out silently.
    std::string rows;
    for (const index_type r : o.partitioned_rows) rows += ", partitioned(rows=" + std::to_string(r) + ")";
    ctx.message(std::string("tridiag-bench: tridiag on ") + Exec::name() + ": partitioned" + rows +
                " skipped at every point (a host space: the partitioned solver is timed on GPUs only)");
  }
  ProgressScope progress(ctx, o.precisions.size() * o.sizes.size() * o.systems.size());
  for (const auto& precision : o.precisions)
    for (const index_type n : o.sizes)
      for (const index_type systems : o.systems) {
        progress.step("tridiag " + precision + " " + std::to_string(systems) + " x " + std::to_string(n) + " on " +
                         Exec::name());
        guarded_measurement(ctx, "tridiag " + precision + " " + std::to_string(systems) + " x " + std::to_string(n), [&] {
          if (precision == "float") run_point<float>(ctx, exec, systems, n);
          else run_point<double>(ctx, exec, systems, n);
        });
      }
  progress.done(std::string("tridiag on ") + Exec::name());
}

}  // namespace

void run_tridiag_sweep(BenchContext& ctx) {
  ensure_copy_reference(ctx);
  with_exec(ctx.options.exec, [&](auto exec) { sweep_on(ctx, exec); });
}

}  // namespace tridiag::bench

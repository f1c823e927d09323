// The `vbatch` sweep: variable batches whose sizes are drawn uniformly in [lo, hi] (--ranges), for
// every precision x range x systems ("a point"), the Thomas variants of a variable batch:
//  * thomas-cp          thomas::solve on padded interleaved storage after layouts::pad_matrix
//                       (every system computed to the largest size: cuThomasVBatch's CP);
//  * thomas-ncp         thomas::solve_padded on the same storage (each system stops at its size);
//  * thomas-ncp         on ragged (offset-indexed, unpadded) storage: thomas::solve_ragged;
//  * thomas-size-aware  thomas::solve_size_aware on size-grouped storage (SizeGroupedPlan, groups
//                       of 32), the plan built once on the host outside the timed region;
//  * partitioned-ncp    partitioned::solve_ragged on the ragged storage (GPU builds): several
//                       threads per system, each system cut by its own size; with
//                       --partitioned-rows also "partitioned-ncp(rows=R)" (rows_per_thread = R),
//                       and "partitioned-ncp(1 system/team)" (the plan puts several systems of
//                       at most a warp in one team).
// The systems are the same in every storage: element (s, i) comes from the counter-based generator
// of bench_problem.hpp with counter (s * hi + i), strictly diagonally dominant. Useful bytes are 5
// values per real unknown (the sum of the sizes) for every variant, so GB/s compare directly; the
// console line also gives each variant's time over CP's. Every timed result is checked against
// LAPACK on sampled systems (first, last, 14 random), and every system's status must be 0.
// CSV: size = hi, layout = "<storage>[lo..hi]".

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <tridiag/algorithms/partitioned/partitioned_solve.hpp>
#include <tridiag/algorithms/thomas/size_aware_solve.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/layouts/variable_batch.hpp>
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

/// Size of system s of a point: uniform in [lo, hi], from the seed.
index_type draw_size(std::uint64_t seed, index_type s, index_type lo, index_type hi) {
  const double u = 0.5 * (hash_uniform(seed ^ 0x512e5ULL, std::uint64_t(s)) + 1.0);  // [0, 1)
  return std::min(hi, lo + static_cast<index_type>(u * double(hi - lo + 1)));
}

// Where system s lives in a storage ("slot"): itself for padded and ragged storage, its position
// in the plan for size-grouped storage. Kernels below are named functors (core/kokkos_compat.hpp).
template <class Sizes>
struct IdentityMap {
  Sizes sizes;
  KOKKOS_INLINE_FUNCTION index_type system(index_type k) const { return k; }
  KOKKOS_INLINE_FUNCTION index_type slot(index_type s) const { return s; }
  KOKKOS_INLINE_FUNCTION index_type rows(index_type k) const { return sizes(k); }
};
template <class Plan>
struct GroupedMap {
  Plan plan;
  KOKKOS_INLINE_FUNCTION index_type system(index_type k) const { return plan.system(k); }
  KOKKOS_INLINE_FUNCTION index_type slot(index_type s) const { return plan.position_of(s); }
  KOKKOS_INLINE_FUNCTION index_type rows(index_type k) const { return plan.rows(k); }
};

/// Fills slot k with system map.system(k): a, c in [-1, 1), b = +-(|a| + |c| + m), m in [0.5, 1),
/// d in [-1, 1), a(0) = c(n-1) = 0, x = NaN.
template <class Scalar, class V, class Map>
struct GenerateVariable {
  V a, b, c, d, x;
  Map map;
  std::uint64_t seed;
  index_type stride;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    const index_type s = map.system(k), n = map.rows(k);
    for (index_type i = 0; i < n; ++i) {
      const RandomRow r = random_row(seed, (std::uint64_t(s) * std::uint64_t(stride) + std::uint64_t(i)) * 8u, i, n);
      a(k, i) = Scalar(r.a);
      c(k, i) = Scalar(r.c);
      b(k, i) = Scalar(r.b);
      d(k, i) = Scalar(r.d);
      x(k, i) = compat::quiet_nan<Scalar>();
    }
  }
};

/// Copies sampled systems (inputs, x, status) into one buffer: sample j at out(., first(j) + i).
template <class V, class Map, class Index, class Out, class Status, class StatusOut>
struct GatherVariable {
  V a, b, c, d, x;
  Map map;
  Index ids, first;
  Out out;
  Status status;
  StatusOut status_out;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type j) const {
    const index_type s = ids(j), k = map.slot(s), n = map.rows(k), o = first(j);
    for (index_type i = 0; i < n; ++i) {
      out(0, o + i) = a(k, i);
      out(1, o + i) = b(k, i);
      out(2, o + i) = c(k, i);
      out(3, o + i) = d(k, i);
      out(4, o + i) = x(k, i);
    }
    status_out(j) = status(s);
  }
};

/// One point: its sizes (host) and the rows measured so far.
struct VPoint {
  std::string precision;
  index_type lo = 0, hi = 0, systems = 0, total_rows = 0, largest = 0;
  std::vector<index_type> sizes;
  std::vector<Row> rows;
  std::string label() const {
    return precision + " " + std::to_string(systems) + " systems of " + std::to_string(lo) + ".." + std::to_string(hi);
  }
  std::string range() const { return "[" + std::to_string(lo) + ".." + std::to_string(hi) + "]"; }
};

/// Checks the solution of one variant: every status 0, sampled systems against LAPACK.
template <class Exec, class V, class Map, class Status>
void check_variable(BenchContext& ctx, const VPoint& pt, Row& row, const V& a, const V& b, const V& c, const V& d,
                    const V& x, const Map& map, const Status& status, double eps) {
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
  const index_type ns = static_cast<index_type>(ids.size());
  Kokkos::View<index_type*, Kokkos::HostSpace> ids_h("tridiag::bench::ids", ns), first_h("tridiag::bench::first", ns);
  index_type total = 0;
  for (index_type j = 0; j < ns; ++j) {
    ids_h(j) = ids[j];
    first_h(j) = total;
    total += pt.sizes[ids[j]];
  }
  auto ids_d = Kokkos::create_mirror_view_and_copy(Memory(), ids_h);
  auto first_d = Kokkos::create_mirror_view_and_copy(Memory(), first_h);
  Kokkos::View<double**, Kokkos::LayoutRight, Memory> out("tridiag::bench::samples", 5, total);
  Kokkos::View<int*, Memory> status_out("tridiag::bench::sample_status", ns);
  Kokkos::parallel_for("tridiag::bench::gather_variable",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, ns),
                       GatherVariable<V, Map, decltype(ids_d), decltype(out), Status, decltype(status_out)>{
                           a, b, c, d, x, map, ids_d, first_d, out, status, status_out});
  auto out_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  auto status_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status_out);
  for (index_type j = 0; j < ns; ++j) {
    HostSamples sample;
    sample.n = pt.sizes[ids[j]];
    sample.ids = {ids[j]};
    std::vector<double>* dst[5] = {&sample.a, &sample.b, &sample.c, &sample.d, &sample.x};
    for (int v = 0; v < 5; ++v)
      for (index_type i = 0; i < sample.n; ++i) dst[v]->push_back(out_h(v, first_h(j) + i));
    sample.status = {status_h(j)};
    if (sample.n > 0 && !check_sample(ctx, what, row, std::move(sample), eps)) break;  // one wrong system tells the story
  }
}

template <class Exec>
Row new_row(const Exec& exec, const std::string& algorithm, const std::string& layout, const VPoint& pt,
            std::size_t scalar_bytes) {
  Row row;
  row.algorithm = algorithm;
  row.layout = layout + pt.range();
  row.device = device_of(exec);
  row.on_device = is_device_space<Exec>();
  // 5 values per real unknown: tridiag_useful_bytes of "total_rows systems of 1 row".
  row.useful_bytes = traffic::tridiag_useful_bytes(pt.total_rows, 1, scalar_bytes);
  return row;
}

template <class View>
std::int64_t bytes_of(const View& v) {
  return static_cast<std::int64_t>(v.span() * sizeof(typename View::value_type));
}

/// CP and NCP on padded interleaved storage (one allocation serves both: NCP never reads padding).
template <class Scalar, class Exec>
void measure_padded(BenchContext& ctx, VPoint& pt, const Exec& exec) {
  using Memory = typename Exec::memory_space;
  using L = layouts::Interleaved;
  const double eps = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  auto sys = allocate_system<L, Scalar, Memory>("tridiag::bench_padded", pt.systems, pt.largest);
  BatchVector<Scalar, L, Memory> x("tridiag::bench_x", pt.systems, pt.largest);
  thomas::Workspace<Scalar, L, Memory> work("tridiag::bench_workspace", pt.systems, pt.largest);
  StatusView<Memory> status("tridiag::bench_status", pt.systems);
  const auto sizes = layouts::make_sizes<Memory>(pt.sizes);
  using Map = IdentityMap<decltype(sizes)>;
  const Map map{sizes};
  auto a = sys.matrix.lower, b = sys.matrix.diag, c = sys.matrix.upper, d = sys.rhs;
  Kokkos::parallel_for("tridiag::bench::generate_padded",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, pt.systems),
                       GenerateVariable<Scalar, decltype(a), Map>{a, b, c, d, x, map, ctx.options.seed, pt.hi});
  layouts::pad_matrix(exec, sys.matrix, sys.rhs, sizes);
  exec.fence();
  const std::int64_t memory =
      4 * bytes_of(a.storage()) + bytes_of(x.storage()) + bytes_of(work.storage()) + bytes_of(status) + bytes_of(sizes);
  const TridiagonalBatch<const Scalar, L, Memory> matrix(sys.matrix);
  const BatchVector<const Scalar, L, Memory> rhs(sys.rhs);
  {
    Row row = new_row(exec, "thomas-cp", "interleaved", pt, sizeof(Scalar));
    row.memory_bytes = memory;
    Kokkos::deep_copy(status, -1);
    row.timing = time_on(exec, ctx.options.repetitions(), [&] { thomas::solve(exec, matrix, rhs, x, status, work); });
    check_variable<Exec>(ctx, pt, row, a, b, c, d, x, map, status, eps);
    pt.rows.push_back(std::move(row));
  }
  {
    Row row = new_row(exec, "thomas-ncp", "interleaved", pt, sizeof(Scalar));
    row.memory_bytes = memory;
    Kokkos::deep_copy(x.storage(), std::numeric_limits<Scalar>::quiet_NaN());
    Kokkos::deep_copy(status, -1);
    row.timing = time_on(exec, ctx.options.repetitions(),
                         [&] { thomas::solve_padded(exec, matrix, rhs, x, sizes, status, work); });
    check_variable<Exec>(ctx, pt, row, a, b, c, d, x, map, status, eps);
    pt.rows.push_back(std::move(row));
  }
}

/// NCP on offset-indexed (ragged) storage.
template <class Scalar, class Exec>
void measure_ragged(BenchContext& ctx, VPoint& pt, const Exec& exec) {
  using Memory = typename Exec::memory_space;
  using V = layouts::RaggedVector<Scalar, Memory>;
  const double eps = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  const auto offsets = layouts::make_offsets<Memory>(pt.sizes);
  V a("tridiag::bench_a", offsets), b("tridiag::bench_b", offsets), c("tridiag::bench_c", offsets),
      d("tridiag::bench_d", offsets), x("tridiag::bench_x", offsets), work("tridiag::bench_workspace", offsets);
  StatusView<Memory> status("tridiag::bench_status", pt.systems);
  const auto sizes = layouts::make_sizes<Memory>(pt.sizes);
  using Map = IdentityMap<decltype(sizes)>;
  const Map map{sizes};
  Kokkos::parallel_for("tridiag::bench::generate_ragged",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, pt.systems),
                       GenerateVariable<Scalar, V, Map>{a, b, c, d, x, map, ctx.options.seed, pt.hi});
  exec.fence();
  const layouts::RaggedVector<const Scalar, Memory> ca(a), cb(b), cc(c), cd(d);
  {
    Row row = new_row(exec, "thomas-ncp", "ragged", pt, sizeof(Scalar));
    row.memory_bytes = 6 * bytes_of(a.storage()) + bytes_of(status) + bytes_of(offsets);
    Kokkos::deep_copy(status, -1);
    row.timing =
        time_on(exec, ctx.options.repetitions(), [&] { thomas::solve_ragged(exec, ca, cb, cc, cd, x, status, work); });
    check_variable<Exec>(ctx, pt, row, a, b, c, d, x, map, status, eps);
    pt.rows.push_back(std::move(row));
  }
  // The partitioned solver on the same storage, on GPUs only, as in the tridiag sweep (on host
  // cores one team per system walks its chunks through a workspace: not what a host solve of a
  // variable batch uses).
  // Also with the target rows per thread of --partitioned-rows, as "partitioned-ncp(rows=R)".
  if (is_device_space<Exec>()) {
    // rows per thread (0: the plan's), systems per team (0: the plan's)
    std::vector<std::pair<index_type, int>> variants{{0, 0}, {0, 1}};
    for (const index_type rows : ctx.options.partitioned_rows) variants.emplace_back(rows, 0);
    for (const auto& [rows, per_team] : variants) {
      const std::string name = rows > 0       ? "partitioned-ncp(rows=" + std::to_string(rows) + ")"
                               : per_team > 0 ? "partitioned-ncp(" + std::to_string(per_team) + " system/team)"
                                              : "partitioned-ncp";
      partitioned::Options opts;
      opts.rows_per_thread = static_cast<int>(rows);
      opts.systems_per_team = per_team;
      Row row = new_row(exec, name, "ragged", pt, sizeof(Scalar));
      row.memory_bytes = 5 * bytes_of(a.storage()) + bytes_of(status) + bytes_of(offsets);
      Kokkos::deep_copy(x.storage(), std::numeric_limits<Scalar>::quiet_NaN());
      Kokkos::deep_copy(status, -1);
      try {
        row.timing = time_on(exec, ctx.options.repetitions(),
                             [&] { partitioned::solve_ragged(exec, ca, cb, cc, cd, x, status, opts); });
      } catch (const tridiag::invalid_argument& e) {  // e.g. chunks that do not fit in registers
        ctx.message("tridiag-bench: " + name + " " + pt.label() + ": skipped, " + e.what());
        continue;
      }
      check_variable<Exec>(ctx, pt, row, a, b, c, d, x, map, status, eps);
      pt.rows.push_back(std::move(row));
    }
  }
}

/// Size-aware on size-grouped storage; the plan's host build time goes to the console line.
template <class Scalar, class Exec>
void measure_size_aware(BenchContext& ctx, VPoint& pt, const Exec& exec) {
  using Memory = typename Exec::memory_space;
  using V = layouts::GroupedVector<Scalar, Memory>;
  const double eps = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  const auto t0 = std::chrono::steady_clock::now();
  const layouts::SizeGroupedPlan<Memory> plan(pt.sizes);
  const double plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  V a("tridiag::bench_a", plan), b("tridiag::bench_b", plan), c("tridiag::bench_c", plan), d("tridiag::bench_d", plan),
      x("tridiag::bench_x", plan), work("tridiag::bench_workspace", plan);
  StatusView<Memory> status("tridiag::bench_status", pt.systems);
  using Map = GroupedMap<layouts::SizeGroupedPlan<Memory>>;
  const Map map{plan};
  Kokkos::parallel_for("tridiag::bench::generate_grouped",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, pt.systems),
                       GenerateVariable<Scalar, V, Map>{a, b, c, d, x, map, ctx.options.seed, pt.hi});
  exec.fence();
  const layouts::GroupedVector<const Scalar, Memory> ca(a), cb(b), cc(c), cd(d);
  Row row = new_row(exec, "thomas-size-aware", "grouped" + std::to_string(plan.group_width()), pt, sizeof(Scalar));
  row.memory_bytes =
      6 * bytes_of(a.storage()) + bytes_of(status) + 3 * bytes_of(plan.order()) + bytes_of(plan.group_offsets());
  Kokkos::deep_copy(status, -1);
  row.timing = time_on(exec, ctx.options.repetitions(),
                       [&] { thomas::solve_size_aware(exec, ca, cb, cc, cd, x, status, work); });
  check_variable<Exec>(ctx, pt, row, a, b, c, d, x, map, status, eps);
  std::ostringstream note;
  note.precision(3);
  note << "plan built in " << plan_ms << " ms on the host";
  row.note = note.str();
  pt.rows.push_back(std::move(row));
}

template <class Scalar, class Exec>
void run_point(BenchContext& ctx, const Exec& exec, index_type lo, index_type hi, index_type systems) {
  VPoint pt;
  pt.precision = precision_name<Scalar>();
  pt.lo = lo;
  pt.hi = hi;
  pt.systems = systems;
  pt.sizes.resize(static_cast<std::size_t>(systems));
  for (index_type s = 0; s < systems; ++s) {
    pt.sizes[s] = draw_size(ctx.options.seed, s, lo, hi);
    pt.total_rows += pt.sizes[s];
    pt.largest = std::max(pt.largest, pt.sizes[s]);
  }
  guarded_measurement(ctx, "padded " + pt.label(), [&] { measure_padded<Scalar>(ctx, pt, exec); });
  guarded_measurement(ctx, "ragged " + pt.label(), [&] { measure_ragged<Scalar>(ctx, pt, exec); });
  guarded_measurement(ctx, "size-aware " + pt.label(), [&] { measure_size_aware<Scalar>(ctx, pt, exec); });
  double cp_ms = 0;
  for (const auto& row : pt.rows)
    if (row.algorithm == "thomas-cp" && row.passed) cp_ms = row.timing.median_ms();
  for (auto& row : pt.rows) {
    if (cp_ms > 0) {
      std::ostringstream ratio;
      ratio.precision(3);
      ratio << row.timing.median_ms() / cp_ms << " x CP time";
      row.note = row.note.empty() ? ratio.str() : ratio.str() + "; " + row.note;
    }
    emit_row(ctx, "vbatch", pt.precision, pt.systems, pt.hi, row);
  }
}

template <class Exec>
void sweep_on(BenchContext& ctx, const Exec& exec) {
  const Options& o = ctx.options;
  if constexpr (!is_device_space<Exec>()) {
    // measure_ragged times partitioned::solve_ragged on GPUs only: say so, with the rows asked
    // for by --partitioned-rows, instead of leaving them out silently.
    std::string rows;
    for (const index_type r : o.partitioned_rows) rows += ", partitioned-ncp(rows=" + std::to_string(r) + ")";
    ctx.message(std::string("tridiag-bench: vbatch on ") + Exec::name() + ": partitioned-ncp" + rows +
                " skipped at every point (a host space: the partitioned solver is timed on GPUs only)");
  }
  ProgressScope progress(ctx, o.precisions.size() * o.ranges.size() * o.systems.size());
  for (const auto& precision : o.precisions)
    for (const auto& range : o.ranges)
      for (const index_type systems : o.systems) {
        const std::string what = "vbatch " + precision + " " + std::to_string(systems) + " x " +
                                 std::to_string(range.first) + ".." + std::to_string(range.second);
        progress.step(what + " on " + Exec::name());
        guarded_measurement(ctx, what, [&] {
          if (precision == "float")
            run_point<float>(ctx, exec, range.first, range.second, systems);
          else
            run_point<double>(ctx, exec, range.first, range.second, systems);
        });
      }
  progress.done(std::string("vbatch on ") + Exec::name());
}

}  // namespace

void run_vbatch_sweep(BenchContext& ctx) {
  ensure_copy_reference(ctx);
  with_exec(ctx.options.exec, [&](auto exec) { sweep_on(ctx, exec); });
}

}  // namespace tridiag::bench

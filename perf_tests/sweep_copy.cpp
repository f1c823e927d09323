// The `copy` sweep: the bandwidth every efficiency figure of the run is measured against.
//  * host: Kokkos::deep_copy between two HostSpace Views (Kokkos copies in parallel on
//    DefaultHostExecutionSpace) and a STREAM triad a(i) = b(i) + s*c(i) on all host threads;
//    the triad is the host reference (it is what a bandwidth-bound kernel reaches on a CPU);
//  * GPU (when the chosen execution space is one): Kokkos::deep_copy between two device Views
//    (cudaMemcpyAsync underneath), the device reference.
// Arrays of 256 MiB on the host and 1 GiB on a GPU (--copy-mib changes both), first touched in
// parallel by the space that uses them; every copy and triad result is verified afterwards.

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include <Kokkos_Core.hpp>

#include "bench_context.hpp"
#include "bench_environment.hpp"
#include "bench_exec.hpp"
#include "bench_faults.hpp"
#include "bench_timer.hpp"
#include "bench_traffic.hpp"

namespace tridiag::bench {

namespace {

constexpr double mib = 1024.0 * 1024.0;

struct CopyMeasurement {
  Timing timing;
  std::int64_t elements = 0;
  std::int64_t memory_bytes = 0;
  double counted_bytes = 0;
  bool verified = false;
};

template <class Exec>
using Array = Kokkos::View<double*, typename Exec::memory_space>;

template <class Exec>
Array<Exec> uninitialised(const std::string& label, std::int64_t n) {
  return Array<Exec>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n);
}

template <class Exec>
Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>> range(const Exec& exec, std::int64_t n) {
  return Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n);
}

/// deep_copy(exec, dst, src) of `elements` doubles; 2 x bytes counted.
template <class Exec>
CopyMeasurement measure_deep_copy(const Exec& exec, std::int64_t elements, const Repetitions& reps) {
  CopyMeasurement m;
  m.elements = elements;
  auto src = uninitialised<Exec>("tridiag::bench::copy_src", elements);
  auto dst = uninitialised<Exec>("tridiag::bench::copy_dst", elements);
  Kokkos::parallel_for(
      "tridiag::bench::copy_init", range(exec, elements), KOKKOS_LAMBDA(const std::int64_t i) {
        src(i) = double(i % 1000003);
        dst(i) = -1.0;
      });
  exec.fence();
  m.timing = time_on(exec, reps, [&] { Kokkos::deep_copy(exec, dst, src); });
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "tridiag::bench::copy_verify", range(exec, elements),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& b) { b += dst(i) != src(i) ? 1 : 0; }, bad);
  m.verified = bad == 0;
  m.memory_bytes = 2 * elements * std::int64_t(sizeof(double));
  m.counted_bytes = traffic::copy_bytes(double(elements) * sizeof(double));
  return m;
}

/// STREAM triad a = b + s*c on `elements` doubles per array; 3 x bytes counted.
template <class Exec>
CopyMeasurement measure_triad(const Exec& exec, std::int64_t elements, const Repetitions& reps) {
  CopyMeasurement m;
  m.elements = elements;
  auto a = uninitialised<Exec>("tridiag::bench::triad_a", elements);
  auto b = uninitialised<Exec>("tridiag::bench::triad_b", elements);
  auto c = uninitialised<Exec>("tridiag::bench::triad_c", elements);
  Kokkos::parallel_for(
      "tridiag::bench::triad_init", range(exec, elements), KOKKOS_LAMBDA(const std::int64_t i) {
        a(i) = 0.0;
        b(i) = double(i % 7);  // small integers: b + s*c is exact, so the check can be exact
        c(i) = double(i % 5);
      });
  exec.fence();
  const double s = 3.0;
  m.timing = time_on(exec, reps, [&] {
    Kokkos::parallel_for(
        "tridiag::bench::triad", range(exec, elements),
        KOKKOS_LAMBDA(const std::int64_t i) { a(i) = b(i) + s * c(i); });
  });
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "tridiag::bench::triad_verify", range(exec, elements),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& nb) { nb += a(i) != b(i) + s * c(i) ? 1 : 0; }, bad);
  m.verified = bad == 0;
  m.memory_bytes = 3 * elements * std::int64_t(sizeof(double));
  m.counted_bytes = traffic::triad_bytes(double(elements) * sizeof(double));
  return m;
}

std::string min_text(const Timing& t) {
  std::ostringstream os;
  os.precision(4);
  os << "min " << t.min_ms() << " ms, " << t.reps() << " reps";
  return os.str();
}

CsvRow copy_row(const char* algorithm, const CopyMeasurement& m, double reference_GBps,
                const std::string& device) {
  CsvRow r;
  r.sweep = "copy";
  r.algorithm = algorithm;
  r.precision = "double";
  r.size = m.elements;
  r.time_ms = m.timing.median_ms();
  r.useful_GBps = traffic::gbps(m.counted_bytes, m.timing.median_ms());
  if (reference_GBps > 0) r.pct_of_copy_bw = 100.0 * *r.useful_GBps / reference_GBps;
  r.memory_bytes = m.memory_bytes;
  r.max_rel_error = 0.0;  // only verified copies are written
  r.device = device;
  r.commit = commit();
  return r;
}

}  // namespace

void ensure_copy_reference(BenchContext& ctx) {
  if (ctx.copy.measured) return;
  const Options& opt = ctx.options;
  const double host_mib = opt.copy_mib > 0 ? opt.copy_mib : 256;
  const double device_mib = opt.copy_mib > 0 ? opt.copy_mib : 1024;
  const auto host_elements = std::max<std::int64_t>(1, std::int64_t(host_mib * mib / sizeof(double)));
  const auto device_elements = std::max<std::int64_t>(1, std::int64_t(device_mib * mib / sizeof(double)));

  bool on_gpu = false;
  with_exec(opt.exec, [&](auto exec) { on_gpu = is_device_space<decltype(exec)>(); });
  std::optional<ProgressScope> progress;
  progress.emplace(ctx, on_gpu ? 3 : 2);

  const Kokkos::DefaultHostExecutionSpace host;
  const std::string host_device = device_of(host);
  std::ostringstream what;
  what.precision(4);
  what << "copy: host deep_copy, 2 x " << host_mib << " MiB";
  progress->step(what.str());
  CopyMeasurement host_copy = measure_deep_copy(host, host_elements, opt.repetitions());
  what.str("");
  what << "copy: host triad, 3 x " << host_mib << " MiB";
  progress->step(what.str());
  CopyMeasurement triad = measure_triad(host, host_elements, opt.repetitions());
  ctx.copy.host_copy_GBps = traffic::gbps(host_copy.counted_bytes, host_copy.timing.median_ms());
  ctx.copy.host_triad_GBps = traffic::gbps(triad.counted_bytes, triad.timing.median_ms());

  CopyMeasurement device_copy;
  std::string gpu_device;
  with_exec(opt.exec, [&](auto exec) {
    if constexpr (is_device_space<decltype(exec)>()) {
      what.str("");
      what << "copy: device deep_copy, 2 x " << device_mib << " MiB";
      progress->step(what.str());
      device_copy = measure_deep_copy(exec, device_elements, opt.repetitions());
      ctx.copy.device_copy_GBps = traffic::gbps(device_copy.counted_bytes, device_copy.timing.median_ms());
      gpu_device = device_of(exec);
    }
  });
  ctx.copy.measured = true;
  progress.reset();

  // A copy whose destination differs from its source is no row and no reference: the rows of the
  // other sweeps then have no pct_of_copy_bw on that side.
  CopyMeasurement* const measurements[] = {&host_copy, &triad, &device_copy};
  if (faults::unverified_copy())
    for (auto* m : measurements) m->verified = false;
  const auto verified = [&](const CopyMeasurement& m, const char* what_failed) {
    if (m.verified) return true;
    ctx.wrong_result(what_failed, "the destination differs from the expected values");
    ctx.left_out(what_failed);
    return false;
  };
  if (!verified(triad, "copy triad on the host")) ctx.copy.host_triad_GBps = 0;
  if (verified(host_copy, "copy deep_copy on the host"))
    ctx.emit(copy_row("deep_copy", host_copy, ctx.copy.host_triad_GBps, host_device), min_text(host_copy.timing));
  else
    ctx.copy.host_copy_GBps = 0;
  if (triad.verified)
    ctx.emit(copy_row("triad", triad, ctx.copy.host_triad_GBps, host_device), min_text(triad.timing));
  if (ctx.copy.device_copy_GBps) {
    if (verified(device_copy, "copy deep_copy on the device"))
      ctx.emit(copy_row("deep_copy", device_copy, *ctx.copy.device_copy_GBps, gpu_device),
               min_text(device_copy.timing));
    else
      ctx.copy.device_copy_GBps.reset();
  }
}

void run_copy_sweep(BenchContext& ctx) {
  ensure_copy_reference(ctx);
  std::ostringstream os;
  os.precision(4);
  const auto figure = [&](double gbps, const char* counted) {  // 0: the copy failed its check
    if (gbps > 0)
      os << gbps << " GB/s (" << counted << ")";
    else
      os << "none (failed its check)";
  };
  os << "copy reference of this run: host triad ";
  figure(ctx.copy.host_triad_GBps, "3 arrays counted");
  os << ", host deep_copy ";
  figure(ctx.copy.host_copy_GBps, "read + write counted");
  if (ctx.copy.device_copy_GBps) {
    os << ", device deep_copy ";
    figure(*ctx.copy.device_copy_GBps, "read + write");
  }
  std::fprintf(ctx.console(), "%s\n", os.str().c_str());
  std::fflush(ctx.console());
}

}  // namespace tridiag::bench

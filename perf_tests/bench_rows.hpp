#pragma once
// What the vbatch and constant sweeps share: a measurement guarded against exceptions, the row it
// becomes (CSV columns as in the tridiag sweep, speedup columns left empty), and the oracle check
// of sampled systems of any size (each compared with LAPACK dgtsv, bench_oracle.hpp).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>

#include "bench_context.hpp"
#include "bench_environment.hpp"
#include "bench_faults.hpp"
#include "bench_oracle.hpp"
#include "bench_timer.hpp"
#include "bench_traffic.hpp"

namespace tridiag::bench {

/// Runs f; an exception (allocation failure, invalid argument) is reported and counted, and the
/// sweep goes on with the next measurement.
inline void guarded_measurement(BenchContext& ctx, const std::string& what, const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    ctx.failed(what, e.what());
  }
}

/// One timed, checked measurement of a sweep without baselines.
struct Row {
  std::string algorithm, layout, device;
  bool on_device = false;  ///< pct_of_copy_bw against the device copy (else the host triad)
  Timing timing;
  double useful_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::optional<double> max_rel_error;
  bool passed = true;  ///< cleared by a failed check (fail): emit_row writes no row then
  std::string note;    ///< appended to the console line
};

/// Reports a wrong result of `row` and marks it failed: no CSV row, no baseline, no reference.
inline void fail(BenchContext& ctx, const std::string& what, Row& row, const std::string& why) {
  row.passed = false;
  ctx.wrong_result(what, why);
}

/// Checks one sample (a system of any size, host copies in double) against LAPACK; folds its
/// error into `row` and reports a wrong result (fail). Returns false when wrong.
inline bool check_sample(BenchContext& ctx, const std::string& what, Row& row, HostSamples sample, double eps) {
  if (faults::wrong_solution(row.algorithm)) faults::corrupt(sample.x);
  const OracleResult r = check_with_lapack(sample, eps);
  const double e = r.max_rel_error;
  if (!row.max_rel_error)
    row.max_rel_error = e;
  else if (!std::isnan(*row.max_rel_error) && !(e <= *row.max_rel_error))
    row.max_rel_error = e;  // a NaN sticks
  if (r.wrong) fail(ctx, what, row, r.why);
  return !r.wrong;
}

/// Writes one row: sweep, precision, systems and size as given, the rest from `m`; a failed row
/// only says on stderr that it is left out.
inline void emit_row(BenchContext& ctx, const std::string& sweep, const std::string& precision, index_type systems,
                     index_type size, const Row& m) {
  if (!m.passed) {
    ctx.left_out(sweep + " " + m.algorithm + "/" + m.layout + " " + precision + " " + std::to_string(systems) +
                 " systems on " + m.device);
    return;
  }
  CsvRow r;
  r.sweep = sweep;
  r.algorithm = m.algorithm;
  r.layout = m.layout;
  r.precision = precision;
  r.systems = systems;
  r.size = size;
  const double t = m.timing.median_ms();
  r.time_ms = t;
  r.useful_GBps = traffic::gbps(m.useful_bytes, t);
  if (const auto reference = ctx.copy.for_space(m.on_device); reference && *reference > 0)
    r.pct_of_copy_bw = 100.0 * *r.useful_GBps / *reference;
  r.memory_bytes = m.memory_bytes;
  r.max_rel_error = m.max_rel_error;
  r.device = m.device;
  r.commit = commit();
  std::ostringstream extra;
  extra.precision(4);
  extra << "min " << m.timing.min_ms() << " ms, " << m.timing.reps() << " reps";
  if (!m.note.empty()) extra << "; " << m.note;
  ctx.emit(r, extra.str());
}

}  // namespace tridiag::bench

#pragma once
// State shared by the sweeps of one tridiag-bench process: the options, the CSV, the copy
// reference measured in this process, and the tally of wrong results and failed measurements
// that decides the exit status. Also the summary line per row on stdout (stderr when the CSV
// itself goes to stdout).

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench_csv.hpp"
#include "bench_options.hpp"
#include "progress.hpp"

namespace tridiag::bench {

/// Copy figures measured in this process (GB/s, bytes counted as in bench_traffic.hpp).
struct CopyReference {
  bool measured = false;
  // A copy that failed its check leaves 0 (host) or nothing (device): no reference.
  double host_copy_GBps = 0;    ///< deep_copy HostSpace -> HostSpace, all host threads
  double host_triad_GBps = 0;   ///< STREAM triad, all host threads: the host reference
  std::optional<double> device_copy_GBps;  ///< deep_copy on the GPU: the device reference

  /// The reference of a measurement on the host (false) or on the GPU (true).
  std::optional<double> for_space(bool on_device) const {
    if (on_device) return device_copy_GBps;
    return measured ? std::optional<double>(host_triad_GBps) : std::nullopt;
  }
};

struct BenchContext {
  Options options;
  CsvWriter csv;
  CopyReference copy;
  int wrong_results = 0;
  int failed_measurements = 0;
  Progress* progress = nullptr;  ///< set while a sweep shows progress

  explicit BenchContext(const Options& opt) : options(opt), csv(opt.csv_path) {}

  /// Writes the row to the CSV and its summary line to the console.
  void emit(const CsvRow& row, const std::string& extra = "");

  /// A line on stderr that the progress bar does not overwrite.
  void message(const std::string& line);

  /// Reports a wrong result loudly on stderr and counts it.
  void wrong_result(const std::string& what, const std::string& why);

  /// Says on stderr that the measurement `what` is not written to the CSV because its check failed
  /// (wrong_result said why): its time would pass for that of a solve.
  void left_out(const std::string& what);

  /// Reports a measurement that could not run and counts it.
  void failed(const std::string& what, const std::string& why);

  /// 1 if a result was wrong, 3 if a measurement failed, else 0.
  int exit_status() const { return wrong_results ? 1 : failed_measurements ? 3 : 0; }

  /// The console the summary lines go to.
  std::FILE* console() const { return options.csv_path == "-" ? stderr : stdout; }
};

/// Points the context at a progress display for the lifetime of a sweep (exception-safe).
class ProgressScope {
 public:
  ProgressScope(BenchContext& ctx, std::size_t steps) : ctx_(ctx), progress_(steps, ctx.options.progress) {
    ctx_.progress = &progress_;
  }
  ~ProgressScope() {
    progress_.finish();
    ctx_.progress = nullptr;
  }
  /// Says on stderr that the sweep `what` is over and how long it took.
  void done(const std::string& what) { progress_.done(what); }
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;
  void step(const std::string& what) { progress_.step(what); }

 private:
  BenchContext& ctx_;
  Progress progress_;
};

/// Measures the copy reference once per process (host copy and triad; device copy when the chosen
/// execution space is a GPU), writing its rows. Does nothing the second time.
void ensure_copy_reference(BenchContext& ctx);

/// The `copy` sweep: ensure_copy_reference plus the figures on stdout.
void run_copy_sweep(BenchContext& ctx);

/// The `tridiag` sweep.
void run_tridiag_sweep(BenchContext& ctx);

/// The `vbatch` sweep (sweep_vbatch.cpp).
void run_vbatch_sweep(BenchContext& ctx);

/// The `constant` sweep (sweep_constant.cpp).
void run_constant_sweep(BenchContext& ctx);

/// The `hines` sweep (sweep_hines.cpp), and the '#' lines its CSV carries (batch encoding).
void run_hines_sweep(BenchContext& ctx);
/// Throws usage_error unless every batch the hines sweep would run (--batches or its defaults) names
/// a size class, mixed6, mixed-shared or a cell whose files are in the morphology folder. Needs no
/// Kokkos: main calls it before anything is initialised or opened.
void check_hines_batches(const Options& o);
std::vector<std::string> hines_csv_notes();

}  // namespace tridiag::bench

#pragma once
// Command line of tridiag-bench: which sweep, which grid, how many repetitions, where the CSV goes.
// Parsed before Kokkos is initialised, so `--help` and a bad option never touch a device.
// Arguments starting with `--kokkos-` are left for Kokkos::initialize.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tridiag/core/types.hpp>

#include "bench_timer.hpp"

namespace tridiag::bench {

/// A command line tridiag-bench does not understand (exit status 2).
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Sweep { copy, tridiag, vbatch, constant, hines, all };
enum class ExecChoice { default_space, serial, openmp, cuda };

/// The options as given, and (Options::for_sweep) as one sweep uses them: each sweep has its own
/// default grid, which an option given on the command line replaces for every sweep.
struct Options {
  Sweep sweep = Sweep::all;           ///< no sweep on the command line = all
  std::vector<index_type> systems{256, 2560, 25600, 256000};
  std::vector<index_type> sizes{64, 128, 256, 512};
  std::vector<std::string> precisions{"float", "double"};
  /// tridiag: extra partitioned rows with these rows_per_thread (tuning the automatic choice)
  std::vector<index_type> partitioned_rows;
  /// vbatch: size ranges [lo, hi], sizes drawn uniformly in each
  std::vector<std::pair<index_type, index_type>> ranges{{256, 512}, {64, 128}, {1, 512}};
  /// hines: batch kinds (size classes, shared cells, mixed6, mixed-shared); empty = the sweep's default
  std::vector<std::string> batches;
  std::string morphology_dir;         ///< hines: folder of the SWC files; "" = the one set at configure time
  int reps = 20;                      ///< timed repetitions at most (after one untimed warm-up)
  double rep_budget_s = 0.5;          ///< ... but stop once they add up to this, after 3 (bench_timer.hpp)
  bool quick = false;                 ///< small grid: systems 256,2560 (vbatch: 2560), n 64,512, reps 3;
                                      ///< hines: 1024 neurons, small-high and mixed6
  bool full = false;                  ///< run what is skipped by default: the sequential baseline at every
                                      ///< size, one-thread-per-system and cyclic solvers on long systems,
                                      ///< the largest Hines batches
  bool host_baselines = true;         ///< hines: time the host baselines (sequential, OpenMP); off for
                                      ///< batches too large for them (--no-host-baselines)
  bool progress = false;              ///< progress bar even when stderr is not a terminal
  std::string csv_path;               ///< "" = no CSV, "-" = CSV on stdout
  ExecChoice exec = ExecChoice::default_space;
  double copy_mib = 0;                ///< MiB per array of the copy sweep; 0 = 1024 (GPU) / 256 (host)
  std::uint64_t seed = 20261122;      ///< seed of the counter-based generator of the matrices
  bool help = false;
  std::string command_line;           ///< argv joined, for the CSV header
  /// Which grid options the command line gave (the others take each sweep's default).
  bool have_systems = false, have_sizes = false, have_reps = false;

  /// These options as `s` runs them: its default grid where the command line gave none, --quick's.
  Options for_sweep(Sweep s) const;
  /// The repetition rule of every measurement (bench_timer.hpp).
  Repetitions repetitions() const { return Repetitions{reps, rep_budget_s, 3}; }
};

/// The sweeps `all` runs, in order.
constexpr Sweep all_sweeps[] = {Sweep::copy, Sweep::tridiag, Sweep::vbatch, Sweep::constant, Sweep::hines};

/// Above this many unknowns (systems x n) the sequential baseline is skipped unless --full.
constexpr double sequential_unknowns_limit = 2e8;
/// hines: above this many padded rows (neurons x rows) the sequential baseline is skipped unless --full
/// (0.4-3.3 s a call on one core at 256,000 neurons: it would take most of a GPU run's time).
constexpr double hines_sequential_rows_limit = 3e7;
/// hines: batches of more than this many padded rows are skipped unless --full: the mixed-shared batch at
/// 256,000 neurons (the shared cells padded to 4,035 rows: 1.03e9 rows, 50 GB of device memory in double)
/// alone took a third of a GPU run's time; it is measured at 25,600 neurons.
constexpr double hines_batch_rows_limit = 5e8;
/// tridiag: systems longer than this are "long": one thread per system (thomas, every layout) and the
/// team cyclic solvers (cr, pcr, cr_pcr) are skipped there unless --full (a 10^6-row solve in one
/// thread takes 0.5 s on an H100); the partitioned solver, auto, cuSPARSE and the baselines stay.
constexpr index_type long_system_rows = 16384;

/// Parses argv (argv[0] is the program). Throws usage_error with a message naming the option.
Options parse_options(int argc, char** argv);

/// The --help text.
std::string usage();

const char* sweep_name(Sweep s);
const char* exec_choice_name(ExecChoice e);

}  // namespace tridiag::bench

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

namespace tridiag::bench {

/// A command line tridiag-bench does not understand (exit status 2).
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Sweep { copy, tridiag, vbatch, constant, hines, all };
enum class ExecChoice { default_space, serial, openmp, cuda };

struct Options {
  Sweep sweep = Sweep::all;
  std::vector<index_type> systems{256, 2560, 25600, 256000};
  std::vector<index_type> sizes{64, 128, 256, 512};
  std::vector<std::string> precisions{"float", "double"};
  /// vbatch: size ranges [lo, hi], sizes drawn uniformly in each
  std::vector<std::pair<index_type, index_type>> ranges{{256, 512}, {64, 128}, {1, 512}};
  /// hines: batch kinds (size classes, shared cells, mixed6, mixed-shared); empty = the sweep's default
  std::vector<std::string> batches;
  std::string morphology_dir;         ///< hines: folder of the SWC files; "" = the one set at configure time
  int reps = 20;                      ///< timed repetitions (after one untimed warm-up)
  bool quick = false;                 ///< small grid: systems 256,2560 (vbatch: 2560), n 64,512, reps 3;
                                      ///< hines: two classes and mixed6
  bool full = false;                  ///< run the sequential baseline at every size
  bool progress = false;              ///< progress bar even when stderr is not a terminal
  std::string csv_path;               ///< "" = no CSV, "-" = CSV on stdout
  ExecChoice exec = ExecChoice::default_space;
  double copy_mib = 0;                ///< MiB per array of the copy sweep; 0 = 1024 (GPU) / 256 (host)
  std::uint64_t seed = 20261122;      ///< seed of the counter-based generator of the matrices
  bool help = false;
  std::string command_line;           ///< argv joined, for the CSV header
};

/// Above this many unknowns (systems x n) the sequential baseline is skipped unless --full.
constexpr double sequential_unknowns_limit = 2e8;

/// Parses argv (argv[0] is the program). Throws usage_error with a message naming the option.
Options parse_options(int argc, char** argv);

/// The --help text.
std::string usage();

const char* sweep_name(Sweep s);
const char* exec_choice_name(ExecChoice e);

}  // namespace tridiag::bench

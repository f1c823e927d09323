#include "bench_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include <Kokkos_Core.hpp>  // KOKKOS_ENABLE_* macros only

namespace tridiag::bench {

namespace {

std::vector<std::string> split_commas(const std::string& option, const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  for (char ch : text) {
    if (ch == ',') {
      parts.push_back(current);
      current.clear();
    } else {
      current += ch;
    }
  }
  parts.push_back(current);
  for (const auto& p : parts)
    if (p.empty()) throw usage_error(option + ": empty entry in '" + text + "'");
  return parts;
}

long long parse_integer(const std::string& option, const std::string& text, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw usage_error(option + ": '" + text + "' is not an integer");
  if (v < lo || v > hi)
    throw usage_error(option + ": " + text + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

std::vector<index_type> parse_list(const std::string& option, const std::string& text, long long lo, long long hi) {
  std::vector<index_type> values;
  for (const auto& part : split_commas(option, text)) values.push_back(parse_integer(option, part, lo, hi));
  return values;
}

Sweep parse_sweep(const std::string& text) {
  if (text == "copy") return Sweep::copy;
  if (text == "tridiag") return Sweep::tridiag;
  if (text == "vbatch") return Sweep::vbatch;
  if (text == "constant") return Sweep::constant;
  if (text == "hines") return Sweep::hines;
  if (text == "all") return Sweep::all;
  throw usage_error("unknown sweep '" + text + "' (expected copy, tridiag, vbatch, constant, hines or all)");
}

ExecChoice parse_exec(const std::string& text) {
  if (text == "default") return ExecChoice::default_space;
  if (text == "serial") {
#if defined(KOKKOS_ENABLE_SERIAL)
    return ExecChoice::serial;
#else
    throw usage_error("--exec serial: this Kokkos has no Serial backend");
#endif
  }
  if (text == "openmp") {
#if defined(KOKKOS_ENABLE_OPENMP)
    return ExecChoice::openmp;
#else
    throw usage_error("--exec openmp: this Kokkos has no OpenMP backend");
#endif
  }
  if (text == "cuda") {
#if defined(KOKKOS_ENABLE_CUDA)
    return ExecChoice::cuda;
#else
    throw usage_error("--exec cuda: this Kokkos has no CUDA backend");
#endif
  }
  throw usage_error("--exec: unknown execution space '" + text + "' (expected default, serial, openmp or cuda)");
}

/// The sweeps that use `option`, for the options that not every sweep uses (nullptr: every sweep).
/// A named sweep rejects the others: they would be ignored, and the run would not be the one asked
/// for. `all` takes every option (each applies to one of its sweeps).
std::vector<Sweep> sweeps_using(const std::string& option) {
  if (option == "--n") return {Sweep::tridiag, Sweep::constant};
  if (option == "--partitioned-rows") return {Sweep::tridiag, Sweep::vbatch};
  if (option == "--ranges") return {Sweep::vbatch};
  if (option == "--batches" || option == "--morphologies" || option == "--no-host-baselines") return {Sweep::hines};
  if (option == "--full") return {Sweep::tridiag, Sweep::hines};
  if (option == "--systems" || option == "--precision" || option == "--seed")
    return {Sweep::tridiag, Sweep::vbatch, Sweep::constant, Sweep::hines};
  return {};
}

}  // namespace

const char* sweep_name(Sweep s) {
  switch (s) {
    case Sweep::copy: return "copy";
    case Sweep::tridiag: return "tridiag";
    case Sweep::vbatch: return "vbatch";
    case Sweep::constant: return "constant";
    case Sweep::hines: return "hines";
    case Sweep::all: return "all";
  }
  return "?";
}

const char* exec_choice_name(ExecChoice e) {
  switch (e) {
    case ExecChoice::default_space: return "default";
    case ExecChoice::serial: return "serial";
    case ExecChoice::openmp: return "openmp";
    case ExecChoice::cuda: return "cuda";
  }
  return "?";
}

std::string usage() {
  std::ostringstream os;
  os << "usage: tridiag-bench [<sweep>] [options] [--kokkos-... options]\n"
        "\n"
        "sweeps:\n"
        "  copy      copy bandwidth: Kokkos::deep_copy between two Views (device on a GPU build,\n"
        "            host always; read + write bytes counted) and a STREAM triad on all host\n"
        "            threads (a = b + s*c, 3 arrays counted): the reference of pct_of_copy_bw\n"
        "  tridiag   thomas::solve on the layouts interleaved, block_interleaved32,\n"
        "            block_interleaved8, flat, unified_vector; partitioned and auto on flat,\n"
        "            interleaved and block_interleaved32; cr, pcr, cr_pcr on flat; sequential (Serial,\n"
        "            flat) and OpenMP (flat) baselines; cuSPARSE gtsv2StridedBatch and\n"
        "            gtsvInterleavedBatch (algorithms 0, 1, 2) on a CUDA build. Long systems\n"
        "            (n > 16384): thomas (one thread per system) and cr/pcr/cr_pcr are skipped\n"
        "            unless --full; cyclic solvers are skipped where their team scratch does not\n"
        "            fit (both said on stderr). Every result is checked against LAPACK ?gtsv.\n"
        "  vbatch    variable batches, sizes uniform in each --ranges range: CP (thomas::solve after\n"
        "            pad_matrix) and NCP (solve_padded) on padded interleaved storage, NCP on ragged\n"
        "            storage (solve_ragged; and partitioned::solve_ragged on a GPU), size-aware\n"
        "            (solve_size_aware, groups of 32). Systems default 2560,25600,256000 (--quick: 2560).\n"
        "  constant  constant-coefficient batches (thomas::solve_constant, factorized, one triple\n"
        "            for the batch) against thomas::solve on the filled-in matrix; interleaved and\n"
        "            flat layouts, grid as for tridiag\n"
        "  hines     batched Hines solves (hines::solve) of neuron populations from the shared SWC cells:\n"
        "            the six seed size classes, single cells, mixed batches (padded and grouped by\n"
        "            morphology); layouts flat, interleaved, block_interleaved8/32, unified_vector x\n"
        "            kernels per-neuron and block-shared<32> (branch-parallel on flat and interleaved,\n"
        "            auto there and on block_interleaved32; staged branch-parallel on flat; subtree-parallel, automatic, 2\n"
        "            and 8 warps, and with trunk paths of 64 rows and more split (hines_subtree_parallel_split),\n"
        "            on interleaved and block_interleaved32; on mixed batches also\n"
        "            per-neuron and subtree-parallel without the pad rows, hines_ncp,\n"
        "            hines_subtree_parallel_ncp and hines_subtree_parallel_split_ncp); sequential (skipped above 3e7 padded rows\n"
        "            unless --full) and OpenMP baselines (on mixed batches also without the pad rows: the\n"
        "            baselines of the *_ncp rows). Batches above 5e8 padded rows (mixed-shared\n"
        "            at 256,000 neurons) are\n"
        "            skipped unless --full. Systems (neurons) default 25600,256000 (--quick:\n"
        "            1024). Every result is checked against a long-double sequential Hines solve\n"
        "            of sampled neurons.\n"
        "  all       copy, tridiag, vbatch, constant, hines, each with its default grid (the\n"
        "            default when no sweep is named); options given apply to every sweep\n"
        "Every sweep measures the copy reference first (once per run).\n"
        "\n"
        "options (an option that the named sweep does not use is an error; `all` takes them all):\n"
        "  --systems LIST      batch sizes (default 256,2560,25600,256000; vbatch and hines: above)\n"
        "  --n LIST            unknowns per system (default 64,128,256,512)\n"
        "  --precision LIST    float and/or double, in this order (default float,double)\n"
        "  --partitioned-rows LIST  tridiag: also time the partitioned solver (flat layout) with\n"
        "                      these target rows per thread (partitioned::Options::rows_per_thread,\n"
        "                      1..16), as rows 'partitioned(rows=R)'; the default choice stays;\n"
        "                      vbatch: partitioned::solve_ragged the same way, 'partitioned-ncp(rows=R)';\n"
        "                      GPU spaces only: on a host space these rows are skipped (said on stderr)\n"
        "  --ranges LIST       vbatch size ranges LO-HI (default 256-512,64-128,1-512)\n"
        "  --batches LIST      hines batches: size classes (small-low, small-high, medium-low, medium-high,\n"
        "                      big-low, big-high), shared cells by file name without .swc / .CNG.swc\n"
        "                      (e.g. BG001; X.CNG for X.CNG.swc beside X.swc), mixed6, mixed-shared (default: the six classes, BG001,\n"
        "                      mixed6, mixed-shared; --quick: small-high, mixed6)\n"
        "  --morphologies DIR  hines: folder of the SWC files (default: set at configure time,\n"
        "                      TRIDIAG_SHARED_DIR/morphologies)\n"
        "  --reps N            timed repetitions after one warm-up, at most (default 20); median and\n"
        "                      min kept\n"
        "  --rep-budget S      time-bounded repetitions: a measurement stops repeating once its timed\n"
        "                      runs add up to S seconds, but never before 3 runs (or N if --reps N < 3):\n"
        "                      reps = clamp(ceil(S / t), 3, N) for a solve of t seconds (default 0.5;\n"
        "                      0 = always N). The console line of each row gives its count.\n"
        "  --quick             systems 256,2560 (vbatch 2560, hines 1024), n 64,512, reps 3,\n"
        "                      hines batches small-high and mixed6 (explicit options still win)\n"
        "  --full              also run what is skipped by default: the sequential baseline above 2e8\n"
        "                      unknowns (hines: 3e7 padded rows), thomas and cyclic solvers on long\n"
        "                      systems, hines batches above 5e8 padded rows\n"
        "  --no-host-baselines hines: skip the host baselines (sequential, OpenMP) and their host\n"
        "                      copy of the batch; with --full, how the largest batches are timed on a\n"
        "                      GPU without minutes of sequential solves; the speedup columns stay empty,\n"
        "                      on a host space too (its own flat row is then no baseline)\n"
        "  --exec SPACE        default|serial|openmp|cuda: where the layouts are solved\n"
        "                      (default: Kokkos::DefaultExecutionSpace)\n"
        "  --csv FILE          write the CSV there ('-' = stdout; the summary then goes to stderr)\n"
        "  --copy-mib X        MiB per array of the copy measurements (default 1024 on a GPU,\n"
        "                      256 on the host; arrays that fit in cache measure the cache)\n"
        "  --seed N            seed of the random matrices (default 20261122)\n"
        "  --progress          progress bar on stderr even when it is not a terminal\n"
        "  --help              this text\n"
        "\n"
        "A measurement whose check failed (a wrong result, an unverified copy) writes no CSV row and is\n"
        "no baseline or copy reference.\n"
        "Exit status: 0 all results right, 1 a result was WRONG (see stderr), 2 bad command line,\n"
        "3 a measurement failed to run (e.g. out of memory), 77 CUDA build without a GPU.\n"
        "Environment: TRIDIAG_COMMIT overrides the commit recorded at build time.\n";
  return os.str();
}

Options Options::for_sweep(Sweep s) const {
  Options o = *this;
  o.sweep = s;
  if (!have_systems) {
    if (s == Sweep::vbatch)
      o.systems = quick ? std::vector<index_type>{2560} : std::vector<index_type>{2560, 25600, 256000};
    else if (s == Sweep::hines)
      o.systems = quick ? std::vector<index_type>{1024} : std::vector<index_type>{25600, 256000};
    else if (quick)
      o.systems = {256, 2560};
  }
  if (quick && !have_sizes) o.sizes = {64, 512};
  if (quick && !have_reps) o.reps = 3;
  return o;
}

Options parse_options(int argc, char** argv) {
  Options opt;
  bool have_sweep = false;
  std::vector<std::string> given;  // the options on the command line, for the check against the sweep
  for (int k = 0; k < argc; ++k) {
    if (k > 0) opt.command_line += ' ';
    opt.command_line += argv[k];
  }
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    auto value = [&](const std::string& name) -> std::string {
      const std::string prefix = name + "=";
      if (arg.compare(0, prefix.size(), prefix) == 0) return arg.substr(prefix.size());
      if (k + 1 >= argc) throw usage_error(name + " needs a value");
      return argv[++k];
    };
    auto is = [&](const std::string& name) { return arg == name || arg.compare(0, name.size() + 1, name + "=") == 0; };
    if (arg.compare(0, 9, "--kokkos-") == 0) continue;  // Kokkos::initialize reads these
    if (arg.compare(0, 2, "--") == 0) given.push_back(arg.substr(0, arg.find('=')));
    if (arg == "--help" || arg == "-h") {
      opt.help = true;
    } else if (is("--systems")) {
      opt.systems = parse_list("--systems", value("--systems"), 1, 1LL << 40);
      opt.have_systems = true;
    } else if (is("--n")) {
      opt.sizes = parse_list("--n", value("--n"), 1, 1LL << 30);
      opt.have_sizes = true;
    } else if (is("--partitioned-rows")) {
      opt.partitioned_rows = parse_list("--partitioned-rows", value("--partitioned-rows"), 1, 16);
    } else if (is("--precision")) {
      opt.precisions = split_commas("--precision", value("--precision"));
      for (const auto& p : opt.precisions)
        if (p != "float" && p != "double")
          throw usage_error("--precision: unknown precision '" + p + "' (expected float or double)");
    } else if (is("--ranges")) {
      opt.ranges.clear();
      for (const auto& part : split_commas("--ranges", value("--ranges"))) {
        const auto dash = part.find('-');
        if (dash == std::string::npos) throw usage_error("--ranges: '" + part + "' is not LO-HI");
        const index_type lo = parse_integer("--ranges", part.substr(0, dash), 0, 1LL << 30);
        const index_type hi = parse_integer("--ranges", part.substr(dash + 1), lo, 1LL << 30);
        opt.ranges.emplace_back(lo, hi);
      }
    } else if (is("--batches")) {
      opt.batches = split_commas("--batches", value("--batches"));
    } else if (is("--morphologies")) {
      opt.morphology_dir = value("--morphologies");
      if (opt.morphology_dir.empty()) throw usage_error("--morphologies: empty folder name");
    } else if (is("--reps")) {
      opt.reps = static_cast<int>(parse_integer("--reps", value("--reps"), 1, 1000000));
      opt.have_reps = true;
    } else if (is("--rep-budget")) {
      const std::string text = value("--rep-budget");
      char* end = nullptr;
      opt.rep_budget_s = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(opt.rep_budget_s >= 0) || opt.rep_budget_s > 1e6)
        throw usage_error("--rep-budget: '" + text + "' is not a number of seconds >= 0");
    } else if (arg == "--quick") {
      opt.quick = true;
    } else if (arg == "--full") {
      opt.full = true;
    } else if (arg == "--no-host-baselines") {
      opt.host_baselines = false;
    } else if (arg == "--progress") {
      opt.progress = true;
    } else if (is("--csv")) {
      opt.csv_path = value("--csv");
      if (opt.csv_path.empty()) throw usage_error("--csv: empty file name");
    } else if (is("--exec")) {
      opt.exec = parse_exec(value("--exec"));
    } else if (is("--copy-mib")) {
      const std::string text = value("--copy-mib");
      char* end = nullptr;
      opt.copy_mib = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(opt.copy_mib > 0) || opt.copy_mib > 1e6)
        throw usage_error("--copy-mib: '" + text + "' is not a positive number of MiB");
    } else if (is("--seed")) {
      opt.seed = static_cast<std::uint64_t>(parse_integer("--seed", value("--seed"), 0, (1LL << 62)));
    } else if (!arg.empty() && arg[0] == '-') {
      throw usage_error("unknown option '" + arg + "'");
    } else if (!have_sweep) {
      opt.sweep = parse_sweep(arg);
      have_sweep = true;
    } else {
      throw usage_error("unexpected argument '" + arg + "' (the sweep is already '" + sweep_name(opt.sweep) + "')");
    }
  }
  if (opt.help) return opt;
  if (opt.sweep != Sweep::all)
    for (const auto& option : given) {
      const std::vector<Sweep> users = sweeps_using(option);
      if (users.empty() || std::find(users.begin(), users.end(), opt.sweep) != users.end()) continue;
      std::string names;
      for (const Sweep u : users) names += std::string(names.empty() ? "" : ", ") + sweep_name(u);
      throw usage_error(option + " does not apply to the " + sweep_name(opt.sweep) + " sweep (it is an option of " +
                        names + ")");
    }
  // No sweep named: all of them. The grid of each sweep is settled by Options::for_sweep.
  return opt.sweep == Sweep::all ? opt : opt.for_sweep(opt.sweep);
}

}  // namespace tridiag::bench

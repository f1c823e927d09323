// tridiag-neurons: a population of neurons from real morphologies, simulated with
// tridiag::hines::Population (passive membrane, optionally Hodgkin-Huxley at the soma) on
// Kokkos's default execution space. Every neuron gets a current step at the soma, its amplitude
// rising linearly with the neuron's index from --amp-min to --amp-max, so that the recorded
// neurons of one morphology show the range of responses.
//
// usage: tridiag-neurons [--neurons N] [--tstop MS] [--dt MS] [--hh] [--out DIR]
//          [--morphologies DIR] [--amp-min NA] [--amp-max NA] [--delay MS] [--dur MS]
//          [--record-per-morphology K] [--record-every STEPS] [--no-plot]
// Defaults: 10,000 neurons, 100 ms, dt 0.025 ms, every *.swc of the shared morphologies folder
// (TRIDIAG_MORPHOLOGIES_DIR, set by CMake), clamp 0..0.1 nA (0..1 nA with --hh) from 10 ms for
// 80 ms, 3 recorded neurons per morphology sampled every 4 steps and after the last one, output
// in the current folder.
//
// Writes DIR/traces.csv (t_ms, then one column of soma voltage in mV per recorded neuron, named
// <morphology>_n<neuron>_<amplitude>nA) and DIR/traces.png (plot_traces.py, with
// TRIDIAG_PYTHON and matplotlib; without them it says so and still succeeds; an earlier run's
// traces.png is removed first). Prints the setup,
// a progress bar (stderr), the wall time and the throughput.

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>  // environ

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/population.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <tridiag/core/version.hpp>

#ifndef TRIDIAG_MORPHOLOGIES_DIR
#define TRIDIAG_MORPHOLOGIES_DIR "../shared/morphologies"
#endif
#ifndef TRIDIAG_PLOT_SCRIPT
#define TRIDIAG_PLOT_SCRIPT "plot_traces.py"
#endif
#ifndef TRIDIAG_PYTHON
#define TRIDIAG_PYTHON "/usr/bin/python3"
#endif

namespace {

namespace fs = std::filesystem;
using namespace tridiag::hines;
using tridiag::index_type;

/// How a child program ended: not started (start_error, an errno value), or exited with a status,
/// or stopped by a signal.
struct ProgramEnd {
  int start_error = 0;
  bool exited = false;
  int status = 0;  ///< exit status, or the signal
};

/// Runs `program` with `args` and waits for it. No shell: paths with quotes, `$` or spaces in
/// them reach the program as they are.
ProgramEnd run_program(const std::string& program, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ProgramEnd end;
  pid_t pid = 0;
  end.start_error = posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), ::environ);
  if (end.start_error != 0) return end;
  int code = 0;
  while (waitpid(pid, &code, 0) == -1)
    if (errno != EINTR) {
      end.start_error = errno;
      return end;
    }
  end.exited = WIFEXITED(code);
  end.status = end.exited ? WEXITSTATUS(code) : WTERMSIG(code);
  return end;
}

struct Settings {
  long neurons = 10000;
  double tstop_ms = 100, dt_ms = 0.025;
  bool hh = false, plot = true;
  std::string out = ".", morphologies = TRIDIAG_MORPHOLOGIES_DIR;
  double amp_min_nA = 0, amp_max_nA = 0;
  bool amp_max_given = false;  // else 0.1 nA passive, 1 nA with HH
  double delay_ms = 10, dur_ms = 80;
  int record_per_morphology = 3, record_every = 4;
};

constexpr const char* usage_text =
    "usage: tridiag-neurons [--neurons N] [--tstop MS] [--dt MS] [--hh] [--out DIR]\n"
    "  [--morphologies DIR] [--amp-min NA] [--amp-max NA] [--delay MS] [--dur MS]\n"
    "  [--record-per-morphology K] [--record-every STEPS] [--no-plot] [--kokkos-...]\n";

/// --help: what the options mean and their defaults, on stdout.
void print_help() {
  std::printf("%s", usage_text);
  std::printf(
      "Simulates N neurons of the SWC files of a folder (round robin) with tridiag::hines::Population and\n"
      "writes the recorded soma voltages to DIR/traces.csv and DIR/traces.png.\n"
      "  --neurons N                neurons (default 10000)\n"
      "  --tstop MS, --dt MS        model time and time step (default 100 and 0.025 ms); MS of --tstop\n"
      "                             must be a whole number of steps\n"
      "  --hh                       Hodgkin-Huxley on every soma section, passive dendrites and axon\n"
      "                             (default: passive membrane everywhere)\n"
      "  --morphologies DIR         folder of *.swc files (default %s)\n"
      "  --amp-min NA, --amp-max NA clamp amplitudes, rising with the neuron's index (default 0 .. 0.1 nA,\n"
      "                             0 .. 1 nA with --hh); --amp-min must not exceed --amp-max\n"
      "  --delay MS, --dur MS       clamp start and duration (default 10 and 80 ms)\n"
      "  --record-per-morphology K  recorded neurons per morphology (default 3)\n"
      "  --record-every STEPS       sampling interval (default 4 steps); the last step is always sampled\n"
      "  --out DIR                  output folder (default: the current one)\n"
      "  --no-plot                  no PNG\n"
      "  --kokkos-...               Kokkos's own options, e.g. --kokkos-threads=16 (Kokkos 3.x, the bundled\n"
      "                             one; --kokkos-num-threads=16 from Kokkos 4), or set OMP_NUM_THREADS;\n"
      "                             --kokkos-help lists them and simulates nothing\n",
      TRIDIAG_MORPHOLOGIES_DIR);
}

/// A value as the user would write it: the fewest significant digits that give back the same double
/// (0.1, not 0.10000000000000001; 1000000000.5, which 10 digits printed as 1000000000), and no
/// exponent for a whole number below 10^17 (10, not 1e+01).
std::string format_number(double x) {
  char text[40];
  int digits = 1;
  for (;; ++digits) {
    std::snprintf(text, sizeof text, "%.*e", digits - 1, x);
    if (digits == 17 || std::strtod(text, nullptr) == x) break;
  }
  const int exponent = std::atoi(std::strchr(text, 'e') + 1);
  std::snprintf(text, sizeof text, "%.*g", std::max(digits, std::min(exponent + 1, 17)), x);
  return text;
}

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "tridiag-neurons: %s\n%s", what.c_str(), usage_text);
  std::exit(2);
}

Settings parse_arguments(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.compare(0, 9, "--kokkos-") == 0) continue;  // Kokkos::initialize reads these
    if (arg == "--hh") {
      s.hh = true;
      continue;
    }
    if (arg == "--no-plot") {
      s.plot = false;
      continue;
    }
    // The options that take a value; any other is unknown, whatever follows it.
    static const char* const with_value[] = {"--neurons", "--tstop", "--dt", "--out", "--morphologies", "--amp-min",
                                             "--amp-max", "--delay", "--dur", "--record-per-morphology",
                                             "--record-every"};
    if (std::find(std::begin(with_value), std::end(with_value), arg) == std::end(with_value))
      usage_error("unknown option " + arg);
    // An option is no value: `--out --hh` took --hh for the output folder (and ran passive).
    if (i + 1 >= argc) usage_error(arg + " needs a value");
    if (std::strncmp(argv[i + 1], "--", 2) == 0) usage_error(arg + " needs a value, not the option " + argv[i + 1]);
    const std::string value = argv[++i];
    auto number = [&] {
      char* end = nullptr;
      const double x = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !std::isfinite(x)) usage_error(arg + ": not a number: " + value);
      return x;
    };
    auto whole = [&](double least, double most) {
      const double x = number();
      if (x != std::floor(x)) usage_error(arg + ": not an integer: " + value);
      if (x < least || x > most) usage_error(arg + " must lie in [" + std::to_string(static_cast<long>(least)) + ", " +
                                             std::to_string(static_cast<long>(most)) + "]: " + value);
      return static_cast<long>(x);
    };
    if (arg == "--neurons") s.neurons = whole(0, 2e9);
    else if (arg == "--tstop") s.tstop_ms = number();
    else if (arg == "--dt") s.dt_ms = number();
    else if (arg == "--out") s.out = value;
    else if (arg == "--morphologies") s.morphologies = value;
    else if (arg == "--amp-min") s.amp_min_nA = number();
    else if (arg == "--amp-max") {
      s.amp_max_nA = number();
      s.amp_max_given = true;
    }
    else if (arg == "--delay") s.delay_ms = number();
    else if (arg == "--dur") s.dur_ms = number();
    else if (arg == "--record-per-morphology") s.record_per_morphology = static_cast<int>(whole(0, 1e6));
    else if (arg == "--record-every") s.record_every = static_cast<int>(whole(1, 1e9));
    else usage_error("unknown option " + arg);
  }
  if (!s.amp_max_given) s.amp_max_nA = s.hh ? 1.0 : 0.1;  // a passive cell has no spike to cap V
  // Checked here, before any cell is read, in the options' own words (the library checks again).
  if (s.tstop_ms < 0) usage_error("--tstop must be >= 0");
  if (!(s.dt_ms > 0)) usage_error("--dt must be positive");
  if (s.tstop_ms / s.dt_ms > 1e12) usage_error("--tstop / --dt gives more than 10^12 steps");
  // A whole number of steps (to rounding), so that the run ends at --tstop and not a step before
  // or after it (NEURON's tstop = 100 with dt = 0.025 is 4000 steps; 1 ms with dt 0.4 is not whole).
  // Rounding only: --tstop, --dt and their quotient are each rounded to a double, about
  // 1.5 DBL_EPSILON of the quotient in all. A tolerance of 1e-9 x step_count, as before, passed
  // half a step off from 5 x 10^8 steps on.
  const double step_count = s.tstop_ms / s.dt_ms;
  if (std::fabs(step_count - std::round(step_count)) > 1e-9 + 8 * DBL_EPSILON * step_count)
    usage_error("--tstop " + format_number(s.tstop_ms) + " is not a whole number of --dt " +
                format_number(s.dt_ms) + " steps (" + format_number(step_count) + ")");
  if (s.amp_min_nA > s.amp_max_nA)
    usage_error("--amp-min " + format_number(s.amp_min_nA) + " exceeds --amp-max " + format_number(s.amp_max_nA) +
                (s.amp_max_given ? "" : " (its default)"));
  if (s.delay_ms < 0) usage_error("--delay must be >= 0");
  if (s.dur_ms < 0) usage_error("--dur must be >= 0");
  return s;
}

/// Every *.swc of a folder, sorted by name.
std::vector<fs::path> swc_files(const std::string& folder) {
  std::vector<fs::path> files;
  if (!fs::is_directory(folder)) throw std::runtime_error("morphology folder " + folder + " does not exist");
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().extension() == ".swc") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no .swc file in " + folder);
  return files;
}

/// k evenly spread neurons of morphology m (neurons m, m + M, m + 2M, ... under round_robin).
std::vector<index_type> spread(long neurons, int morphologies, int m, int k) {
  const long count = neurons > m ? (neurons - 1 - m) / morphologies + 1 : 0;
  std::vector<index_type> picked;
  const long wanted = std::min<long>(k, count);
  for (long q = 0; q < wanted; ++q) {
    const long j = wanted == 1 ? 0 : std::lround(static_cast<double>(q) * (count - 1) / (wanted - 1));
    const index_type neuron = m + j * morphologies;
    if (picked.empty() || picked.back() != neuron) picked.push_back(neuron);
  }
  return picked;
}

/// A CSV field as RFC 4180 has it: quoted, its quotes doubled, when it holds a comma, a quote or a
/// line break (a morphology's file name may; unquoted, "a,b.swc" split its column in two).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void progress(double fraction, double t_ms, double seconds) {
  const int width = 40, filled = static_cast<int>(fraction * width + 0.5);
  std::fprintf(stderr, "\r[%s%s] %3d%%  t = %7.2f ms  %6.1f s", std::string(filled, '#').c_str(),
               std::string(width - filled, ' ').c_str(), static_cast<int>(fraction * 100 + 0.5), t_ms, seconds);
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  // Before Kokkos starts: Kokkos 3.4 would print its own help page for --help too.
  bool kokkos_help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_help();
      return 0;
    }
    // Kokkos prints its options in initialize() and takes the flag out of argv: seen here.
    kokkos_help = kokkos_help || arg == "--kokkos-help" || arg.rfind("--kokkos-help=", 0) == 0;
  }
  // Before Kokkos starts too (its --kokkos-* options skipped), as tridiag-bench does: a bad option
  // is exit status 2 also where Kokkos cannot start.
  const Settings s = parse_arguments(argc, argv);
  // A CUDA build on a machine without a usable GPU: Kokkos::initialize would abort
  // (cudaErrorInsufficientDriver without a driver). Exit status 77 instead, which the example's
  // tests count as skipped (SKIP_RETURN_CODE 77).
  if (const std::string missing = tridiag::missing_device_reason(); !missing.empty()) {
    std::fprintf(stderr, "tridiag-neurons: %s: nothing simulated\n", missing.c_str());
    return 77;
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  // Kokkos' help only: the default run (10,000 neurons for 100 ms) followed it.
  if (kokkos_help) return 0;
  try {
    using Exec = Kokkos::DefaultExecutionSpace;
    fs::create_directories(s.out);  // now, so that an unusable folder fails before the run
    // traces.csv opened now too: a folder that exists but cannot take the file (read-only, or
    // traces.csv a folder) used to fail only after the whole run, with "could not write".
    const fs::path csv = fs::path(s.out) / "traces.csv";
    std::ofstream out(csv);
    if (!out) throw std::runtime_error("cannot write " + csv.string() + " (checked before the run)");
    // An earlier run's plot no longer shows this run's traces: left there, it stood beside the new
    // CSV after --no-plot or a failed plot, and passed for this run's plot when the script failed.
    fs::remove(fs::path(s.out) / "traces.png");
    // Cells.
    std::vector<std::string> names;
    std::vector<CompartmentalCell> cells;
    for (const fs::path& file : swc_files(s.morphologies)) {
      cells.push_back(discretize(load_swc(file.string())));  // its errors name the file
      // --hh needs a soma at the root (the library checks too, but names the cell by its index
      // among the files: "morphology 0").
      if (s.hh && cells.back().sections[0].type != 1)
        throw std::runtime_error(file.string() + ": --hh puts Hodgkin-Huxley on the soma, but this cell's root "
                                 "section has SWC type " + std::to_string(cells.back().sections[0].type) +
                                 ", not a soma (1)");
      names.push_back(file.stem().string());
    }
    const int M = static_cast<int>(cells.size());
    long rows = 0, largest = 0;
    for (long k = 0; k < s.neurons; ++k) rows += cells[k % M].size();
    // Over the morphologies simulated (neuron k has k % M): with fewer neurons than files, the
    // folder's largest cell may have no neuron.
    for (long m = 0; m < std::min<long>(s.neurons, M); ++m) largest = std::max<long>(largest, cells[m].size());

    // Population.
    PopulationOptions options;
    options.dt_ms = s.dt_ms;
    options.hh_at_soma = s.hh;
    std::vector<CurrentClamp> clamps(static_cast<std::size_t>(s.neurons));
    auto amplitude = [&](long k) {
      return s.neurons > 1 ? s.amp_min_nA + (s.amp_max_nA - s.amp_min_nA) * k / (s.neurons - 1) : s.amp_max_nA;
    };
    for (long k = 0; k < s.neurons; ++k) clamps[k] = {amplitude(k), s.delay_ms, s.dur_ms};
    const auto setup_start = std::chrono::steady_clock::now();
    Population<Exec> population(Exec(), cells, static_cast<index_type>(s.neurons), clamps, options);
    std::vector<index_type> recorded;
    for (int m = 0; m < M; ++m)
      for (index_type n : spread(s.neurons, M, m, s.record_per_morphology)) recorded.push_back(n);
    population.record(recorded, s.record_every);
    population.fence();
    const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();

    const long steps = std::lround(s.tstop_ms / s.dt_ms);  // whole: parse_arguments checked
    std::printf("tridiag-neurons: %ld neurons of %d morphologies (%s), %ld matrix rows in all (largest cell %ld),\n"
                "  %s, clamp %.3g..%.3g nA at %g ms for %g ms, dt %s ms, %ld steps to %s ms,\n"
                "  Kokkos %s, %d batch(es), setup %.2f s\n",
                s.neurons, M, s.morphologies.c_str(), rows, largest,
                s.hh ? "Hodgkin-Huxley soma sections, passive elsewhere" : "passive membrane", s.amp_min_nA, s.amp_max_nA,
                s.delay_ms, s.dur_ms, format_number(s.dt_ms).c_str(), steps,
                format_number(steps * s.dt_ms).c_str(), Exec::name(), population.groups(), setup_s);
    std::fflush(stdout);

    // Time loop: chunks of about 1% of the run, fenced for the progress bar.
    const long chunk = std::max<long>(1, steps / 100);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    double shown = -1;  // redrawn at most 4 times a second, and at the end
    for (long done = 0; done < steps;) {
      const long now = std::min(chunk, steps - done);
      population.advance(now);
      population.fence();
      done += now;
      if (elapsed() - shown >= 0.25 || done == steps) {
        shown = elapsed();
        progress(static_cast<double>(done) / steps, population.time_ms(), shown);
      }
    }
    population.sample();  // the end of the run, when --record-every does not divide the steps
    const Recording& r = population.recording();  // also checks the solver status
    const double wall = elapsed();
    if (steps > 0) std::fprintf(stderr, "\n");
    std::printf("wall time %.2f s for %ld steps: %.1f steps/s, %.3g neuron-steps/s, %.3g rows/s\n", wall, steps,
                steps / wall, steps * static_cast<double>(s.neurons) / wall, steps * static_cast<double>(rows) / wall);

    // CSV.
    out << "t_ms";
    for (index_type n : r.neurons) {
      char amp[32];
      std::snprintf(amp, sizeof amp, "%g", clamps[n].amplitude_nA);
      out << ',' << csv_field(names[n % M] + "_n" + std::to_string(n) + '_' + amp + "nA");
    }
    out << '\n';
    char cell[32];
    for (std::size_t j = 0; j < r.t_ms.size(); ++j) {
      std::snprintf(cell, sizeof cell, "%.10g", r.t_ms[j]);  // steps x dt: exact for dt = 2e-5 too
      out << cell;
      for (const auto& trace : r.soma_mV) {
        std::snprintf(cell, sizeof cell, ",%.6f", trace[j]);
        out << cell;
      }
      out << '\n';
    }
    out.close();
    if (!out) throw std::runtime_error("could not write " + csv.string());
    std::printf("wrote %s (%zu samples x %zu neurons)\n", csv.string().c_str(), r.t_ms.size(), r.neurons.size());

    // PNG through matplotlib, if it is there.
    if (s.plot) {
      const fs::path png = fs::path(s.out) / "traces.png";
      std::vector<std::string> args{TRIDIAG_PLOT_SCRIPT, csv.string(), png.string()};
      if (s.hh) args.insert(args.end(), {"--title-suffix", "HH"});
      const ProgramEnd end = run_program(TRIDIAG_PYTHON, args);
      if (end.start_error == 0 && end.exited && end.status == 0 && fs::exists(png)) {
        std::printf("wrote %s\n", png.string().c_str());
      } else if (end.start_error != 0) {
        std::printf("no PNG: %s could not be run (%s); traces.csv is written\n", TRIDIAG_PYTHON,
                    std::strerror(end.start_error));
      } else {
        std::printf("no PNG: %s %s %d (matplotlib missing, or the script failed; its messages are above); "
                    "traces.csv is written\n",
                    TRIDIAG_PLOT_SCRIPT, end.exited ? "exited with status" : "was stopped by signal", end.status);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tridiag-neurons: %s\n", e.what());
    return 1;
  }
  return 0;
}

// tridiag-bench: the benchmark tool of tridiag (STYLE 6.7). One executable, one sweep per family;
// see `tridiag-bench --help` and bench_options.cpp for the command line, bench_timer.hpp for how
// time is measured, bench_traffic.hpp for the bytes model and bench_csv.hpp for the output.
// This file: main(): parse, initialise Kokkos, write the CSV header, run the sweeps, exit status.

#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

#include <Kokkos_Core.hpp>

#include <tridiag/core/version.hpp>

#include "bench_context.hpp"
#include "bench_environment.hpp"
#include "bench_exec.hpp"
#include "bench_options.hpp"
#include "bench_traffic.hpp"

namespace tridiag::bench {
namespace {

void write_csv_header(BenchContext& ctx) {
  std::string device;
  with_exec(ctx.options.exec, [&](auto exec) { device = device_of(exec); });
  ctx.csv.comment(configuration_string());
  ctx.csv.comment("device: " + device + "; host: " + host_cpu_name() + ", " +
                  std::to_string(host_hardware_threads()) + " hardware threads");
  ctx.csv.comment("commit: " + commit());
  ctx.csv.comment("date: " + utc_date());
  ctx.csv.comment("command: " + ctx.options.command_line);
  for (const auto& line : traffic::model_lines()) ctx.csv.comment(line);
  const bool all = ctx.options.sweep == Sweep::all;
  if (ctx.options.sweep == Sweep::hines || all)
    for (const auto& line : hines_csv_notes()) ctx.csv.comment(line);
  const Options& timed = all ? ctx.options.for_sweep(Sweep::tridiag) : ctx.options;
  std::ostringstream budget;
  budget << timed.rep_budget_s;
  ctx.csv.comment(
      "time_ms: median of the fenced, timed repetitions after one untimed warm-up (their minimum and count are on "
      "stdout): at most " + std::to_string(timed.reps) + " (--reps), time-bounded: a measurement stops repeating once "
      "its timed runs add up to " +
      (timed.rep_budget_s > 0 ? budget.str() + " s (--rep-budget)"
                              : std::string("the budget (none here: --rep-budget 0)")) +
      ", never before 3 runs, i.e. reps = clamp(ceil(budget / t), 3, --reps) for a solve of t; useful_GBps = useful "
      "bytes / time_ms; pct_of_copy_bw = useful_GBps / copy reference of this run (device deep_copy for a GPU row, "
      "host triad for a host row)");
  ctx.csv.comment(
      "speedup_vs_X = median time of X / median time of the row; sequential = the textbook Thomas algorithm on "
      "one core, one system after another, flat layout (tridiag sweep; the hines sweep's is the sequential Hines "
      "solver; empty where skipped: above 2e8 unknowns without --full); openmp = thomas on Kokkos::OpenMP, flat "
      "layout, all threads; cusparse_interleaved = fastest of gtsvInterleavedBatch algorithms 0, 1, 2; "
      "cusparse_strided = gtsv2StridedBatch");
  ctx.csv.comment(
      "rows skipped by rule (each named on stderr): tridiag sweep, long systems (n > " +
      std::to_string(long_system_rows) +
      "): thomas (one thread per system, every layout, except the flat row on OpenMP, the openmp baseline) "
      "and cr/pcr/cr_pcr, unless --full" +
      (ctx.options.full ? std::string(" (given here)") : std::string()) +
      "; cr/pcr/cr_pcr where their team scratch exceeds what the execution space offers; partitioned on a host "
      "space (automatic never picks it there; it is timed on GPUs); cuSPARSE above INT_MAX values");
  ctx.csv.comment(
      "memory_bytes: device memory the measurement allocates (thomas: a, b, c, d, x, workspace, status with layout "
      "padding; cusparse: dl, d, du, x and its buffer); max_rel_error: largest relative forward error against "
      "LAPACK dgtsv over 16 sampled systems (first, last, 14 random)");
  ctx.csv.comment(
      "a measurement whose check failed (a nonzero status, an error above the bound, inputs changed by a Hines "
      "solve (the other sweeps' solvers take their inputs const), a copy that differs from its source) is left out: no row, no baseline of a speedup column, no copy reference (the "
      "rows then have no pct_of_copy_bw); stderr names it and the exit status is 1");
  ctx.csv.write_header();
}

void run_sweep(BenchContext& ctx, Sweep sweep) {
  switch (sweep) {
    case Sweep::copy: run_copy_sweep(ctx); break;
    case Sweep::tridiag: run_tridiag_sweep(ctx); break;
    case Sweep::vbatch: run_vbatch_sweep(ctx); break;
    case Sweep::constant: run_constant_sweep(ctx); break;
    case Sweep::hines: run_hines_sweep(ctx); break;
    case Sweep::all: break;
  }
}

int run(const Options& opt) {
  BenchContext ctx(opt);
  write_csv_header(ctx);
  if (opt.sweep != Sweep::all) {
    run_sweep(ctx, opt.sweep);
  } else {
    // Every sweep with its own default grid; one that cannot run (e.g. no SWC folder) is reported
    // and the others still run.
    for (const Sweep sweep : all_sweeps) {
      ctx.options = opt.for_sweep(sweep);
      ctx.message(std::string("tridiag-bench: sweep ") + sweep_name(sweep));
      try {
        run_sweep(ctx, sweep);
      } catch (const std::exception& e) {
        ctx.failed(std::string("sweep ") + sweep_name(sweep), e.what());
      }
    }
    ctx.options = opt;
  }
  if (ctx.wrong_results)
    std::fprintf(stderr, "tridiag-bench: %d WRONG RESULT(S): see the lines above\n", ctx.wrong_results);
  if (ctx.failed_measurements)
    std::fprintf(stderr, "tridiag-bench: %d measurement(s) FAILED to run: see the lines above\n",
                 ctx.failed_measurements);
  return ctx.exit_status();
}

}  // namespace
}  // namespace tridiag::bench

int main(int argc, char** argv) {
  using namespace tridiag::bench;
  Options opt;
  try {
    opt = parse_options(argc, argv);
    // The batches name cells and files: a bad one stops here, before the CSV is opened (which
    // truncates it). `all` checks only a --batches given: without one it runs the hines sweep's
    // default list, and a missing folder costs that sweep alone.
    if (!opt.help && (opt.sweep == Sweep::hines || (opt.sweep == Sweep::all && !opt.batches.empty())))
      check_hines_batches(opt.sweep == Sweep::all ? opt.for_sweep(Sweep::hines) : opt);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tridiag-bench: %s\nrun 'tridiag-bench --help' for the usage\n", e.what());
    return 2;
  }
  if (opt.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (const std::string missing = tridiag::missing_device_reason(); !missing.empty()) {
    std::fprintf(stderr, "tridiag-bench: %s: nothing measured\n", missing.c_str());
    return 77;
  }
  Kokkos::initialize(argc, argv);
  int status = 0;
  try {
    status = run(opt);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "tridiag-bench: %s\n", e.what());
    status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tridiag-bench: error: %s\n", e.what());
    status = 3;
  }
  Kokkos::finalize();
  return status;
}

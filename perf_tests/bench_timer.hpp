#pragma once
// How tridiag-bench times a kernel (STYLE 6.7): one untimed warm-up call, then timed calls, each
// between two fences of the execution space, so that a timed region holds the whole kernel and
// nothing else:
//     prepare();  fence();  t0 = now();  run();  fence();  t1 = now();
// `prepare` (untimed) restores inputs that a solver overwrites (cuSPARSE works in place); the
// library's solvers leave their inputs alone and need none. Wall-clock time from
// std::chrono::steady_clock; we keep the median and the minimum of the samples.
// How many timed calls (Repetitions): --reps of them for a fast kernel, but time-bounded for a slow
// one: the repetitions stop once the timed calls add up to --rep-budget seconds, never before
// min_reps (3, or --reps when fewer are asked for). For a kernel of t seconds that is
//     reps = clamp(ceil(budget / t), 3, --reps),
// so a measurement costs at most about max(budget, 3 t) + t (the warm-up) instead of (--reps + 1) t.
// Kokkos-free, so the cuSPARSE reference (plain CUDA) times exactly the same way.

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace tridiag::bench {

struct Timing {
  std::vector<double> samples_ms;  ///< one per timed repetition, in run order

  double median_ms() const {
    if (samples_ms.empty()) return 0;
    std::vector<double> s(samples_ms);
    std::sort(s.begin(), s.end());
    const std::size_t m = s.size() / 2;
    return s.size() % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
  }
  double min_ms() const { return samples_ms.empty() ? 0 : *std::min_element(samples_ms.begin(), samples_ms.end()); }
  int reps() const { return static_cast<int>(samples_ms.size()); }
};

/// How many timed calls a measurement makes (file comment).
struct Repetitions {
  int reps = 20;          ///< at most this many (--reps)
  double budget_s = 0.5;  ///< stop once the timed calls add up to this (--rep-budget); <= 0: always `reps`
  int min_reps = 3;       ///< but never fewer than min(min_reps, reps)

  /// True when a measurement that has made `done_reps` timed calls, `elapsed_ms` in all, is finished.
  bool done(int done_reps, double elapsed_ms) const {
    if (done_reps >= reps) return true;
    if (done_reps < min_reps || !(budget_s > 0)) return false;
    return elapsed_ms >= 1e3 * budget_s;
  }
};

/// Warm-up, then fenced, timed calls of run() as `reps` says; prepare() runs untimed before every call.
template <class Prepare, class Run, class Fence>
Timing time_repeated(const Repetitions& reps, Prepare&& prepare, Run&& run, Fence&& fence) {
  using clock = std::chrono::steady_clock;
  prepare();
  run();  // warm-up: first-touch, lazy initialisation, instruction caches, GPU clocks
  fence();
  Timing t;
  t.samples_ms.reserve(static_cast<std::size_t>(reps.reps > 0 ? reps.reps : 1));
  double elapsed_ms = 0;
  while (!reps.done(t.reps(), elapsed_ms)) {
    prepare();
    fence();
    const auto t0 = clock::now();
    run();
    fence();
    const auto t1 = clock::now();
    t.samples_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    elapsed_ms += t.samples_ms.back();
  }
  return t;
}

/// The usual case: nothing to restore, the execution space instance's fence() around the call.
template <class Exec, class Run>
Timing time_on(const Exec& exec, const Repetitions& reps, Run&& run) {
  return time_repeated(reps, [] {}, std::forward<Run>(run), [&exec] { exec.fence(); });
}

}  // namespace tridiag::bench

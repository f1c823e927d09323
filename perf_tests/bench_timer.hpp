#pragma once
// How tridiag-bench times a kernel (STYLE 6.7): one untimed warm-up call, then `reps` timed calls,
// each between two fences of the execution space, so that a timed region holds the whole kernel
// and nothing else:
//     prepare();  fence();  t0 = now();  run();  fence();  t1 = now();
// `prepare` (untimed) restores inputs that a solver overwrites (cuSPARSE works in place); the
// library's solvers leave their inputs alone and need none. Wall-clock time from
// std::chrono::steady_clock; we keep the median and the minimum of the samples.
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
};

/// Warm-up, then `reps` fenced, timed calls of run(); prepare() runs untimed before every call.
template <class Prepare, class Run, class Fence>
Timing time_repeated(int reps, Prepare&& prepare, Run&& run, Fence&& fence) {
  using clock = std::chrono::steady_clock;
  prepare();
  run();  // warm-up: first-touch, lazy initialisation, instruction caches, GPU clocks
  fence();
  Timing t;
  t.samples_ms.reserve(static_cast<std::size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    prepare();
    fence();
    const auto t0 = clock::now();
    run();
    fence();
    const auto t1 = clock::now();
    t.samples_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return t;
}

/// The usual case: nothing to restore, the execution space instance's fence() around the call.
template <class Exec, class Run>
Timing time_on(const Exec& exec, int reps, Run&& run) {
  return time_repeated(reps, [] {}, std::forward<Run>(run), [&exec] { exec.fence(); });
}

}  // namespace tridiag::bench

// Where a split partitioned solve of few long systems spends its time (not part of the library;
// docs/performance.md, "Long systems: where the time goes"). For each batch it times, median of
// 21 after 3 warm-ups, fences on both sides:
//   solve     partitioned::solve as a caller runs it, with no workspace (it allocates one per call;
//             before the workspace, three);
//   alloc     a workspace of partitioned::workspace_bytes alone, allocated and freed;
//   pooled    partitioned::solve given that workspace, allocated once outside the timing;
//   steps     per-step fenced times of one pooled call (reduce per level, the first with the one
//             clear of every level's flags, the last level's team solve, finish+fail per level), to see which step carries the time;
//   host      host-side cost per call of the plan, of team_size_max, of one enqueued step and of
//             one tiny launch (100 calls, no fence).
// The runs of docs/results/h100_split_latency_*.txt were of this driver before the workspace
// existed, with SplitLevels' three allocations in place of the workspace (same steps).
// Build (development machine, from the repository root):
//   .deps/install-cuda-sm_90/bin/nvcc_wrapper -std=c++17 -O3 -DNDEBUG -arch=sm_90
//     -Ibuild-cuda-local-sm_90/include -isystem .deps/install-cuda-sm_90/include
//     --expt-extended-lambda -Xcompiler -fopenmp docs/experiments/split_solve_latency.cpp
//     -o split_solve_latency -L.deps/install-cuda-sm_90/lib -lkokkoscore -ldl
#include <tridiag/algorithms/partitioned/partitioned_solve.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace tridiag;
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;

template <class F>
double median_us(const Exec& exec, F f, int reps = 21) {
  for (int w = 0; w < 3; ++w) f();
  exec.fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    exec.fence();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    exec.fence();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class Scalar>
void run(index_type nsys, index_type n) {
  Exec exec;
  using Vec = BatchVector<Scalar, layouts::Flat, Mem>;
  TridiagonalBatch<Scalar, layouts::Flat, Mem> A("A", nsys, n);
  Vec d("d", nsys, n), x("x", nsys, n);
  const index_type total = nsys * n;
  auto a = A.lower.storage(), b = A.diag.storage(), c = A.upper.storage(), dd = d.storage();
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, total), KOKKOS_LAMBDA(index_type i) {
        const unsigned h = static_cast<unsigned>(i) * 2654435761u;
        a(i) = Scalar(-1) + Scalar((h >> 8) & 255) / Scalar(1024);
        c(i) = Scalar(-1) + Scalar((h >> 16) & 255) / Scalar(1024);
        b(i) = Scalar(4);
        dd(i) = Scalar(1) + Scalar(h & 255) / Scalar(256);
      });
  StatusView<Mem> status("status", nsys);
  const partitioned::Options opts;
  const partitioned::Plan p = partitioned::plan(exec, nsys, n, opts, sizeof(Scalar), sizeof(Scalar));
  if (!p.split) {
    std::printf("%s %lld x %lld: not split\n", sizeof(Scalar) == 8 ? "double" : "float", (long long)nsys,
                (long long)n);
    return;
  }
  const auto split_again = [&](index_type rows) {
    return partitioned::plan(exec, nsys, rows, opts, sizeof(Scalar), sizeof(Scalar)).split;
  };
  const auto solve_reduced = [&](const auto& m, const auto& r, const auto& rx, const auto& st, const auto& rest) {
    partitioned::solve(exec, m, r, rx, st, opts, rest);
  };
  constexpr int M = 8;
  using Levels = partitioned::impl::SplitLevels<Scalar, Scalar, Mem>;

  const double t_solve = median_us(exec, [&] { partitioned::solve(exec, A, d, x, status, opts); });
  const std::size_t bytes_needed = partitioned::workspace_bytes(exec, A, d, opts);
  const double t_alloc = median_us(exec, [&] { partitioned::Workspace<Mem> w("w", bytes_needed); });

  const partitioned::Workspace<Mem> workspace("workspace", bytes_needed);
  partitioned::impl::WorkspaceCarver carve(workspace);
  const Levels pool(nsys, n, M, split_again, carve);
  const auto& L = pool.levels;
  std::vector<double> step;
  auto pooled = [&](bool fenced) {
    auto mark = [&](auto f) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      if (fenced) {
        exec.fence();
        step.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
    };
    mark([&] {
      Kokkos::parallel_for("clear",
                           compat::light_weight(Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(
                               exec, 0, 3 * nsys * static_cast<index_type>(L.size()))),
                           partitioned::impl::ClearFlagsKernel{pool.ints, nsys});
      partitioned::impl::split_reduce<M>(exec, L[0], nsys, A.lower, A.diag, A.upper, d, x);
    });
    for (std::size_t l = 1; l < L.size(); ++l)
      mark([&] {
        partitioned::impl::split_reduce<M>(exec, L[l], nsys, L[l - 1].ra, L[l - 1].rb, L[l - 1].rc, L[l - 1].rd,
                                           L[l - 1].rx);
      });
    const auto& last = L.back();
    mark([&] {
      solve_reduced(TridiagonalBatch<Scalar, layouts::Flat, Mem>(last.ra, last.rb, last.rc), last.rd, last.rx,
                    last.status, partitioned::impl::workspace_rest(workspace, carve.offset()));
    });
    for (std::size_t l = L.size() - 1; l >= 1; --l)
      mark([&] {
        partitioned::impl::split_finish<M>(exec, L[l], nsys, L[l - 1].ra, L[l - 1].rb, L[l - 1].rc, L[l - 1].rd,
                                           L[l - 1].rx, L[l - 1].status);
      });
    mark([&] { partitioned::impl::split_finish<M>(exec, L[0], nsys, A.lower, A.diag, A.upper, d, x, status); });
  };
  const double t_pooled = median_us(exec, [&] { partitioned::solve(exec, A, d, x, status, opts, workspace); });
  std::vector<std::vector<double>> steps;
  for (int r = 0; r < 9; ++r) {
    step.clear();
    exec.fence();
    pooled(true);
    steps.push_back(step);
  }
  // Host-side costs of one step, per call (median of 21 rounds of 100 calls, no fence inside):
  // the plan, team_size_max of the split kernel, a split_reduce step enqueued.
  auto per_call_us = [&](auto f) {
    std::vector<double> t;
    for (int r = 0; r < 21; ++r) {
      exec.fence();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) f();
      t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 100);
      exec.fence();
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  using StepKernel = partitioned::impl::SplitChunkKernel<Exec, Scalar, Scalar, M, false, decltype(A.lower), decltype(A.diag),
                                                         decltype(A.upper), Vec, Vec, decltype(L[0].ra), decltype(L[0].rd),
                                                         decltype(L[0].flags)>;
  const double h_plan = per_call_us([&] { (void)partitioned::plan(exec, nsys, n, opts, sizeof(Scalar), sizeof(Scalar)); });
  const double h_max = per_call_us([&] {
    using Policy = Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<256, 2>>;
    (void)Policy(exec, 1, 1).team_size_max(StepKernel{}, Kokkos::ParallelForTag());
  });
  const double h_step = per_call_us([&] { partitioned::impl::split_reduce<M>(exec, L[0], nsys, A.lower, A.diag, A.upper, d, x); });
  const double h_clear = per_call_us([&] {
    Kokkos::parallel_for("clear", compat::light_weight(Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, nsys)),
                         partitioned::impl::ClearFlagsKernel{pool.ints, nsys});
  });
  std::printf("  host per call: plan %.2f us, team_size_max %.2f us, split_reduce step %.2f us, clear launch %.2f us\n",
              h_plan, h_max, h_step, h_clear);
  const double bytes = 5.0 * sizeof(Scalar) * double(total);
  std::printf("%s %lld x %lld: levels %zu (rows", sizeof(Scalar) == 8 ? "double" : "float", (long long)nsys,
              (long long)n, L.size());
  for (const auto& l : L) std::printf(" %lld", (long long)l.cut.n);
  std::printf(" -> %lld); solve %.1f us (%.0f GB/s useful), alloc %.1f us, pooled %.1f us (%.0f GB/s); steps:",
              (long long)(2 * L.back().cut.chunks), t_solve, bytes / t_solve * 1e-3, t_alloc, t_pooled,
              bytes / t_pooled * 1e-3);
  for (std::size_t s = 0; s < step.size(); ++s) {
    std::vector<double> v;
    for (const auto& r : steps) v.push_back(r[s]);
    std::sort(v.begin(), v.end());
    std::printf(" %.1f", v[v.size() / 2]);
  }
  std::printf("\n");
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const index_type sizes[][2] = {{1, 16384}, {16, 16384}, {128, 16384}, {1, 262144}, {16, 262144},
                                   {128, 262144}, {1, 1000000}, {16, 1000000}, {128, 1000000}, {1, 10000000}};
    for (const auto& s : sizes) run<double>(s[0], s[1]);
    for (const auto& s : sizes) run<float>(s[0], s[1]);
  }
  Kokkos::finalize();
}

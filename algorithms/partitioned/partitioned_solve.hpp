#pragma once
// Host entry of the partitioned solver: several threads per system (a team), each reducing a
// chunk of consecutive rows (chunk_elimination.hpp), the interface system solved by the threads
// of the system together (interface_solve.hpp), then the chunks finished
// (partitioned_kernel.hpp).
//
// Two uses:
//  * medium systems on a GPU (n up to 4,096): P = n / 8 (n / 4 for small float batches) threads per
//    system (a power of two, at most 256), chunks of at most 4, 8 or 16 rows in registers, loaded and stored coalesced
//    through per-warp scratch (group_staging.hpp), the interface system solved with warp
//    shuffles (P <= 32), by one of two warps (P = 64: paired_warps_interface.hpp) or through team
//    scratch: each value of a, b, c, d is read once and x written
//    once (5 values of traffic per unknown against 9 for one thread per system). The Flat
//    layout gives the group's rows one contiguous range of memory (coalesced); other layouts are
//    correct but slower here.
//  * long systems (n from thousands to millions): on GPUs, chunks of at most 16 rows spread over the
//    whole device, the interface system solved by this solver again (split_solve.hpp); on host
//    spaces, one team per system with chunks of any length in a global workspace.
// Stable without pivoting for diagonally dominant matrices. Status codes as for Thomas: k > 0 bad
// pivot at (1-based) row k (a chunk row, or the last row of a chunk whose interface row failed),
// -k first non-finite value at row k.

#include <Kokkos_Core.hpp>
#include <climits>
#include <string>
#include <utility>
#include <tridiag/algorithms/partitioned/partitioned_kernel.hpp>
#include <tridiag/algorithms/partitioned/partitioned_workspace.hpp>
#include <tridiag/algorithms/partitioned/split_solve.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/warp_shuffle.hpp>
#include <tridiag/layouts/variable_batch.hpp>

namespace tridiag::partitioned {

/// How the batch is split; zeros mean "choose for the execution space".
struct Options {
  int threads_per_system = 0;  ///< P: chunks per system (team threads per system)
  int systems_per_team = 0;    ///< S: systems solved by one team (at most: fewer where registers or scratch run out)
  int rows_per_thread = 0;     ///< target chunk length on GPUs; 0: automatic (plan(): measured best on the H100, docs/performance.md)
  /// Where chunk coefficients live: automatic (registers on GPUs when chunks are short, global
  /// workspace otherwise), or forced (for tests and benchmarks). Registers hold at most 16 rows.
  enum class ChunkStorage { automatic, registers, workspace } chunk_storage = ChunkStorage::automatic;
  /// Register chunks only: load and store each group of threads' rows (a warp on a GPU)
  /// coalesced through team scratch (group_staging.hpp), or let each thread read its own rows.
  /// Automatic stages on GPUs: reading chunks directly, neighbouring threads read addresses
  /// m rows apart and the L1 cache thrashes (80% of copy bandwidth against 104% staged for
  /// 16-row chunks on the H100, docs/performance.md).
  enum class Staging { automatic, scratch, global } staging = Staging::automatic;
  /// Long systems: cut every system into chunks of at most split_chunk_rows (3 .. 16) rows, one
  /// chunk per thread of the whole device, their coefficients in registers and their loads and
  /// stores coalesced through scratch; the interface system is solved by this solver again
  /// (split_solve.hpp), rather than one team per system walking chunks of n / P rows from a
  /// global workspace. Automatic: on GPUs whenever the team kernel's chunks would be in the
  /// workspace (n above 16 x 256 rows, or ChunkStorage::workspace) and n >= 2 split_chunk_rows.
  enum class Split { automatic, always, never } split = Split::automatic;
  int split_chunk_rows = 8;
  /// P = 64 on a GPU (two warps per system): the lower warp solves the interface system with
  /// shuffles after one exchange through team scratch (paired_warps_interface.hpp: 3 or 5 team
  /// barriers); false: every interface level through team scratch (lane_exchange.hpp: a barrier
  /// each), for comparison.
  bool paired_warps = true;
};

/// What a solve will do, for benchmarks and logs.
struct Plan {
  int threads_per_system = 1, systems_per_team = 1;
  int team_size = 1;      ///< threads per team: P x S, rounded up to a whole number of warps on GPUs
  int register_rows = 0;  ///< 4, 8 or 16: chunk coefficients in registers; 0: in global workspace
  bool staged = false;    ///< register chunks loaded and stored through team scratch by groups
  bool shuffles = false;  ///< interface rows exchanged by warp shuffles (else team scratch)
  bool paired_warps = false;  ///< P = 64 on a GPU: the interface solved by the lower of the system's two warps
  bool split = false;     ///< chunks spread over the device by split_solve (the fields above: unused)
  std::string describe() const {
    if (split) return "split across the device";
    return std::to_string(threads_per_system) + " threads/system, " + std::to_string(systems_per_team) +
           " systems/team, chunks in " +
           (register_rows ? "registers (" + std::to_string(register_rows) + ")" : "workspace") +
           (staged ? ", staged" : "") +
           (shuffles ? ", shuffles" : paired_warps ? ", interface on one of two warps" : ", scratch exchange");
  }
};

namespace impl {
/// The smallest power of two >= v (v >= 1).
constexpr index_type power_of_two_at_least(index_type v) {
  index_type p = 1;
  while (p < v) p *= 2;
  return p;
}
/// A team kernel that does nothing: what team_size_max is asked about before the real kernel exists.
struct EmptyTeamKernel {
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member&) const {}
};

/// Host threads per system: one system per thread while there are enough systems, else the
/// threads split the systems, but never more than a team can have (64 in Kokkos 3.4's OpenMP:
/// on a host of more threads a single system asked for all of them and the solve threw).
inline index_type host_threads_per_system(index_type threads, index_type systems, index_type team_limit) {
  const index_type p = systems >= threads ? 1 : (threads + systems - 1) / (systems > 0 ? systems : 1);
  return p < team_limit ? p : team_limit;
}
}  // namespace impl

/// The split a solve of `systems` x `n` on ExecSpace will use; value_bytes and matrix_bytes are
/// the sizes of the right-hand side's and the matrix's scalars (they decide whether staging fits
/// in team scratch).
template <class ExecSpace>
Plan plan(const ExecSpace& exec, index_type systems, index_type n, const Options& opts = {},
          std::size_t matrix_bytes = sizeof(double), std::size_t value_bytes = sizeof(double)) {
  Plan p;
  const index_type max_p = n >= 2 ? n / 2 : 1;  // every chunk must hold at least 2 rows
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  constexpr bool warps = compat::runs_in_warps<ExecSpace>;
  const index_type threads = compat::concurrency(exec);
  index_type P;
  if (opts.threads_per_system > 0) {
    P = opts.threads_per_system;
  } else if (host) {
    const int team_limit =
        Kokkos::TeamPolicy<ExecSpace>(exec, 1, 1).team_size_max(impl::EmptyTeamKernel{}, Kokkos::ParallelForTag());
    P = impl::host_threads_per_system(threads, systems, team_limit);
  } else {
    // GPU: about rows_per_thread rows per thread, P a power of two (warp shuffles), at most 256.
    // Rows per thread set how many loads each thread has in flight when a group stages its
    // chunks one array at a time, and the registers a thread needs. Measured on the H100:
    //  * double, 8 rows everywhere (commit 60cc414, `tridiag-bench tridiag --partitioned-rows
    //    4,8,16`, docs/results/h100_partitioned_rows_60cc414.csv; n = 512, % of copy at 2,560 /
    //    25,600 / 256,000 systems: 38 / 68 / 77 against 34 / 51 / 54 with 4 rows, 28 / 39 / 41
    //    with 16);
    //  * float, 8 rows from 2,560 systems of 256 rows and from 25,600 systems of any size, since
    //    8-row float chunks run three teams per multiprocessor (commit ba5a18a,
    //    docs/results/h100_tridiag_rows_ba5a18a.csv: 256,000 x 512 in 1.31 ms = 67% of copy
    //    against 1.66 ms with 16 rows; 256,000 x 64: 0.19 against 0.23 ms; variable batches of
    //    256..512 rows, 256,000 systems: 1.55 against 1.74 ms); 4 rows below (2,560 x 64: 15.0
    //    against 15.5 us), and with 256 systems (commit 770c66c, 256 x 256: 14.3 us with 4 rows,
    //    19.2 with 16): there the solve is one short chain of latencies per thread.
    const index_type rows = opts.rows_per_thread > 0                                 ? opts.rows_per_thread
                            : value_bytes >= 8                                       ? 8
                            : systems >= 25600 || (systems >= 2560 && n >= 256) ? 8
                                                                                     : 4;
    P = impl::power_of_two_at_least((n + rows - 1) / rows);
    while (P > 1 && P > max_p) P /= 2;
    if (P > 256) P = 256;
  }
  if (P > max_p) P = max_p;
  if (P < 1) P = 1;
  index_type S;
  if (opts.systems_per_team > 0) {
    S = opts.systems_per_team;
  } else if (host) {
    S = 1;
  } else {
    // Teams of 256 threads, smaller while that leaves fewer than about two teams per
    // multiprocessor (concurrency = 2,048 threads per multiprocessor on NVIDIA GPUs).
    // Systems of several warps synchronise them with team barriers, which would also hold back
    // the other systems of a team: one system per team there (H100, commit 510eb1b, 256,000 x 512
    // double, P = 64: 2.178 ms against 2.234 with two systems per team,
    // docs/results/h100_tridiag_510eb1b.csv).
    S = P > 32 ? 1 : 256 / P;
    const index_type multiprocessors = threads / 2048 > 0 ? threads / 2048 : 1;
    while (S > 1 && P * S > 32 && (systems + S - 1) / S < 2 * multiprocessors) S /= 2;
  }
  p.threads_per_system = static_cast<int>(P);
  p.systems_per_team = static_cast<int>(S);
  p.team_size = static_cast<int>(warps ? (P * S + 31) / 32 * 32 : P * S);
  const index_type longest_chunk = (n + P - 1) / P;
  const int fits = longest_chunk <= 4 ? 4 : longest_chunk <= 8 ? 8 : longest_chunk <= 16 ? 16 : 0;
  switch (opts.chunk_storage) {
    case Options::ChunkStorage::automatic:
      p.register_rows = host ? 0 : fits;
      break;
    case Options::ChunkStorage::registers:
      require(fits != 0, "partitioned::plan", "chunks of ", longest_chunk, " rows (n = ", n, ", ", P,
              " threads per system) do not fit in registers (at most 16 rows)");
      p.register_rows = fits;
      break;
    case Options::ChunkStorage::workspace:
      p.register_rows = 0;
      break;
  }
  if (n >= 2 * static_cast<index_type>(opts.split_chunk_rows)) {
    if (opts.split == Options::Split::always) {
      p.split = true;
    } else if (opts.split == Options::Split::automatic && !host && p.register_rows == 0) {
      p.split = true;
    }
  }
  // Warp shuffles: a system's threads must be aligned lanes of one warp.
  p.shuffles = warps && P <= 32 && (32 % P) == 0;
  p.paired_warps = warps && opts.paired_warps && P == impl::paired_warps_threads;
  const std::size_t limit = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
  const auto exchange = p.shuffles       ? impl::Exchange::shuffles
                        : p.paired_warps ? impl::Exchange::paired_warps
                                         : impl::Exchange::scratch;
  const std::size_t larger = matrix_bytes > value_bytes ? matrix_bytes : value_bytes;
  const std::size_t exchange_bytes =
      impl::partitioned_scratch_bytes_for(p.team_size, warps ? 32 : p.team_size, p.threads_per_system, 0, exchange,
                                          matrix_bytes, value_bytes);
  require(exchange_bytes <= limit, "partitioned::plan", p.team_size,
          " threads per team need more team scratch for the interface system (", exchange_bytes, " bytes) than the ",
          limit, " available");
  if (p.register_rows != 0 && opts.staging != Options::Staging::global && n >= 2 &&
      (opts.staging == Options::Staging::scratch || !host)) {
    // Fewer systems per team rather than no staging: staging is what makes the loads coalesced.
    auto fits_in_scratch = [&] {
      return impl::group_staging_bytes(p.team_size, warps ? 32 : p.team_size, p.register_rows, larger) <= limit;
    };
    while (!fits_in_scratch() && p.systems_per_team > 1) {
      p.systems_per_team /= 2;
      const int threads = p.threads_per_system * p.systems_per_team;
      p.team_size = warps ? (threads + 31) / 32 * 32 : threads;
    }
    require(fits_in_scratch() || opts.staging != Options::Staging::scratch, "partitioned::plan",
            "staging the chunks of ", p.threads_per_system, " threads needs more team scratch than the ", limit,
            " bytes available");
    p.staged = fits_in_scratch();
  }
  return p;
}

namespace impl {

/// Launches PartitionedKernel with the plan's staging and exchange, on nsys systems placed as
/// `systems` says (UniformSystems, RaggedSystems) with diagonals lower, diag, upper.
template <class ExecSpace, class Matrix, class Value, bool Staged, Exchange Lanes, class Systems, class Vector,
          class Rhs, class X, class Maker>
void launch_kernel(const ExecSpace& exec, index_type nsys, const Systems& systems, const Vector& lower,
                   const Vector& diag, const Vector& upper, const Rhs& rhs, const X& x,
                   const StatusView<typename ExecSpace::memory_space>& status, const Plan& p, const Maker& make_chunk) {
  using Kernel = PartitionedKernel<ExecSpace, Matrix, Value, Staged, Lanes, Vector, Vector, Vector, Rhs, X, Maker, Systems>;
  Kernel kernel{nsys, systems, p.threads_per_system, p.systems_per_team, lower, diag, upper, rhs, x, status, make_chunk};
  // Staged kernels are compiled for two teams of 256 threads per multiprocessor (at most 128
  // registers on NVIDIA GPUs): left free, nvcc hoists the loads of all four arrays and gives the
  // 8-row double kernel 144 registers (ptxas), one team per multiprocessor; bounded it needs no
  // spills. Without staging the bound would spill (16-row chunks), so those kernels stay free.
  // Float chunks of at most 8 rows fit in 80 registers (ptxas, no spills): three teams per
  // multiprocessor, 24 warps instead of 16 (16-row float chunks spill 300 bytes there).
  constexpr unsigned staged_teams =
      sizeof(Matrix) <= 4 && sizeof(Value) <= 4 && Maker::register_rows <= 8 ? 3 : 2;
  using Policy = std::conditional_t<Staged, Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, staged_teams>>,
                                    Kokkos::TeamPolicy<ExecSpace>>;
  // The kernel's registers may allow fewer threads per team than the plan asked for: fewer
  // systems per team then (a team must still hold all P threads of one system).
  const int max_team = Policy(exec, 1, 1).team_size_max(kernel, Kokkos::ParallelForTag());
  int team_size = p.team_size;
  while (team_size > max_team && kernel.S > 1) {
    kernel.S /= 2;
    const int threads = kernel.P * kernel.S;
    team_size = compat::runs_in_warps<ExecSpace> ? (threads + 31) / 32 * 32 : threads;
  }
  require(team_size <= max_team, "partitioned::solve", p.threads_per_system,
          " threads per system are more than the ", max_team, " threads a team of this kernel can have here");
  const index_type S = kernel.S, league = (nsys + S - 1) / S;
  // An int league: a larger batch would wrap and leave systems unsolved with no error.
  require(league <= INT_MAX, "partitioned::solve", "batch of ", nsys, " systems needs ", league,
          " teams, more than the league size limit ", INT_MAX);
  auto policy = compat::light_weight(Policy(exec, static_cast<int>(league), team_size));
  std::size_t bytes = partitioned_scratch_bytes<ExecSpace, Matrix, Value>(team_size, p.threads_per_system,
                                                               Staged ? Maker::register_rows : 0, Lanes);
  if constexpr (Lanes == Exchange::paired_warps) {
    // The exchange areas beside the staging slabs where they fit: two team barriers fewer.
    constexpr std::size_t larger = sizeof(Matrix) > sizeof(Value) ? sizeof(Matrix) : sizeof(Value);
    const std::size_t staging = Staged ? group_staging_bytes(team_size, 32, Maker::register_rows, larger) : 0;
    const std::size_t areas = static_cast<std::size_t>(S) * PairedWarpsArea<Matrix, Value>::bytes();
    if (staging + areas + 16 <= static_cast<std::size_t>(Policy::scratch_size_max(0))) {
      kernel.exchange_offset = staging;
      kernel.exchange_private = true;
      bytes = staging + areas;
    }
  }
  if (bytes > 0) policy.set_scratch_size(0, Kokkos::PerTeam(bytes + 16));  // + 16: alignment of the base
  Kokkos::parallel_for("tridiag::partitioned::solve", policy, kernel);
}

/// Picks the exchange (warp shuffles exist only in CUDA device code) and the staging.
template <class ExecSpace, class Matrix, class Value, class Systems, class Vector, class Rhs, class X, class Maker>
void launch(const ExecSpace& exec, index_type nsys, const Systems& systems, const Vector& lower, const Vector& diag,
            const Vector& upper, const Rhs& rhs, const X& x, const StatusView<typename ExecSpace::memory_space>& status,
            const Plan& p, const Maker& make_chunk) {
  auto with_exchange = [&](auto staged) {
    constexpr bool Staged = decltype(staged)::value;
    if constexpr (compat::runs_in_warps<ExecSpace>) {
      if (p.shuffles) {
        launch_kernel<ExecSpace, Matrix, Value, Staged, Exchange::shuffles>(exec, nsys, systems, lower, diag, upper,
                                                                            rhs, x, status, p, make_chunk);
        return;
      }
      if (p.paired_warps) {
        launch_kernel<ExecSpace, Matrix, Value, Staged, Exchange::paired_warps>(exec, nsys, systems, lower, diag,
                                                                                upper, rhs, x, status, p, make_chunk);
        return;
      }
    }
    launch_kernel<ExecSpace, Matrix, Value, Staged, Exchange::scratch>(exec, nsys, systems, lower, diag, upper, rhs,
                                                                       x, status, p, make_chunk);
  };
  if constexpr (Maker::register_rows > 0) {
    if (p.staged) {
      with_exchange(std::true_type{});
      return;
    }
  }
  with_exchange(std::false_type{});
}

/// Runs the team kernel of plan p (no split): chunks in registers of the plan's length, or in a
/// workspace from allocate_work(label) (a vector shaped like x).
template <class ExecSpace, class Matrix, class Value, class Systems, class Vector, class Rhs, class X,
          class AllocateWork>
void run_team_kernel(const char* where, const ExecSpace& exec, index_type nsys, const Systems& systems,
                     const Vector& lower, const Vector& diag, const Vector& upper, const Rhs& rhs, const X& x,
                     const StatusView<typename ExecSpace::memory_space>& status, const Plan& p,
                     const AllocateWork& allocate_work) {
  {
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const int max_team = Policy(exec, 1, 1).team_size_max(EmptyTeamKernel{}, Kokkos::ParallelForTag());
    require(p.team_size <= max_team, where, p.threads_per_system, " threads per system x ", p.systems_per_team,
            " systems per team = ", p.team_size, " threads, more than the ", max_team,
            " a team can have on this execution space");
  }
  auto with = [&](const auto& maker) {
    launch<ExecSpace, Matrix, Value>(exec, nsys, systems, lower, diag, upper, rhs, x, status, p, maker);
  };
  if (p.register_rows == 4) {
    with(RegisterChunkMaker<Matrix, Value, 4>{});
  } else if (p.register_rows == 8) {
    with(RegisterChunkMaker<Matrix, Value, 8>{});
  } else if (p.register_rows == 16) {
    with(RegisterChunkMaker<Matrix, Value, 16>{});
  } else {
    const auto alpha = allocate_work("tridiag::partitioned::alpha");
    const auto gamma = allocate_work("tridiag::partitioned::gamma");
    with(WorkspaceChunkMaker<std::remove_cv_t<decltype(alpha)>, X>{alpha, gamma, x});
  }
}

/// The options' checks shared by solve and solve_ragged.
inline void check_options(const char* where, const Options& opts) {
  require(opts.threads_per_system >= 0 && opts.systems_per_team >= 0 && opts.rows_per_thread >= 0, where,
          "options must be non-negative: threads_per_system=", opts.threads_per_system,
          ", systems_per_team=", opts.systems_per_team, ", rows_per_thread=", opts.rows_per_thread);
  require(opts.split_chunk_rows >= 3 && opts.split_chunk_rows <= 16, where, "split_chunk_rows must be 3 .. 16 (got ",
          opts.split_chunk_rows, "): shorter chunks would not shorten the interface system, longer ones do not fit in registers");
}

/// The plan of a solve of `nsys` x `n` with matrix scalars Matrix and right-hand side scalars
/// Value; an empty plan for an empty batch (nothing to plan, nothing to carve).
template <class Matrix, class Value, class ExecSpace>
Plan plan_of(const ExecSpace& exec, index_type nsys, index_type n, const Options& opts) {
  return nsys == 0 || n == 0 ? Plan{} : plan(exec, nsys, n, opts, sizeof(Matrix), sizeof(Value));
}

/// Whether plan() cuts a reduced batch of `rows` rows again: the reduced batches of a split solve
/// keep the caller's systems, options and scalars. The one rule for sizing the workspace and for
/// the solve itself, so that both see the same levels.
template <class ExecSpace, class Matrix, class Value>
struct SplitAgainRule {
  const ExecSpace& exec;
  index_type nsys;
  const Options& opts;
  bool operator()(index_type rows) const { return plan_of<Matrix, Value>(exec, nsys, rows, opts).split; }
};

/// Bytes of workspace a solve of `nsys` x `n` with plan `p` (plan_of: matrix scalars Matrix,
/// right-hand side scalars Value; layout Layout) needs: the reduced batches of every split level and what the
/// last level's solve needs, or the team kernel's two chunk-coefficient vectors when they are not
/// in registers, or nothing. Counted by the same carving the solve does (a counting pass: without
/// a caller's workspace the solve must know the size before it can allocate and carve).
template <class Matrix, class Value, class Layout, class ExecSpace>
std::size_t solve_workspace_bytes(const ExecSpace& exec, index_type nsys, index_type n, const Options& opts,
                                  const Plan& p) {
  if (nsys == 0 || n == 0) return 0;
  WorkspaceCarver count;
  if (p.split) {
    const SplitLevels<Matrix, Value, typename ExecSpace::memory_space> levels(
        nsys, n, opts.split_chunk_rows, SplitAgainRule<ExecSpace, Matrix, Value>{exec, nsys, opts}, count);
    const index_type last_rows = levels.last_rows();
    return count.bytes_needed() +
           solve_workspace_bytes<Matrix, Value, layouts::Flat>(exec, nsys, last_rows, opts,
                                                               plan_of<Matrix, Value>(exec, nsys, last_rows, opts));
  }
  if (p.register_rows == 0) {
    const auto span = static_cast<std::size_t>(Layout(nsys, n).required_span());
    count.take<Matrix>(span);  // alpha
    count.take<Matrix>(span);  // gamma
  }
  return count.bytes_needed();
}

/// The caller's workspace after its checks, or one allocated for this solve (empty when the solve
/// needs none). `sized_by`: the function that tells the caller the size, for the message.
template <class MemorySpace, class Matrix, class Rhs, class X>
Workspace<MemorySpace> workspace_for(const char* where, const char* sized_by, const Workspace<MemorySpace>& given,
                                     std::size_t needed, const Matrix& matrix, const Rhs& rhs, const X& x,
                                     const StatusView<MemorySpace>& status) {
  if (given.allocated()) {
    require(given.bytes() >= needed, where, "workspace of ", given.bytes(), " bytes, this solve needs ", needed, " (",
            sized_by, ")");
    tridiag::impl::check_workspace_apart(where, "workspace", given.storage(), matrix, rhs, x);
    tridiag::impl::require_apart(where, "workspace", given.storage(), "status", status);
    return given;
  }
  if (needed == 0) return {};
  return Workspace<MemorySpace>("tridiag::partitioned::workspace", needed);
}

}  // namespace impl

/// Bytes of workspace partitioned::solve needs for this batch with these options (0: none; a
/// GPU solve of systems short enough for register chunks needs none). Pass a
/// partitioned::Workspace of at least this size to solve() to keep it from allocating per call.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
std::size_t workspace_bytes(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                            const BatchVector<RhsScalar, Layout, MemorySpace>& rhs, const Options& opts = {}) {
  (void)rhs;
  impl::check_options("partitioned::workspace_bytes", opts);
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  const index_type nsys = matrix.systems(), n = matrix.rows();
  return impl::solve_workspace_bytes<Matrix, Value, Layout>(exec, nsys, n, opts,
                                                            impl::plan_of<Matrix, Value>(exec, nsys, n, opts));
}

/// Solves A x = rhs for every system of the batch with the partitioned algorithm. x may be rhs
/// (in place). Options choose the split (see plan()); the defaults follow the execution space.
/// `workspace` (optional, at least workspace_bytes(exec, matrix, rhs, opts) bytes, apart from the
/// matrix, rhs, x and status) keeps the solve from allocating per call (a split solve of long
/// systems on a GPU, the chunk workspace on host spaces); a smaller one is rejected
/// (tridiag::invalid_argument) before anything is written.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {}, const Options& opts = {},
           const Workspace<MemorySpace>& workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "partitioned::solve: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "partitioned::solve";
  tridiag::impl::check_solve_arguments(where, matrix, rhs, x, status);
  impl::check_options(where, opts);
  const index_type nsys = matrix.systems(), n = matrix.rows();
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  const Plan p = impl::plan_of<Matrix, Value>(exec, nsys, n, opts);
  const auto work =
      impl::workspace_for(where, "partitioned::workspace_bytes", workspace,
                          impl::solve_workspace_bytes<Matrix, Value, Layout>(exec, nsys, n, opts, p), matrix, rhs, x, status);
  if (n == 0 && nsys > 0 && status.data() != nullptr) Kokkos::deep_copy(exec, status, 0);  // as every solver
  if (nsys == 0 || n == 0) return;
  if (p.split) {
    impl::split_solve(exec, matrix, rhs, x, status, opts.split_chunk_rows,
                      impl::SplitAgainRule<ExecSpace, Matrix, Value>{exec, nsys, opts},
                      [&](const auto& reduced, const auto& reduced_rhs, const auto& reduced_x, const auto& reduced_status,
                          const auto& rest) { solve(exec, reduced, reduced_rhs, reduced_x, reduced_status, opts, rest); },
                      work);
    return;
  }
  impl::WorkspaceCarver carve(work);
  impl::run_team_kernel<ExecSpace, Matrix, Value>(
      where, exec, nsys, impl::UniformSystems{n}, matrix.lower, matrix.diag, matrix.upper, rhs, x, status, p,
      [&](const char*) {
        using Work = BatchVector<Matrix, Layout, MemorySpace>;
        const Layout map(nsys, n);
        const auto span = static_cast<std::size_t>(map.required_span());
        return Work(typename Work::storage_type(carve.take<Matrix>(span), span), map);
      });
}

namespace impl {

/// solve_ragged's plan: the launch sized for the longest system of the batch, never split across
/// the device. {longest, plan}; {0, Plan{}} for a batch with no rows.
template <class ExecSpace, class MatrixScalar, class MemorySpace>
std::pair<index_type, Plan> ragged_plan(const ExecSpace& exec,
                                        const layouts::RaggedVector<MatrixScalar, MemorySpace>& diag,
                                        const Options& opts, std::size_t value_bytes) {
  const index_type longest = diag.systems() == 0 ? 0 : layouts::impl::longest_system(exec, diag);
  if (longest == 0) return {0, Plan{}};
  Options no_split = opts;
  no_split.split = Options::Split::never;
  return {longest, plan(exec, diag.systems(), longest, no_split, sizeof(MatrixScalar), value_bytes)};
}

/// Bytes of workspace solve_ragged needs with plan p for `total` rows: the team kernel's two
/// chunk-coefficient vectors when they are not in registers (host spaces), else none (also for a
/// batch with no rows: total 0).
template <class Matrix>
std::size_t ragged_workspace_bytes(const Plan& p, index_type total) {
  if (p.register_rows != 0 || total == 0) return 0;
  WorkspaceCarver count;
  count.take<Matrix>(static_cast<std::size_t>(total));  // alpha
  count.take<Matrix>(static_cast<std::size_t>(total));  // gamma
  return count.bytes_needed();
}

}  // namespace impl

/// Bytes of workspace partitioned::solve_ragged needs for this variable batch with these options
/// (0: none; GPUs solve variable batches with register chunks and need none). Pass a
/// partitioned::Workspace of at least this size to solve_ragged() to keep it from allocating per
/// call. Reads the longest system's size from the offsets (a reduction, as solve_ragged does).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class MemorySpace>
std::size_t ragged_workspace_bytes(const ExecSpace& exec, const layouts::RaggedVector<MatrixScalar, MemorySpace>& diag,
                                   const layouts::RaggedVector<RhsScalar, MemorySpace>& rhs, const Options& opts = {}) {
  constexpr const char* where = "partitioned::ragged_workspace_bytes";
  layouts::require_same_offsets(where, diag, std::pair{"rhs", rhs});
  impl::check_options(where, opts);
  const auto planned = impl::ragged_plan(exec, diag, opts, sizeof(RhsScalar));
  return impl::ragged_workspace_bytes<std::remove_const_t<MatrixScalar>>(planned.second, diag.required_span());
}

/// Solves a variable batch in offset-indexed storage (layouts::RaggedVector: system s in rows
/// [offsets(s), offsets(s + 1)), no padding) with the partitioned algorithm: the launch is sized
/// for the longest system (plan() with its n) and every system is cut into as many chunks as its
/// own size allows, so no padding is read, computed or written and the time follows the total size
/// of the batch (NCP), not the number of systems times the longest. All vectors must share the
/// diagonal's offsets View. x may be rhs (in place); an x that shares storage with a diagonal or
/// overlaps rhs without being it is rejected (tridiag::invalid_argument), as by solve() (an x one
/// scalar past rhs gave wrong results with status 0; an x on a diagonal overwrites the matrix this
/// solve only reads). Systems of up to 16 x 256 rows (the register
/// chunks of a team; no split across the device) on GPUs; any size on host spaces. Status codes
/// per system as for solve(). `workspace` (optional, at least ragged_workspace_bytes(exec, diag,
/// rhs, opts) bytes, apart from the matrix, rhs, x and status) keeps a host solve from allocating
/// its chunk coefficients per call; a smaller one is rejected (tridiag::invalid_argument) before
/// anything is written.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class MemorySpace>
void solve_ragged(const ExecSpace& exec, const layouts::RaggedVector<MatrixScalar, MemorySpace>& lower,
                  const layouts::RaggedVector<MatrixScalar, MemorySpace>& diag,
                  const layouts::RaggedVector<MatrixScalar, MemorySpace>& upper,
                  const layouts::RaggedVector<RhsScalar, MemorySpace>& rhs,
                  const layouts::RaggedVector<std::remove_const_t<RhsScalar>, MemorySpace>& x,
                  const StatusView<MemorySpace>& status = {}, const Options& opts = {},
                  const Workspace<MemorySpace>& workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "partitioned::solve_ragged: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "partitioned::solve_ragged";
  const auto offsets = diag.offsets();
  layouts::require_same_offsets(where, diag, std::pair{"lower", lower}, std::pair{"upper", upper},
                                std::pair{"rhs", rhs}, std::pair{"x", x});
  layouts::impl::check_ragged_status(where, exec, status, diag);
  impl::check_options(where, opts);
  require(opts.split != Options::Split::always, where, "variable batches are not split across the device");
  const tridiag::impl::Diagonals<layouts::RaggedVector<MatrixScalar, MemorySpace>> matrix{lower, diag, upper};
  tridiag::impl::check_x_apart(where, matrix, rhs, x);
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  const index_type nsys = diag.systems();
  const index_type total = diag.required_span();  // offsets(nsys), read when diag was made
  const auto planned = impl::ragged_plan(exec, diag, opts, sizeof(Value));
  const index_type longest = planned.first;
  const Plan& p = planned.second;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  require(longest == 0 || host || p.register_rows != 0, where, "the longest system has ", longest,
          " rows; on this device a variable batch is solved by teams with chunks in registers (at most 16 x 256 rows)");
  const auto work = impl::workspace_for(where, "partitioned::ragged_workspace_bytes", workspace,
                                        impl::ragged_workspace_bytes<Matrix>(p, total), matrix, rhs, x, status);
  if (nsys == 0) return;
  if (longest == 0) {
    if (status.data() != nullptr) Kokkos::deep_copy(exec, status, 0);
    return;
  }
  using Work = layouts::RaggedVector<Matrix, MemorySpace>;
  impl::WorkspaceCarver carve(work);
  impl::run_team_kernel<ExecSpace, Matrix, Value>(
      where, exec, nsys, impl::RaggedSystems<std::remove_cv_t<decltype(offsets)>>{offsets}, lower, diag, upper, rhs,
      x, status, p, [&](const char*) {
        return Work::with_offsets_of(typename Work::storage_type(carve.take<Matrix>(static_cast<std::size_t>(total)), total), diag);
      });
}

}  // namespace tridiag::partitioned

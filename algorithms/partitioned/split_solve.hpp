#pragma once
// The partitioned solver spread over the whole device, for long systems (one team per system
// would leave all but a few multiprocessors idle, or walk chunks far too long for registers).
//
// Every system is cut into chunks of at most chunk_rows (<= 16) consecutive rows; thread g of a
// launch owns chunk g of the batch (chunk q of system s is g = s * C + q), so the chunks of a warp
// are one contiguous range of positions, loaded and stored coalesced through scratch
// (group_staging.hpp) as in the team kernel. Three steps:
//  1. reduce: every chunk is reduced by the modified Thomas pass of chunk_elimination.hpp (its
//     coefficients in registers) and writes its first and last row into a reduced batch: 2 rows
//     per chunk, tridiagonal again, with unit diagonal;
//  2. the reduced batch (2 C rows per system) is cut again while it is too long for a team per
//     system (step 1 once more on it), and the last one is solved by the team kernel;
//  3. finish: every chunk is reduced again and finishes its rows from its two interface unknowns.
//     Reading a, b, c and d twice (8 values per row) costs less than writing the chunk's three
//     coefficients to a workspace and reading them back (4 + 3 + 3), and needs no workspace. A
//     chunk whose inner rows overflow flags its system; a small kernel then fails the flagged
//     systems as a whole (their other chunks are in other teams).
// Same arithmetic per chunk as the team kernel; stable for diagonally dominant matrices (the
// reduced system of a diagonally dominant matrix is diagonally dominant again). Status codes as
// for Thomas: the first failing (1-based) row, or -row of the first non-finite value. x may be
// the right-hand side (in place): a group reads its positions of d before it stores x there.

#include <Kokkos_Core.hpp>
#include <climits>
#include <limits>
#include <vector>
#include <tridiag/algorithms/partitioned/chunk_elimination.hpp>
#include <tridiag/algorithms/partitioned/group_staging.hpp>
#include <tridiag/algorithms/partitioned/partitioned_workspace.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/warp_shuffle.hpp>
#include <tridiag/layouts/flat.hpp>

namespace tridiag::partitioned::impl {

/// How system rows are cut into chunks: chunk q of a system holds rows [q n / C, (q+1) n / C),
/// C = ceil(n / chunk_rows), so every chunk has at most chunk_rows rows (and at least 2 when n
/// >= 2 chunk_rows >= 6).
struct SplitChunks {
  index_type n = 0, chunks = 0;
  KOKKOS_FORCEINLINE_FUNCTION index_type begin(index_type q) const { return q * n / chunks; }
  KOKKOS_FORCEINLINE_FUNCTION index_type size(index_type q) const { return begin(q + 1) - begin(q); }
  /// Position (system * n + row) of the first row of chunk g of the batch.
  KOKKOS_FORCEINLINE_FUNCTION index_type position(index_type g) const {
    const index_type s = g / chunks;
    return s * n + begin(g - s * chunks);
  }
};

/// Step 1 (Finish = false) or 3 (Finish = true) over the chunks of every system; M: the register
/// chunk length (>= the longest chunk). flags(s, 0) collects the first failing pivot row of
/// system s in step 1, flags(s, 1) the first non-finite row (INT_MAX: none); step 3 sets
/// flags(s, 2) to 1 where an inner row of a chunk of s is not finite (FailOverflowsKernel).
template <class ExecSpace, class Matrix, class Value, int M, bool Finish, class A, class B, class C, class D,
          class X, class Reduced, class ReducedRhs, class Flags>
struct SplitChunkKernel {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  SplitChunks cut;
  index_type nsys;
  A a;
  B b;
  C c;
  D d;
  X x;
  Reduced ra, rb, rc;
  ReducedRhs rd, rx;
  StatusView<typename ExecSpace::memory_space> reduced_status, status;
  Flags flags;
  int slab_bytes;  ///< staging_slab_bytes of one group

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const int rank = member.team_rank();
    const index_type total = nsys * cut.chunks;
    const index_type g = static_cast<index_type>(member.league_rank()) * member.team_size() + rank;
    const bool active = g < total;
    const index_type s = active ? g / cut.chunks : 0, q = active ? g - s * cut.chunks : 0;
    const index_type k0 = cut.begin(q), m = cut.size(q);
    // This thread's staging group: chunks first .. last of the batch, one contiguous range.
    const int G = staging_group_size(member), lane = rank % G;
    const index_type first = g - lane;
    const index_type last = (first + G < total ? first + G : total) - 1;
    const index_type q_begin = first < total ? cut.position(first) : 0;
    const index_type q_end = first < total ? cut.position(last) + cut.size(last - (last / cut.chunks) * cut.chunks) : 0;
    char* scratch = aligned_team_scratch<ExecSpace>(member);
    const GroupStaging<M, Member> group{member, cut.n, q_begin, q_end,
                                        active ? static_cast<int>(cut.position(g) - q_begin) : 0, lane, G,
                                        scratch + (rank / G) * staged_arrays * slab_bytes, slab_bytes};
    group.load(a, b, c, d);
    RegisterChunk<Matrix, Value, M> chunk;
    LastRow<Matrix, Value> last_row;
    int nonfinite = 0, failed = 0;
    if (active)
      failed = eliminate_chunk_rows(chunk, cut.n, k0, m, group.template rows<Matrix>(0),
                                    group.template rows<Matrix>(1), group.template rows<Matrix>(2),
                                    group.template rows<Value>(3), nonfinite, last_row);
    if constexpr (!Finish) {
      if (active) {
        ra(s, 2 * q) = chunk.alpha(0);
        rb(s, 2 * q) = Matrix(1);
        rc(s, 2 * q) = chunk.gamma(0);
        rd(s, 2 * q) = chunk.delta(0);
        ra(s, 2 * q + 1) = last_row.alpha;
        rb(s, 2 * q + 1) = Matrix(1);
        rc(s, 2 * q + 1) = last_row.gamma;
        rd(s, 2 * q + 1) = last_row.delta;
        if (failed) Kokkos::atomic_fetch_min(&flags(s, 0), failed);
        if (nonfinite) Kokkos::atomic_fetch_min(&flags(s, 1), nonfinite);
      }
    } else {
      int pivot_row = INT_MAX, nonfinite_row = INT_MAX;
      Value x_first = Value(0), x_last = Value(0);
      if (active) {
        pivot_row = flags(s, 0);
        const int reduced = reduced_status(s);
        if (reduced > 0) {  // interface row r (1-based) is chunk r / 2's first or last row
          const index_type r = reduced - 1, p = r / 2;
          const int row = static_cast<int>((r % 2 == 0 ? cut.begin(p) : cut.begin(p + 1) - 1) + 1);
          if (row < pivot_row) pivot_row = row;
        }
        // A non-finite reduced solution without a non-finite input is an overflow: report row 1
        // of the system, as Thomas reports where its sweep became non-finite.
        nonfinite_row = flags(s, 1) != INT_MAX ? flags(s, 1) : reduced < 0 ? 1 : INT_MAX;
        x_first = rx(s, 2 * q);
        x_last = rx(s, 2 * q + 1);
      }
      const bool ok = pivot_row == INT_MAX && nonfinite_row == INT_MAX;
      const bool inner_finite = solve_inner_rows(chunk, active ? m : 0, x_first, x_last);
      Value rows[M];
      TRIDIAG_UNROLL
      for (int j = 0; j < M; ++j)
        rows[j] = ok ? chunk_solution(chunk, j, m, x_first, x_last) : compat::quiet_nan<Value>();
      group.store(x, rows, m, active);
      // An overflow in this chunk's inner rows: the system fails after this kernel (its status,
      // written below, and its other chunks' rows are fixed by FailOverflowsKernel).
      if (active && ok && !inner_finite) Kokkos::atomic_fetch_min(&flags(s, 2), 1);
      if (active && q == 0 && status.data() != nullptr)
        status(s) = pivot_row != INT_MAX ? pivot_row : ok ? 0 : -nonfinite_row;
    }
  }
};

/// Fills every level's flags with INT_MAX, one launch for all levels (before step 1 of the first):
/// level l's ints are [status: nsys][flags: 3 nsys] from ints + 4 nsys l (SplitLevels).
struct ClearFlagsKernel {
  int* ints;
  index_type nsys;
  KOKKOS_INLINE_FUNCTION void operator()(index_type k) const {
    const index_type level = k / (3 * nsys);
    ints[4 * nsys * level + nsys + (k - 3 * nsys * level)] = INT_MAX;
  }
};

/// After step 3 of a level: a system flagged for an overflow in an inner row (flags(s, 2); its
/// status is 0, its chunks all had finite interface unknowns) fails as a whole: status -1 (an
/// overflow, reported as row 1, as the team kernel does), x NaN on every row. One thread per
/// system: on the success path it reads one flag.
template <class X, class Flags>
struct FailOverflowsKernel {
  index_type n;
  X x;
  Flags flags;
  StatusView<typename Flags::memory_space> status;
  KOKKOS_INLINE_FUNCTION void operator()(index_type s) const {
    if (flags(s, 2) == INT_MAX) return;
    if (status.data() != nullptr) status(s) = -1;
    tridiag::impl::poison_solution(n, rows_of(x, s));
  }
};

/// Launches one step of SplitChunkKernel: teams of up to 256 threads on GPUs (as many as the
/// team scratch and the kernel's registers allow), one thread elsewhere.
template <class ExecSpace, class Kernel, int M>
void launch_split_step(const ExecSpace& exec, Kernel kernel, const char* label, std::size_t scalar_bytes) {
  // As for the team kernel: bounded to two teams of 256 threads per multiprocessor, 128 registers.
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 2>>;
  constexpr bool warps = compat::runs_in_warps<ExecSpace>;
  const int max_team = warps ? Policy(exec, 1, 1).team_size_max(kernel, Kokkos::ParallelForTag()) : 1;
  const std::size_t limit = Policy::scratch_size_max(0);
  int team = warps ? 256 : 1;
  auto bytes = [&](int t) { return group_staging_bytes(t, warps ? 32 : t, M, scalar_bytes); };
  while (team > (warps ? 32 : 1) && (team > max_team || bytes(team) > limit)) team /= 2;
  require(team <= max_team && bytes(team) <= limit, "partitioned::solve", "the split kernel's chunks of ", M,
          " rows do not fit in a team here (", bytes(team), " bytes of scratch, ", limit, " available)");
  kernel.slab_bytes = static_cast<int>(staging_slab_bytes(warps ? 32 : team, M, scalar_bytes));
  const index_type total = kernel.nsys * kernel.cut.chunks, league = (total + team - 1) / team;
  // An int league: a larger batch would wrap and leave chunks unsolved with no error.
  require(league <= INT_MAX, "partitioned::solve", "the split kernel's ", total, " chunks need ", league,
          " teams, more than the league size limit ", INT_MAX);
  auto policy = compat::light_weight(Policy(exec, static_cast<int>(league), team));
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes(team) + 16));  // + 16: alignment of the base
  Kokkos::parallel_for(label, policy, kernel);
}

/// The reduced batches of every level of one split solve: level l cuts the batch of level l - 1
/// (level 0: the caller's) into chunks and holds the reduced batch, its solution, its status and
/// the flags of the step-1 pass. All levels are carved out of one workspace (partitioned_workspace.hpp),
/// uninitialised (every value is written before it is read): on the H100 an allocation (and the
/// zero fill of a labelled View) costs more than a level's kernels for systems of up to 10^6 rows.
/// Built with a counting carver, it only sizes that workspace.
template <class Matrix, class Value, class MemorySpace>
struct SplitLevels {
  using Reduced = BatchVector<Matrix, layouts::Flat, MemorySpace>;
  using ReducedRhs = BatchVector<Value, layouts::Flat, MemorySpace>;
  using Flags = Kokkos::View<int* [3], MemorySpace>;
  struct Level {
    SplitChunks cut;
    Reduced ra, rb, rc;
    ReducedRhs rd, rx;
    StatusView<MemorySpace> status;
    Flags flags;
  };
  std::vector<Level> levels;
  int* ints = nullptr;  ///< every level's status and flags: 4 nsys ints per level, in level order

  /// Levels for `nsys` systems of n rows, cut while split(rows of the level's batch) says so.
  template <class SplitAgain>
  SplitLevels(index_type nsys, index_type n, index_type chunk_rows, const SplitAgain& split, WorkspaceCarver& carve) {
    std::vector<SplitChunks> cuts;
    for (index_type rows = n; cuts.empty() || split(rows); rows = 2 * cuts.back().chunks)
      cuts.push_back(SplitChunks{rows, (rows + chunk_rows - 1) / chunk_rows});
    index_type reduced_rows = 0;
    for (const auto& cut : cuts) reduced_rows += 2 * cut.chunks;
    require(nsys <= std::numeric_limits<index_type>::max() / 8 / (reduced_rows > 0 ? reduced_rows : 1),
            "partitioned::solve", nsys, " systems of ", n, " rows overflow the index type");
    // The status and flags of every level in one block, so that one launch clears all flags.
    ints = carve.take<int>(4 * static_cast<std::size_t>(nsys) * cuts.size());
    int* level_ints = ints;
    for (const auto& cut : cuts) {
      const layouts::Flat map(nsys, 2 * cut.chunks);
      const auto span = static_cast<std::size_t>(map.required_span());
      auto matrix = [&] { return Reduced(typename Reduced::storage_type(carve.take<Matrix>(span), span), map); };
      auto values = [&] { return ReducedRhs(typename ReducedRhs::storage_type(carve.take<Value>(span), span), map); };
      Level level{cut, matrix(), matrix(), matrix(), values(), values(), {}, {}};
      level.status = StatusView<MemorySpace>(level_ints, nsys);
      level.flags = Flags(level_ints + nsys, nsys);
      level_ints += 4 * nsys;
      levels.push_back(level);
    }
  }
  /// Rows of the last level's reduced batch (what solve_reduced gets).
  index_type last_rows() const { return 2 * levels.back().cut.chunks; }
};

/// Step 1 on one level: a, b, c, d (the batch the level cuts) into the level's reduced batch; the
/// level's flags must hold INT_MAX (split_solve_with clears every level's first).
template <int M, class ExecSpace, class Level, class A, class B, class C, class D, class X>
void split_reduce(const ExecSpace& exec, const Level& level, index_type nsys, const A& a, const B& b, const C& c,
                  const D& d, const X& x) {
  using Matrix = typename A::value_type;
  using Value = typename X::value_type;
  using Flags = decltype(level.flags);
  using Kernel = SplitChunkKernel<ExecSpace, Matrix, Value, M, false, A, B, C, D, X, decltype(level.ra),
                                  decltype(level.rd), Flags>;
  launch_split_step<ExecSpace, Kernel, M>(exec,
                                          Kernel{level.cut, nsys, a, b, c, d, x, level.ra, level.rb, level.rc,
                                                 level.rd, level.rx, level.status, {}, level.flags, 0},
                                          "tridiag::partitioned::split_reduce",
                                          sizeof(Matrix) > sizeof(Value) ? sizeof(Matrix) : sizeof(Value));
}

/// Step 3 on one level: x (and `status`, per system) of the batch the level cuts, from the
/// level's reduced solution and status; then the systems whose inner rows overflowed fail.
template <int M, class ExecSpace, class Level, class A, class B, class C, class D, class X, class Status>
void split_finish(const ExecSpace& exec, const Level& level, index_type nsys, const A& a, const B& b, const C& c,
                  const D& d, const X& x, const Status& status) {
  using Matrix = typename A::value_type;
  using Value = typename X::value_type;
  using Kernel = SplitChunkKernel<ExecSpace, Matrix, Value, M, true, A, B, C, D, X, decltype(level.ra),
                                  decltype(level.rd), decltype(level.flags)>;
  launch_split_step<ExecSpace, Kernel, M>(exec,
                                          Kernel{level.cut, nsys, a, b, c, d, x, level.ra, level.rb, level.rc,
                                                 level.rd, level.rx, level.status, status, level.flags, 0},
                                          "tridiag::partitioned::split_finish",
                                          sizeof(Matrix) > sizeof(Value) ? sizeof(Matrix) : sizeof(Value));
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>;
  using Fail = FailOverflowsKernel<X, decltype(level.flags)>;
  Kokkos::parallel_for("tridiag::partitioned::split_fail_overflows", compat::light_weight(Range(exec, 0, nsys)),
                       Fail{level.cut.n, x, level.flags, status});
}

/// Runs step 1 down every level, solves the last reduced batch with `solve_reduced(matrix, rhs,
/// x, status)` (the caller passes partitioned::solve, which does not split it again), and step 3
/// back up; register chunks of M rows.
template <int M, class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace,
          class SplitAgain, class SolveReduced>
void split_solve_with(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                      const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                      const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                      const StatusView<MemorySpace>& status, index_type chunk_rows, const SplitAgain& split_again,
                      const SolveReduced& solve_reduced, const Workspace<MemorySpace>& workspace) {
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  const index_type nsys = matrix.systems();
  WorkspaceCarver carve(workspace);
  const SplitLevels<Matrix, Value, MemorySpace> pool(nsys, matrix.rows(), chunk_rows, split_again, carve);
  const auto& levels = pool.levels;
  const std::size_t L = levels.size();
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>;
  Kokkos::parallel_for("tridiag::partitioned::split_clear",
                       compat::light_weight(Range(exec, 0, 3 * nsys * static_cast<index_type>(L))),
                       ClearFlagsKernel{pool.ints, nsys});
  split_reduce<M>(exec, levels[0], nsys, matrix.lower, matrix.diag, matrix.upper, rhs, x);
  for (std::size_t l = 1; l < L; ++l) {
    const auto& up = levels[l - 1];
    split_reduce<M>(exec, levels[l], nsys, up.ra, up.rb, up.rc, up.rd, up.rx);
  }
  const auto& last = levels[L - 1];
  solve_reduced(TridiagonalBatch<Matrix, layouts::Flat, MemorySpace>(last.ra, last.rb, last.rc), last.rd, last.rx,
                last.status, workspace_rest(workspace, carve.offset()));
  for (std::size_t l = L - 1; l >= 1; --l) {
    const auto& up = levels[l - 1];
    split_finish<M>(exec, levels[l], nsys, up.ra, up.rb, up.rc, up.rd, up.rx, up.status);
  }
  split_finish<M>(exec, levels[0], nsys, matrix.lower, matrix.diag, matrix.upper, rhs, x, status);
}

/// The three steps with chunks of at most chunk_rows (3 .. 16) rows, as many levels as
/// split_again(rows) asks for (it is asked about the reduced batches, not about the caller's).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace, class SplitAgain,
          class SolveReduced>
void split_solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                 const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                 const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                 const StatusView<MemorySpace>& status, index_type chunk_rows, const SplitAgain& split_again,
                 const SolveReduced& solve_reduced, const Workspace<MemorySpace>& workspace) {
  if (chunk_rows <= 4) {
    split_solve_with<4>(exec, matrix, rhs, x, status, chunk_rows, split_again, solve_reduced, workspace);
  } else if (chunk_rows <= 8) {
    split_solve_with<8>(exec, matrix, rhs, x, status, chunk_rows, split_again, solve_reduced, workspace);
  } else {
    split_solve_with<16>(exec, matrix, rhs, x, status, chunk_rows, split_again, solve_reduced, workspace);
  }
}

}  // namespace tridiag::partitioned::impl

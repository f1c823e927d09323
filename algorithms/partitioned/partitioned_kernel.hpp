#pragma once
// The team kernel of the partitioned solver: S systems per team, P threads per system. Thread t
// of a system reduces its chunk of consecutive rows (chunk_elimination.hpp), the P threads solve
// the interface system together (interface_solve.hpp, through a lane exchange:
// lane_exchange.hpp), and each thread finishes its chunk. Chunks live in registers (M rows at
// most, read directly or staged through scratch by groups of threads: group_staging.hpp) or in a
// global workspace (long systems). One source for every backend and layout; the choices above
// are template parameters made by partitioned::solve from its Plan.

#include <Kokkos_Core.hpp>
#include <climits>
#include <cstdint>
#include <tridiag/algorithms/partitioned/chunk_elimination.hpp>
#include <tridiag/algorithms/partitioned/group_staging.hpp>
#include <tridiag/algorithms/partitioned/interface_solve.hpp>
#include <tridiag/algorithms/partitioned/lane_exchange.hpp>
#include <tridiag/algorithms/partitioned/paired_warps_interface.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/status.hpp>

namespace tridiag::partitioned::impl {

/// Chunks in registers of M rows: a fresh RegisterChunk per thread.
template <class Matrix, class Value, int M>
struct RegisterChunkMaker {
  static constexpr int register_rows = M;
  KOKKOS_FORCEINLINE_FUNCTION RegisterChunk<Matrix, Value, M> operator()(index_type, index_type) const { return {}; }
};

/// Chunks in a global workspace (alpha, gamma; delta in x itself).
template <class Work, class X>
struct WorkspaceChunkMaker {
  static constexpr int register_rows = 0;
  Work alpha, gamma;
  X x;
  KOKKOS_FORCEINLINE_FUNCTION auto operator()(index_type s, index_type k0) const {
    return WorkspaceChunk<SystemRows<Work>, SystemRows<Work>, SystemRows<X>>{rows_of(alpha, s), rows_of(gamma, s),
                                                                             rows_of(x, s), k0};
  }
};

/// How threads exchange interface rows: lane_exchange.hpp (shuffles within a warp, team scratch
/// for any P), or paired_warps_interface.hpp (P = 64 on a GPU: the lower warp solves).
enum class Exchange { shuffles, scratch, paired_warps };

/// Team scratch bytes of one team of PartitionedKernel: the staging slabs and the exchange
/// buffers share the same scratch (the exchange starts after the chunk elimination has read the
/// slabs, and ends before the solution is stored through them). staged_rows: the register chunk
/// length when staged, else 0; group_size: threads of a staging group (a warp on GPUs, the team
/// elsewhere: staging_group_size).
inline std::size_t partitioned_scratch_bytes_for(int team_size, int group_size, int P, int staged_rows,
                                                 Exchange exchange, std::size_t matrix_bytes,
                                                 std::size_t value_bytes) {
  const std::size_t larger = matrix_bytes > value_bytes ? matrix_bytes : value_bytes;
  const std::size_t staging = staged_rows > 0 ? group_staging_bytes(team_size, group_size, staged_rows, larger) : 0;
  const int systems_per_team = (team_size + P - 1) / P;
  const std::size_t lanes =
      exchange == Exchange::scratch ? scratch_exchange_bytes(team_size, systems_per_team, matrix_bytes, value_bytes)
      : exchange == Exchange::paired_warps
          ? systems_per_team * paired_warps_area_bytes(matrix_bytes, value_bytes)
          : 0;
  return staging > lanes ? staging : lanes;
}
template <class ExecSpace, class Matrix, class Value>
std::size_t partitioned_scratch_bytes(int team_size, int P, int staged_rows, Exchange exchange) {
  const int group_size = compat::runs_in_warps<ExecSpace> ? 32 : team_size;
  return partitioned_scratch_bytes_for(team_size, group_size, P, staged_rows, exchange, sizeof(Matrix),
                                       sizeof(Value));
}

/// Where the systems of a batch are: every one n rows, one after the other (positions s * n + i:
/// the Flat layout, and the position order of every other layout).
struct UniformSystems {
  static constexpr bool ragged = false;
  index_type n;
  KOKKOS_FORCEINLINE_FUNCTION index_type rows(index_type) const { return n; }
  KOKKOS_FORCEINLINE_FUNCTION index_type first(index_type s) const { return s * n; }
};

/// System s has offsets(s + 1) - offsets(s) rows at positions offsets(s) + i (a variable batch
/// in layouts::RaggedVector storage: no padding).
template <class Offsets>
struct RaggedSystems {
  static constexpr bool ragged = true;
  Offsets offsets;
  KOKKOS_FORCEINLINE_FUNCTION index_type rows(index_type s) const { return offsets(s + 1) - offsets(s); }
  KOKKOS_FORCEINLINE_FUNCTION index_type first(index_type s) const { return offsets(s); }
};

template <class ExecSpace, class Matrix, class Value, bool Staged, Exchange Lanes, class A, class B, class C,
          class D, class X, class Maker, class Systems = UniformSystems>
struct PartitionedKernel {
  static constexpr int M = Maker::register_rows;
  static_assert(!Staged || M > 0, "only register chunks are staged");
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;

  index_type nsys;
  Systems systems;  ///< UniformSystems (n rows each) or RaggedSystems (a variable batch)
  int P, S;
  A a;
  B b;
  C c;
  D rhs;
  X x;
  StatusView<typename ExecSpace::memory_space> status;
  Maker make_chunk;
  /// Exchange::paired_warps: where the systems' exchange areas start in the team scratch, and
  /// whether they have it to themselves (after the staging slabs) or reuse the slabs' bytes.
  std::size_t exchange_offset = 0;
  bool exchange_private = false;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    // Ranks beyond P x S only round the team up to whole warps: they own no chunk.
    const int rank = member.team_rank();
    const int t = rank % P;
    const index_type s = static_cast<index_type>(member.league_rank()) * S + rank / P;
    const bool active = rank < P * S && s < nsys;
    index_type n;  // rows of this thread's system
    int Ps;        // chunks of this thread's system: threads t >= Ps of the system own none
    if constexpr (!Systems::ragged) {
      n = systems.n;
      Ps = P;
      if (n == 1) {  // a single row per system: no chunks (uniform across the team)
        if (active && t == 0) solve_single_row(s);
        return;
      }
    } else {
      n = active ? systems.rows(s) : 0;
      Ps = chunks_of(n);
    }
    // A variable batch sizes its launch for its longest system: a shorter one uses Ps <= P
    // chunks (at least 2 rows each, a single row when n = 1); the others present identity
    // interface rows, which couple to nothing.
    const bool owns = active && t < Ps && n > 0;
    const index_type k0 = chunk_row(t, n, Ps), m = owns ? chunk_row(t + 1, n, Ps) - k0 : 0;
    auto chunk = make_chunk(active ? s : 0, k0);
    int failed = 0, nonfinite = 0;
    LastRow<Matrix, Value> last;
    char* scratch = scratch_base(member);
    if constexpr (Staged) {
      const auto group = staging_group(member, scratch, s, n, Ps, k0);
      group.load(a, b, c, rhs);
      if (owns)
        failed = eliminate_chunk_rows(chunk, n, k0, m, group.template rows<Matrix>(0), group.template rows<Matrix>(1),
                                      group.template rows<Matrix>(2), group.template rows<Value>(3), nonfinite, last);
    } else {
      if (owns)
        failed = eliminate_chunk(chunk, n, k0, m, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(rhs, s),
                                 nonfinite, last);
    }
    ChunkEnds<Matrix, Value> ends{{Matrix(0), Matrix(0), Value(0)}, {Matrix(0), Matrix(0), Value(0)}};
    if (owns) ends = {{chunk.alpha(0), chunk.gamma(0), chunk.delta(0)}, {last.alpha, last.gamma, last.delta}};
    // The inner rows are solved into chunk.delta before the system's failure codes are reduced
    // (an overflow there fails the whole system), and stored after.
    Outcome outcome;
    if constexpr (Lanes == Exchange::shuffles) {
      outcome = solve_interface_with(ShuffleExchange{P}, chunk, t, k0, m, owns, failed, nonfinite, ends);
    } else if constexpr (Lanes == Exchange::paired_warps) {
      using Area = PairedWarpsArea<Matrix, Value>;
      const Area area(scratch + exchange_offset + (rank / P) * Area::bytes());
      const auto r = solve_interface_on_paired_warps(
          member, area, exchange_private, rank < P * S, t, owns, static_cast<int>(k0 + m), failed, nonfinite, ends,
          overflow_mark, [&](const Value& first, const Value& last) { return solve_inner_rows(chunk, m, first, last); });
      outcome = {r.x_first, r.x_last, r.pivot_row, r.nonfinite_row == overflow_mark ? 1 : r.nonfinite_row};
    } else {
      outcome = solve_interface_with(ScratchExchange<Member, Matrix, Value>(member, scratch, P), chunk, t, k0, m,
                                     owns, failed, nonfinite, ends);
    }
    const bool ok = outcome.pivot_row == INT_MAX && outcome.nonfinite_row == INT_MAX;
    if constexpr (Staged) {
      Value rx[M];
      TRIDIAG_UNROLL
      for (int j = 0; j < M; ++j)
        rx[j] = ok ? chunk_solution(chunk, j, m, outcome.x_first, outcome.x_last) : compat::quiet_nan<Value>();
      staging_group(member, scratch, s, n, Ps, k0).store(x, rx, m, owns);
    } else if (owns) {
      const auto xs = rows_of(x, s);
      if (!ok) {
        for (index_type j = 0; j < m; ++j) xs(k0 + j) = compat::quiet_nan<Value>();
      } else if constexpr (M > 0) {
        TRIDIAG_UNROLL
        for (int j = 0; j < M; ++j)
          if (j < m) xs(k0 + j) = chunk_solution(chunk, j, m, outcome.x_first, outcome.x_last);
      } else {  // a workspace chunk's delta is x: its inner rows are there already
        xs(k0 + m - 1) = outcome.x_last;
        xs(k0) = outcome.x_first;
      }
    }
    if (active && t == 0 && status.data() != nullptr)
      status(s) = outcome.pivot_row != INT_MAX      ? outcome.pivot_row
                  : outcome.nonfinite_row != INT_MAX ? -outcome.nonfinite_row
                                                     : 0;
  }

  /// A non-finite interface solution or inner row with finite inputs anywhere in the system is an
  /// overflow, reported as row 1 (as split_solve does): it ranks after every input row, and a non-finite
  /// input elsewhere spreads to every thread's solution, so it must not count then.
  static constexpr int overflow_mark = INT_MAX - 1;

  /// The interface solution of this thread's chunk, and the first failing row of its system.
  struct Outcome {
    Value x_first = Value(0), x_last = Value(0);
    int pivot_row = INT_MAX, nonfinite_row = INT_MAX;  ///< 1-based rows; INT_MAX: none
  };

  /// Also solves the chunk's inner rows into chunk.delta (solve_inner_rows; m = 0 where the
  /// thread owns no chunk), so that an overflow there joins the reduction at no extra exchange.
  template <class Lanes_, class Chunk>
  KOKKOS_INLINE_FUNCTION Outcome solve_interface_with(const Lanes_& lanes, Chunk& chunk, int t, index_type k0,
                                                      index_type m, bool active, int failed, int nonfinite,
                                                      const ChunkEnds<Matrix, Value>& ends) const {
    Outcome o;
    lanes.fence_scratch_reuse();
    const bool interface_failed = solve_interface(lanes, t, P, ends, o.x_first, o.x_last);
    const bool inner_finite = solve_inner_rows(chunk, m, o.x_first, o.x_last);
    // This thread's candidates (1-based rows): its chunk's pivot, its interface row (the chunk's
    // last row), a non-finite input, an overflow (overflow_mark) of its interface unknowns or of
    // its inner rows.
    int pivot = failed ? failed : INT_MAX;
    if (interface_failed && static_cast<int>(k0 + m) < pivot) pivot = static_cast<int>(k0 + m);
    int bad_value = nonfinite ? nonfinite : INT_MAX;
    if (bad_value == INT_MAX && !(compat::isfinite(o.x_first) && compat::isfinite(o.x_last) && inner_finite))
      bad_value = overflow_mark;
    if (!active) pivot = bad_value = INT_MAX;
    lanes.system_min(pivot, bad_value);
    o.pivot_row = pivot;
    o.nonfinite_row = bad_value;
    if (o.nonfinite_row == overflow_mark) o.nonfinite_row = 1;
    return o;
  }

  /// This team's scratch, 16-byte aligned (the launch asks for 16 bytes more than it uses).
  KOKKOS_INLINE_FUNCTION static char* scratch_base(const Member& member) {
    if constexpr (!Staged && Lanes == Exchange::shuffles) {
      (void)member;
      return nullptr;
    } else {
      return aligned_team_scratch<ExecSpace>(member);
    }
  }

  /// Chunks of a system of n rows: P, fewer for a short system of a variable batch (every chunk
  /// at least 2 rows; one chunk of 1 row when n = 1).
  KOKKOS_FORCEINLINE_FUNCTION int chunks_of(index_type n) const {
    if constexpr (!Systems::ragged) {
      (void)n;
      return P;
    } else {
      return n >= 2 * P ? P : n >= 2 ? static_cast<int>(n / 2) : 1;
    }
  }

  /// The first row of chunk t of a system of n rows cut into Ps chunks: t * n / Ps (n for t >=
  /// Ps), in 32 bits for register chunks (n <= 16 P <= 4,096): a 64-bit division is a long
  /// instruction sequence that costs registers.
  KOKKOS_FORCEINLINE_FUNCTION index_type chunk_row(int t, index_type n, int Ps) const {
    if (Systems::ragged && t >= Ps) return n;
    if constexpr (M > 0) {
      return t * static_cast<int>(n) / Ps;
    } else {
      return t * n / Ps;
    }
  }

  /// First position (system * n + row for uniform batches) of team rank r's chunk, and one past
  /// its last (ranks beyond the batch: the batch's end).
  KOKKOS_FORCEINLINE_FUNCTION index_type chunk_begin(const Member& member, int r, bool end = false) const {
    const index_type s = static_cast<index_type>(member.league_rank()) * S + r / P;
    const int t = r % P + (end ? 1 : 0);
    if constexpr (!Systems::ragged) {
      return s * systems.n + chunk_row(t, systems.n, P);
    } else {
      if (s >= nsys) return systems.first(nsys);
      const index_type n = systems.rows(s);
      return systems.first(s) + chunk_row(t, n, chunks_of(n));
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION index_type chunk_end(const Member& member, int r) const {
    return chunk_begin(member, r, true);
  }

  /// This thread's staging group: its range of positions and its part of the scratch. s, n, Ps,
  /// k0: this thread's system, its rows, its chunks and this thread's first row (as operator()
  /// computed them).
  KOKKOS_INLINE_FUNCTION GroupStaging<(M > 0 ? M : 1), Member> staging_group(const Member& member, char* scratch,
                                                                              index_type s, index_type n, int Ps,
                                                                              index_type k0) const {
    const int G = staging_group_size(member);
    const int rank = member.team_rank(), lane = rank % G, first = rank - lane;
    const int used = P * S;  // ranks that own a chunk
    const int last = (first + G < used ? first + G : used) - 1;
    index_type q_begin, q_end, mine;
    if constexpr (Systems::ragged) {
      // The group's range from as few offsets as possible: every offset read here is a global
      // load the group's data loads wait for, and the values it keeps cost registers.
      const index_type league_first = static_cast<index_type>(member.league_rank()) * S;
      if (P % G == 0) {  // the group lies in this thread's system
        const index_type base = s < nsys ? systems.first(s) : 0;
        q_begin = base + (s < nsys ? chunk_row(first % P, n, Ps) : 0);
        q_end = base + (s < nsys ? chunk_row(last % P + 1, n, Ps) : 0);
        mine = base + k0;
      } else if (G % P == 0) {  // the group holds whole systems
        const index_type s0 = league_first + first / P, s1 = league_first + last / P + 1;
        q_begin = systems.first(s0 < nsys ? s0 : nsys);
        q_end = systems.first(s1 < nsys ? s1 : nsys);
        mine = s < nsys ? systems.first(s) + k0 : q_end;
      } else {
        q_begin = chunk_begin(member, first);
        q_end = chunk_end(member, last);
        mine = chunk_begin(member, rank);
      }
    } else {
      const index_type total = nsys * systems.n;
      q_begin = chunk_begin(member, first);
      const index_type end = chunk_end(member, last);
      q_end = end < total ? end : total;
      mine = chunk_begin(member, rank);
    }
    const std::size_t larger = sizeof(Matrix) > sizeof(Value) ? sizeof(Matrix) : sizeof(Value);
    const int slab = static_cast<int>(staging_slab_bytes(G, M > 0 ? M : 1, larger));
    return {member, n, q_begin, q_end, static_cast<int>(mine - q_begin), lane, G,
            scratch + (first / G) * staged_arrays * slab, slab};
  }

  KOKKOS_INLINE_FUNCTION void solve_single_row(index_type s) const {
    const Matrix w = b(s, 0);
    const bool ok = tridiag::impl::usable_pivot(w);
    const Value v = Value(rhs(s, 0)) / w;
    const bool finite = compat::isfinite(v);
    x(s, 0) = ok && finite ? v : compat::quiet_nan<Value>();
    if (status.data() != nullptr) status(s) = ok ? (finite ? 0 : -1) : 1;
  }
};

}  // namespace tridiag::partitioned::impl

#pragma once
// Host entry of the partitioned solver: several threads per system (a team), each reducing a
// chunk of consecutive rows (chunk_elimination.hpp), the interface system solved by PCR in team
// scratch (team_reduced_pcr.hpp), then the chunks finished.
//
// Two uses:
//  * medium systems on a GPU (n up to a few thousand): chunks of <= 8 or 16 rows live in
//    registers, so each value of a, b, c, d is read once and x written once (5 values of traffic
//    per unknown against 9 for the plain one-thread-per-system Thomas). Needs a layout that gives
//    each thread consecutive rows: Flat (or BlockInterleaved with a small tile) is right,
//    Interleaved is correct but slow here.
//  * long systems (n from thousands to millions): chunks of any length with their coefficients in
//    a global workspace; a team of up to 256 threads per system, or, when the systems are too
//    few to fill a GPU that way, chunks spread over the whole device (split_solve.hpp).
// Stable without pivoting for diagonally dominant matrices. Status codes as for Thomas: k > 0 bad
// pivot at (1-based) row k (a chunk row or an interface row), -k first non-finite value at row k.

#include <Kokkos_Core.hpp>
#include <climits>
#include <string>
#include <tridiag/algorithms/partitioned/chunk_elimination.hpp>
#include <tridiag/algorithms/partitioned/split_solve.hpp>
#include <tridiag/algorithms/partitioned/team_reduced_pcr.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>

namespace tridiag::partitioned {

/// How the batch is split; zeros mean "choose for the execution space".
struct Options {
  int threads_per_system = 0;  ///< P: chunks per system (team threads per system)
  int systems_per_team = 0;    ///< S: systems solved by one team
  int rows_per_thread = 8;     ///< target chunk length on GPUs (8 measured best on the H100)
  /// Where chunk coefficients live: automatic (registers on GPUs when chunks are short, global
  /// workspace otherwise), or forced (for tests and benchmarks). Registers hold at most 16 rows.
  enum class ChunkStorage { automatic, registers, workspace } chunk_storage = ChunkStorage::automatic;
  /// Register chunks only: stage each team's systems through team scratch (coalesced loads and
  /// stores, then each thread reads its consecutive rows from scratch) or read global memory
  /// directly. Automatic stages on GPUs when the systems fit in scratch: without it neighbouring
  /// threads read addresses m rows apart and the L1 cache thrashes (26-28% of copy bandwidth on
  /// the H100, docs/performance.md).
  enum class Staging { automatic, scratch, global } staging = Staging::automatic;
  /// Few long systems: cut every system into chunks of split_chunk_rows (>= 3) rows spread over
  /// the whole device, the interface system solved by this solver again (split_solve.hpp), rather
  /// than one team per system. Automatic: on GPUs when the chunks would not fit in registers and
  /// the systems are too few to give the device a team each per 256 threads it runs.
  enum class Split { automatic, always, never } split = Split::automatic;
  int split_chunk_rows = 32;
};

/// What a solve will do, for benchmarks and logs.
struct Plan {
  int threads_per_system = 1, systems_per_team = 1, team_size = 1;
  int register_rows = 0;  ///< 8 or 16: chunk coefficients in registers; 0: in global workspace
  bool staged = false;    ///< register chunks read from / written to team scratch staging
  bool split = false;     ///< chunks spread over the device by split_solve (the fields above: unused)
  std::string describe() const {
    if (split) return "split across the device";
    return std::to_string(threads_per_system) + " threads/system, " + std::to_string(systems_per_team) +
           " systems/team, chunks in " +
           (register_rows ? "registers (" + std::to_string(register_rows) + ")" : "workspace") +
           (staged ? ", staged in scratch" : "");
  }
};

namespace impl {
/// Scratch row length of one staged system: one pad slot every `period` rows, so that threads
/// reading their own chunks of `period` consecutive rows hit distinct shared-memory banks.
KOKKOS_INLINE_FUNCTION constexpr index_type staged_length(index_type n, index_type period) { return n + n / period + 1; }

/// Team scratch a staged team needs: S systems of a, b, c, d (row_bytes per row) and two flags
/// each; the interface system reuses the staged rows. 64 bytes per View for alignment.
constexpr std::size_t staged_scratch_bytes(index_type S, index_type n, index_type period, std::size_t row_bytes) {
  return static_cast<std::size_t>(S * staged_length(n, period)) * row_bytes + static_cast<std::size_t>(S) * 8 + 5 * 64;
}
}  // namespace impl

/// The split a solve of `systems` x `n` on ExecSpace will use; row_bytes is the size of one row
/// of a, b, c and the right-hand side together (it decides whether staging fits in scratch).
template <class ExecSpace>
Plan plan(const ExecSpace& exec, index_type systems, index_type n, const Options& opts = {},
          std::size_t row_bytes = 4 * sizeof(double)) {
  Plan p;
  const index_type max_p = n >= 2 ? n / 2 : 1;  // every chunk must hold at least 2 rows
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  const index_type threads = compat::concurrency(exec);
  index_type P;
  if (opts.threads_per_system > 0) {
    P = opts.threads_per_system;
  } else if (host) {
    // Host: one system per thread while there are enough systems, else split systems.
    P = systems >= threads ? 1 : (threads + systems - 1) / (systems > 0 ? systems : 1);
  } else {
    // 256 threads x (about 150 registers for 16-row chunks) still fits one multiprocessor.
    P = (n + opts.rows_per_thread - 1) / opts.rows_per_thread;
    if (P > 256) P = 256;
  }
  if (P > max_p) P = max_p;
  if (P < 1) P = 1;
  index_type S = opts.systems_per_team > 0 ? opts.systems_per_team : (host ? 1 : (P >= 128 ? 1 : 128 / P));
  p.threads_per_system = static_cast<int>(P);
  p.systems_per_team = static_cast<int>(S);
  p.team_size = static_cast<int>(P * S);
  const index_type longest_chunk = (n + P - 1) / P;
  const int fits = longest_chunk <= 8 ? 8 : longest_chunk <= 16 ? 16 : 0;
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
      p.split = systems * 256 < threads;
    }
  }
  if (p.register_rows != 0 && opts.staging != Options::Staging::global && n >= 2) {
    const std::size_t limit = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
    auto fits_with = [&](index_type systems_per_team) {
      return impl::staged_scratch_bytes(systems_per_team, n, p.register_rows, row_bytes) <= limit;
    };
    if (opts.staging == Options::Staging::scratch) {
      require(fits_with(S), "partitioned::plan", "staging ", S, " systems of ", n,
              " rows needs more team scratch than the ", limit, " bytes available");
      p.staged = true;
    } else if (!host) {
      // Fewer systems per team rather than no staging: staging is what makes the loads coalesced.
      while (S > 1 && opts.systems_per_team == 0 && !fits_with(S)) S /= 2;
      p.staged = fits_with(S);
      p.systems_per_team = static_cast<int>(S);
      p.team_size = static_cast<int>(P * S);
    }
  }
  return p;
}

namespace impl {

/// A team kernel that does nothing: what team_size_max is asked about before the real kernel exists.
struct EmptyTeamKernel {
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member&) const {}
};

/// Row accessor into a (systems_per_team, R) scratch View for one local system.
template <class View>
struct ScratchRows {
  View view;
  index_type system;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) operator()(index_type i) const { return view(system, i); }
};

template <class Matrix, class Value, int M>
struct RegisterChunkMaker {
  KOKKOS_FORCEINLINE_FUNCTION RegisterChunk<Matrix, Value, M> operator()(index_type, index_type) const { return {}; }
};

template <class Work, class X>
struct WorkspaceChunkMaker {
  Work alpha, gamma;
  X x;
  KOKKOS_FORCEINLINE_FUNCTION auto operator()(index_type s, index_type k0) const {
    return WorkspaceChunk<SystemRows<Work>, SystemRows<Work>, SystemRows<X>>{rows_of(alpha, s), rows_of(gamma, s),
                                                                             rows_of(x, s), k0};
  }
};

/// Rows of one system staged in team scratch, with one pad slot every Period rows (see
/// staged_length).
template <class View, int Period>
struct StagedRows {
  View view;
  index_type system;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) operator()(index_type i) const { return view(system, i + i / Period); }
};

/// The team kernel: S systems per team, P threads per system (a functor, see "Kernels are
/// functors" in core/kokkos_compat.hpp). StagePeriod > 0: the team first copies its systems into
/// team scratch with consecutive threads on consecutive addresses, solves from scratch, and
/// copies x back the same way (StagePeriod is the register chunk length, the pad period).
template <class ExecSpace, class Matrix, class Value, class A, class B, class C, class D, class X, class Maker,
          int StagePeriod>
struct PartitionedKernel {
  using Scratch = typename ExecSpace::scratch_memory_space;
  using MatrixScratch = Kokkos::View<Matrix**, Kokkos::LayoutRight, Scratch, Kokkos::MemoryUnmanaged>;
  using ValueScratch = Kokkos::View<Value**, Kokkos::LayoutRight, Scratch, Kokkos::MemoryUnmanaged>;
  using FlagScratch = Kokkos::View<int**, Kokkos::LayoutRight, Scratch, Kokkos::MemoryUnmanaged>;

  index_type nsys, n, P, S, R;
  A a;
  B b;
  C c;
  D rhs;
  X x;
  StatusView<typename ExecSpace::memory_space> status;
  Maker make_chunk;

  static std::size_t scratch_bytes(index_type S, index_type n, index_type R) {
    if (StagePeriod > 0) return staged_scratch_bytes(S, n, StagePeriod, 3 * sizeof(Matrix) + sizeof(Value));
    return 3 * MatrixScratch::shmem_size(S, R) + ValueScratch::shmem_size(S, R) + FlagScratch::shmem_size(S, 2);
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const index_type ls = member.team_rank() / P, t = member.team_rank() % P;
    const index_type s = member.league_rank() * S + ls;
    const bool active = s < nsys;
    if (n == 1) {  // a single row per system: no chunks (uniform across the team)
      if (active && t == 0) solve_single_row(s);
      return;
    }
    if constexpr (StagePeriod > 0) {
      const index_type L = staged_length(n, StagePeriod);
      MatrixScratch sa(member.team_scratch(0), S, L), sb(member.team_scratch(0), S, L), sc(member.team_scratch(0), S, L);
      ValueScratch sd(member.team_scratch(0), S, L);
      FlagScratch flags(member.team_scratch(0), S, 2);
      const index_type first = member.league_rank() * S;
      const int count = static_cast<int>((nsys - first < S ? nsys - first : S) * n);
      const int rows = static_cast<int>(n);
      // U rows per thread and array in flight before the first store to scratch: one load after
      // another (a load, then its store) would leave one memory latency per row exposed.
      constexpr int U = sizeof(Matrix) >= 8 ? 4 : 8;
      const int stride = member.team_size();
      for (int base = member.team_rank(); base < count; base += U * stride) {
        Matrix va[U], vb[U], vc[U];
        Value vd[U];
        int slot[U], local[U];
        TRIDIAG_UNROLL
        for (int u = 0; u < U; ++u) {
          const int e = base + u * stride;
          if (e < count) {
            const int q = e / rows, i = e - q * rows;
            local[u] = q;
            slot[u] = i + i / StagePeriod;
            va[u] = a(first + q, i);
            vb[u] = b(first + q, i);
            vc[u] = c(first + q, i);
            vd[u] = rhs(first + q, i);
          }
        }
        TRIDIAG_UNROLL
        for (int u = 0; u < U; ++u) {
          if (base + u * stride < count) {
            sa(local[u], slot[u]) = va[u];
            sb(local[u], slot[u]) = vb[u];
            sc(local[u], slot[u]) = vc[u];
            sd(local[u], slot[u]) = vd[u];
          }
        }
      }
      member.team_barrier();
      using MRows = StagedRows<MatrixScratch, StagePeriod>;
      using VRows = StagedRows<ValueScratch, StagePeriod>;
      // The interface system overwrites the staged rows once every chunk is eliminated.
      const MatrixScratch ra(sa.data(), S, R), rb(sb.data(), S, R), rc(sc.data(), S, R);
      const ValueScratch rd(sd.data(), S, R);
      solve_system(member, ls, t, s, active, MRows{sa, ls}, MRows{sb, ls}, MRows{sc, ls}, VRows{sd, ls},
                   VRows{sd, ls}, ra, rb, rc, rd, flags, true);
      member.team_barrier();
      for (int e = member.team_rank(); e < count; e += member.team_size()) {
        const int q = e / rows, i = e - q * rows;
        x(first + q, i) = sd(q, i + i / StagePeriod);
      }
    } else {
      MatrixScratch ra(member.team_scratch(0), S, R), rb(member.team_scratch(0), S, R), rc(member.team_scratch(0), S, R);
      ValueScratch rd(member.team_scratch(0), S, R);
      FlagScratch flags(member.team_scratch(0), S, 2);
      solve_system(member, ls, t, s, active, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(rhs, s),
                   rows_of(x, s), ra, rb, rc, rd, flags, false);
    }
  }

  KOKKOS_INLINE_FUNCTION void solve_single_row(index_type s) const {
    const Matrix w = b(s, 0);
    const bool ok = thomas::impl::usable_pivot(w);
    const Value v = Value(rhs(s, 0)) / w;
    const bool finite = compat::isfinite(v);
    x(s, 0) = ok && finite ? v : compat::quiet_nan<Value>();
    if (status.data() != nullptr) status(s) = ok ? (finite ? 0 : -1) : 1;
  }

  /// Chunk elimination, interface PCR and chunk completion of local system ls (thread t of its
  /// P) with rows read through as..ds and written through xs. `reduced_aliases_rows`: the
  /// interface arrays ra..rd share storage with the rows, so every thread must be done reading
  /// its rows before any interface row is written.
  template <class Member, class AS, class BS, class CS, class DS, class XS>
  KOKKOS_INLINE_FUNCTION void solve_system(const Member& member, index_type ls, index_type t, index_type s,
                                           bool active, const AS& as, const BS& bs, const CS& cs, const DS& ds,
                                           const XS& xs, const MatrixScratch& ra, const MatrixScratch& rb,
                                           const MatrixScratch& rc, const ValueScratch& rd, const FlagScratch& flags,
                                           bool reduced_aliases_rows) const {
    if (active && t == 0) {
      flags(ls, 0) = INT_MAX;
      flags(ls, 1) = INT_MAX;
    }
    member.team_barrier();
    const index_type k0 = t * n / P, m = (t + 1) * n / P - k0;
    auto chunk = make_chunk(active ? s : 0, k0);
    int failed = 0, nonfinite = 0;
    if (active) failed = eliminate_chunk(chunk, n, k0, m, as, bs, cs, ds, nonfinite);
    if (reduced_aliases_rows) member.team_barrier();
    if (active) {
      store_interface_rows(chunk, m, ra, rb, rc, rd, ls, t);
      if (failed) Kokkos::atomic_fetch_min(&flags(ls, 0), failed);
      if (nonfinite) Kokkos::atomic_fetch_min(&flags(ls, 1), nonfinite);
    }
    member.team_barrier();
    using MRows = ScratchRows<MatrixScratch>;
    using VRows = ScratchRows<ValueScratch>;
    const ReducedSystem<MRows, VRows> reduced{MRows{ra, ls}, MRows{rb, ls}, MRows{rc, ls}, VRows{rd, ls}};
    const int reduced_failed = reduced_pcr(member, reduced, t, R, active);
    if (active && reduced_failed) {  // interface row r (1-based) is chunk q's first or last row
      const index_type r = reduced_failed - 1, q = r / 2;
      const index_type q0 = q * n / P, q1 = (q + 1) * n / P;
      Kokkos::atomic_fetch_min(&flags(ls, 0), static_cast<int>((r % 2 == 0 ? q0 : q1 - 1) + 1));
    }
    Value first = Value(0), last = Value(0);
    if (active) {
      first = rd(ls, 2 * t);
      last = rd(ls, 2 * t + 1);
    }
    member.team_barrier();
    if (active) {
      const int pivot_row = flags(ls, 0), nonfinite_row = flags(ls, 1);
      if (pivot_row == INT_MAX && nonfinite_row == INT_MAX) {
        finish_chunk(chunk, k0, m, first, last, xs);
      } else {
        for (index_type j = 0; j < m; ++j) xs(k0 + j) = compat::quiet_nan<Value>();
      }
      if (t == 0 && status.data() != nullptr)
        status(s) = pivot_row != INT_MAX ? pivot_row : nonfinite_row != INT_MAX ? -nonfinite_row : 0;
    }
  }
};

template <class ExecSpace, class Matrix, class Value, int StagePeriod, class MatrixBatch, class Rhs, class X,
          class Maker>
void launch(const ExecSpace& exec, const MatrixBatch& matrix, const Rhs& rhs, const X& x,
            const StatusView<typename ExecSpace::memory_space>& status, const Plan& p, const Maker& make_chunk) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const index_type nsys = matrix.systems(), n = matrix.rows();
  const index_type P = p.threads_per_system, S = p.systems_per_team, R = 2 * P;
  using Vector = typename MatrixBatch::vector_type;
  using Kernel = PartitionedKernel<ExecSpace, Matrix, Value, Vector, Vector, Vector, Rhs, X, Maker, StagePeriod>;
  const Kernel kernel{nsys, n, P, S, R, matrix.lower, matrix.diag, matrix.upper, rhs, x, status, make_chunk};
  const index_type league = (nsys + S - 1) / S;
  Policy policy(exec, static_cast<int>(league), p.team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(S, n, R)));
  Kokkos::parallel_for("tridiag::partitioned::solve", policy, kernel);
}

/// Register chunks of M rows, staged in scratch or not.
template <class ExecSpace, class Matrix, class Value, int M, class MatrixBatch, class Rhs, class X>
void launch_registers(const ExecSpace& exec, const MatrixBatch& matrix, const Rhs& rhs, const X& x,
                      const StatusView<typename ExecSpace::memory_space>& status, const Plan& p) {
  if (p.staged) {
    launch<ExecSpace, Matrix, Value, M>(exec, matrix, rhs, x, status, p, RegisterChunkMaker<Matrix, Value, M>{});
  } else {
    launch<ExecSpace, Matrix, Value, 0>(exec, matrix, rhs, x, status, p, RegisterChunkMaker<Matrix, Value, M>{});
  }
}

}  // namespace impl

/// Solves A x = rhs for every system of the batch with the partitioned algorithm. x may be rhs
/// (in place). Options choose the split (see plan()); the defaults follow the execution space.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {}, const Options& opts = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "partitioned::solve: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "partitioned::solve";
  tridiag::impl::check_solve_arguments(where, matrix, rhs, x, status);
  require(opts.threads_per_system >= 0 && opts.systems_per_team >= 0 && opts.rows_per_thread > 0, where,
          "options must be non-negative (rows_per_thread positive): threads_per_system=", opts.threads_per_system,
          ", systems_per_team=", opts.systems_per_team, ", rows_per_thread=", opts.rows_per_thread);
  require(opts.split_chunk_rows >= 3, where, "split_chunk_rows must be at least 3 (got ", opts.split_chunk_rows,
          "): shorter chunks would not shorten the interface system");
  const index_type nsys = matrix.systems(), n = matrix.rows();
  if (nsys == 0 || n == 0) return;
  const Plan p = plan(exec, nsys, n, opts, 3 * sizeof(MatrixScalar) + sizeof(RhsScalar));
  if (p.split) {
    impl::split_solve(exec, matrix, rhs, x, status, opts.split_chunk_rows,
                      [&](const auto& reduced, const auto& reduced_rhs, const auto& reduced_x, const auto& reduced_status) {
                        solve(exec, reduced, reduced_rhs, reduced_x, reduced_status, opts);
                      });
    return;
  }
  {
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const int max_team =
        Policy(exec, 1, 1)
            .team_size_max(impl::EmptyTeamKernel{}, Kokkos::ParallelForTag());
    require(p.team_size <= max_team, where, p.threads_per_system, " threads per system x ", p.systems_per_team,
            " systems per team = ", p.team_size, " threads, more than the ", max_team,
            " a team can have on this execution space");
  }
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  if (p.register_rows == 8) {
    impl::launch_registers<ExecSpace, Matrix, Value, 8>(exec, matrix, rhs, x, status, p);
  } else if (p.register_rows == 16) {
    impl::launch_registers<ExecSpace, Matrix, Value, 16>(exec, matrix, rhs, x, status, p);
  } else {
    using Work = BatchVector<Matrix, Layout, MemorySpace>;
    const Layout map(nsys, n);
    const auto alpha = allocate_uninitialized<Work>("tridiag::partitioned::alpha", map);
    const auto gamma = allocate_uninitialized<Work>("tridiag::partitioned::gamma", map);
    impl::launch<ExecSpace, Matrix, Value, 0>(
        exec, matrix, rhs, x, status, p,
        impl::WorkspaceChunkMaker<Work, std::remove_cv_t<std::remove_reference_t<decltype(x)>>>{alpha, gamma, x});
  }
}

}  // namespace tridiag::partitioned

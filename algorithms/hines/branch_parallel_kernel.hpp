#pragma once
// Kernel of algo::BranchParallel (hines_solve.hpp): a team per neuron, whose threads share out
// the sections of one level of the tree at a time (branch_schedule.hpp), so that a batch of
// large cells keeps many more threads busy than one thread per neuron does.
//
// The elimination is written as a "pull": row i, once all its children are done, starts from
// d(i) and rhs(i) and subtracts each child's contribution in decreasing child order, which is
// exactly what the sequential sweep (serial_hines.hpp) computes for row i, in the same order and
// the same arithmetic: results and status codes are bitwise those of algo::PerNeuron.
//
// Where the neuron's rows live while the team works on them is a template parameter (Staging,
// branch_parallel_rows.hpp): global memory (algo::BranchParallel), or team scratch filled and
// emptied by the whole team with neighbouring threads on neighbouring rows
// (algo::StagedBranchParallel). The sweeps are the same code on the same values either way.
// Who solves a neuron is another (branch_parallel_crew.hpp): the whole team, or, for several
// small neurons per team, the vector lanes of one team thread.

#include <Kokkos_Core.hpp>
#include <climits>
#include <cstddef>
#include <tridiag/algorithms/hines/branch_parallel_crew.hpp>
#include <tridiag/algorithms/hines/branch_parallel_rows.hpp>
#include <tridiag/algorithms/hines/serial_hines.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>
#include <type_traits>

namespace tridiag::hines::impl {

/// Team scratch (bytes) a BranchParallel team takes per neuron for a batch of `rows` rows: the
/// neuron's four status flags and, for a staged kernel, its staged rows (Matrix: w's scalar,
/// Value: x's).
template <Staging Where, class Matrix, class Value, class ScratchSpace>
KOKKOS_INLINE_FUNCTION std::size_t branch_parallel_scratch_bytes(index_type rows) {
  return ScratchSpace::align(4 * sizeof(int)) + NeuronStaging<Where, Matrix, Value, ScratchSpace>::bytes(rows);
}

/// SeveralPerTeam: a team holds neurons_per_team neurons, each solved by the vector lanes of one
/// team thread (VectorCrew); else one neuron per team, solved by the whole team (TeamCrew).
template <class Schedule, class Operands, class Flags, Staging Where = Staging::none, bool SeveralPerTeam = false>
struct BranchParallelKernel {
  using Matrix = typename decltype(Operands::w)::value_type;
  using Value = typename decltype(Operands::x)::value_type;
  using NeuronRows = NeuronStaging<Where, Matrix, Value, typename Flags::memory_space>;
  enum Flag { tree_pivot, bad_rhs, bad_x, pad_pivot };

  Schedule schedule;
  Operands op;
  index_type systems;
  int neurons_per_team = 1;  ///< with SeveralPerTeam
  /// false: pad rows (i >= the neuron's size) are neither read nor written (the option of
  /// algo::BranchParallel and StagedBranchParallel).
  bool solve_padding = true;

  /// Team scratch (bytes) per neuron.
  KOKKOS_INLINE_FUNCTION static std::size_t neuron_bytes(index_type rows) {
    return branch_parallel_scratch_bytes<Where, Matrix, Value, typename Flags::memory_space>(rows);
  }

  /// Leaves-to-root elimination of section j (last row first). A section's last row has no
  /// child or several (heads of deeper sections, eliminated before), found in the child tables;
  /// every other row has exactly one, the row below it in the section, whose entries the loop
  /// still holds in registers: the same operands as stored, so the same bits, without the table
  /// lookups and the round trip through memory on the chain of dependent rows.
  template <class Rows>
  struct Eliminate {
    const BranchParallelKernel& k;
    int m;
    Rows r;
    Flags flags;
    /// Row i reduced (pivot wi, eliminated right-hand side xi): stored scaled by its pivot, as
    /// SerialHines stores it (serial_hines.hpp), the scaled values returned in ci and ri (ci
    /// only for a row with a parent: a root's a(i) is not read).
    KOKKOS_INLINE_FUNCTION void finish(int i, bool has_parent, Matrix wi, Value xi, Matrix& ci, Value& ri) const {
      if (!impl::usable_pivot(wi)) Kokkos::atomic_fetch_max(&flags(tree_pivot), i);
      ri = xi / wi;
      r.x(i) = ri;
      if (has_parent) {
        ci = r.a(i) / wi;
        r.w(i) = ci;
      }
    }
    KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
      const auto& sc = k.schedule;
      const int begin = sc.section_begin(m, j), end = sc.section_begin(m, j + 1);
      int i = sc.order(m, end - 1);
      Matrix wi = r.d(i);
      Value xi = r.rhs(i);
      if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_rhs), i);
      for (int e = sc.child_begin(m, i); e < sc.child_begin(m, i + 1); ++e) {
        const int c = sc.children(m, e);
        const Matrix bc = r.b(c);
        wi -= bc * r.w(c);
        xi -= bc * r.x(c);
      }
      Matrix ci{};
      Value ri{};
      finish(i, end - 1 > begin || k.op.parent(m, i) >= 0, wi, xi, ci, ri);
      for (int q = end - 2; q >= begin; --q) {
        const int c = i;  // the only child of the next row up, its scaled entries in ci, ri
        i = sc.order(m, q);
        wi = r.d(i);
        xi = r.rhs(i);
        if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_rhs), i);
        const Matrix bc = r.b(c);
        wi -= bc * ci;
        xi -= bc * ri;
        finish(i, q > begin || k.op.parent(m, i) >= 0, wi, xi, ci, ri);
      }
    }
  };

  /// Root-to-leaves substitution of section j (first row first). The first row's parent (if
  /// any) is in a shallower section, solved before; every other row's is the row above it in
  /// the section, whose solution the loop holds in a register.
  template <class Rows>
  struct Substitute {
    const BranchParallelKernel& k;
    int m;
    Rows r;
    Flags flags;
    KOKKOS_INLINE_FUNCTION void finish(int i, Value xi) const {
      if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_x), i);
      r.x(i) = xi;
    }
    KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
      const auto& sc = k.schedule;
      const int begin = sc.section_begin(m, j), end = sc.section_begin(m, j + 1);
      int i = sc.order(m, begin);
      const int p = k.op.parent(m, i);
      Value xi = r.x(i);
      if (p >= 0) xi -= r.w(i) * r.x(p);
      finish(i, xi);
      for (int q = begin + 1; q < end; ++q) {
        const Value xp = xi;  // the parent's solution
        i = sc.order(m, q);
        xi = r.x(i);
        xi -= r.w(i) * xp;
        finish(i, xi);
      }
    }
  };

  /// Pad rows: diagonal rows, as SerialHines solves them.
  template <class Rows>
  struct Pad {
    Rows r;
    Flags flags;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type i) const {
      const Matrix di = r.d(i);
      if (!impl::usable_pivot(di)) Kokkos::atomic_fetch_min(&flags(pad_pivot), static_cast<int>(i));
      const Value ri = r.rhs(i);
      if (!compat::isfinite(ri)) Kokkos::atomic_fetch_min(&flags(bad_rhs), static_cast<int>(i));
      const Value xi = ri / di;
      if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_x), static_cast<int>(i));
      r.x(i) = xi;
    }
  };

  struct ResetFlags {
    Flags flags;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type) const {
      flags(tree_pivot) = -1;
      flags(bad_rhs) = INT_MAX;
      flags(bad_x) = INT_MAX;
      flags(pad_pivot) = INT_MAX;
    }
  };

  struct WriteStatus {
    const Operands& op;
    index_type s;
    int code;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type) const { op.status(s) = code; }
  };

  /// Neuron s, solved by the threads of `crew`, in neuron_bytes(op.rows) of team scratch.
  template <class Crew>
  KOKKOS_INLINE_FUNCTION void solve_neuron(const Crew& crew, index_type s, char* scratch) const {
    const int m = op.ids.data() != nullptr ? op.ids(s) : 0;
    const index_type n = op.sizes(m);
    const Flags flags(reinterpret_cast<int*>(scratch), 4);
    crew.for_each(index_type(0), index_type(1), ResetFlags{flags});
    const index_type solved = solve_padding ? op.rows : n;  // rows read and written
    const auto r = NeuronRows::load(crew, scratch + Flags::memory_space::align(4 * sizeof(int)), op, s, n, solved);
    using Rows = std::remove_const_t<decltype(r)>;
    crew.sync();  // the flags set, the staged rows in scratch
    const int levels = schedule.levels(m);
    for (int l = levels - 1; l >= 0; --l) {
      crew.for_each(schedule.level_begin(m, l), schedule.level_begin(m, l + 1), Eliminate<Rows>{*this, m, r, flags});
      crew.sync();
    }
    const bool tree_failed = flags(tree_pivot) >= 0;  // the sequential sweep stops here
    if (!tree_failed) {
      for (int l = 0; l < levels; ++l) {
        crew.for_each(schedule.level_begin(m, l), schedule.level_begin(m, l + 1), Substitute<Rows>{*this, m, r, flags});
        crew.sync();
      }
      if (solved > n) {
        crew.for_each(n, solved, Pad<Rows>{r, flags});
        crew.sync();
      }
    }
    int code = 0;
    if (tree_failed) {
      code = flags(tree_pivot) + 1;
    } else if (flags(pad_pivot) != INT_MAX) {
      code = flags(pad_pivot) + 1;
    } else if (flags(bad_rhs) != INT_MAX || flags(bad_x) != INT_MAX) {
      code = -((flags(bad_rhs) != INT_MAX ? flags(bad_rhs) : flags(bad_x)) + 1);
    }
    NeuronRows::store(crew, op, s, r, code, solved);
    if (op.status.data() != nullptr) crew.for_each(index_type(0), index_type(1), WriteStatus{op, s, code});
  }

  /// SeveralPerTeam: neuron first + t of the team, by the lanes of team thread t.
  template <class Member>
  struct NeuronOfTeam {
    const BranchParallelKernel& k;
    const Member& member;
    index_type first;
    char* scratch;
    std::size_t bytes;
    KOKKOS_INLINE_FUNCTION void operator()(const int t) const {
      k.solve_neuron(VectorCrew<Member>{member}, first + t, scratch + t * bytes);
    }
  };

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const std::size_t bytes = neuron_bytes(op.rows);
    if constexpr (SeveralPerTeam) {
      const index_type first = static_cast<index_type>(member.league_rank()) * neurons_per_team;
      const int count = static_cast<int>(systems - first < neurons_per_team ? systems - first : neurons_per_team);
      char* const scratch = static_cast<char*>(member.team_scratch(0).get_shmem(neurons_per_team * bytes));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, count), NeuronOfTeam<Member>{*this, member, first, scratch, bytes});
    } else {
      char* const scratch = static_cast<char*>(member.team_scratch(0).get_shmem(bytes));
      solve_neuron(TeamCrew<Member>{member}, member.league_rank(), scratch);
    }
  }
};

}  // namespace tridiag::hines::impl

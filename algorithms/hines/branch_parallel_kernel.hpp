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

#include <Kokkos_Core.hpp>
#include <climits>
#include <cstddef>
#include <tridiag/algorithms/hines/branch_parallel_rows.hpp>
#include <tridiag/algorithms/hines/serial_hines.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>
#include <type_traits>

namespace tridiag::hines::impl {

/// Team scratch (bytes) of a BranchParallel team for a batch of `rows` rows: its four status
/// flags and, for a staged kernel, its neuron's staged rows (Matrix: w's scalar, Value: x's).
template <Staging Where, class Matrix, class Value, class ScratchSpace>
std::size_t branch_parallel_scratch_bytes(index_type rows) {
  using Flags = Kokkos::View<int*, ScratchSpace, Kokkos::MemoryUnmanaged>;
  return Flags::shmem_size(4) + NeuronStaging<Where, Matrix, Value, ScratchSpace>::bytes(rows);
}

template <class Schedule, class Operands, class Flags, Staging Where = Staging::none>
struct BranchParallelKernel {
  using Matrix = typename decltype(Operands::w)::value_type;
  using Value = typename decltype(Operands::x)::value_type;
  using NeuronRows = NeuronStaging<Where, Matrix, Value, typename Flags::memory_space>;
  enum Flag { tree_pivot, bad_rhs, bad_x, pad_pivot };

  Schedule schedule;
  Operands op;

  static std::size_t scratch_bytes(index_type rows) {
    return branch_parallel_scratch_bytes<Where, Matrix, Value, typename Flags::memory_space>(rows);
  }

  /// Leaves-to-root elimination of section j (last row first).
  template <class Rows>
  struct Eliminate {
    const BranchParallelKernel& k;
    int m;
    Rows r;
    Flags flags;
    KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
      const auto& sc = k.schedule;
      for (int q = sc.section_begin(m, j + 1) - 1; q >= sc.section_begin(m, j); --q) {
        const int i = sc.order(m, q);
        Matrix wi = r.d(i);
        Value xi = r.rhs(i);
        if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_rhs), i);
        for (int e = sc.child_begin(m, i); e < sc.child_begin(m, i + 1); ++e) {
          const int c = sc.children(m, e);
          const Matrix factor = r.b(c) / r.w(c);
          wi -= factor * r.a(c);
          xi -= factor * r.x(c);
        }
        if (!impl::usable_pivot(wi)) Kokkos::atomic_fetch_max(&flags(tree_pivot), i);
        r.w(i) = wi;
        r.x(i) = xi;
      }
    }
  };

  /// Root-to-leaves substitution of section j (first row first).
  template <class Rows>
  struct Substitute {
    const BranchParallelKernel& k;
    int m;
    Rows r;
    Flags flags;
    KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
      const auto& sc = k.schedule;
      for (int q = sc.section_begin(m, j); q < sc.section_begin(m, j + 1); ++q) {
        const int i = sc.order(m, q);
        const int p = k.op.parent(m, i);
        Value xi = r.x(i);
        if (p >= 0) xi -= r.a(i) * r.x(p);
        xi /= r.w(i);
        if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_x), i);
        r.x(i) = xi;
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

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const index_type s = member.league_rank();
    const int m = op.ids.data() != nullptr ? op.ids(s) : 0;
    const index_type n = op.sizes(m);
    const Flags flags(member.team_scratch(0), 4);
    if (member.team_rank() == 0) {
      flags(tree_pivot) = -1;
      flags(bad_rhs) = INT_MAX;
      flags(bad_x) = INT_MAX;
      flags(pad_pivot) = INT_MAX;
    }
    const auto r = NeuronRows::load(member, op, s, n);
    using Rows = std::remove_const_t<decltype(r)>;
    member.team_barrier();  // the flags set, the staged rows in scratch
    const int levels = schedule.levels(m);
    for (int l = levels - 1; l >= 0; --l) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, schedule.level_begin(m, l), schedule.level_begin(m, l + 1)),
                           Eliminate<Rows>{*this, m, r, flags});
      member.team_barrier();
    }
    const bool tree_failed = flags(tree_pivot) >= 0;  // the sequential sweep stops here
    if (!tree_failed) {
      for (int l = 0; l < levels; ++l) {
        Kokkos::parallel_for(
            Kokkos::TeamThreadRange(member, schedule.level_begin(m, l), schedule.level_begin(m, l + 1)),
            Substitute<Rows>{*this, m, r, flags});
        member.team_barrier();
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n, op.rows), Pad<Rows>{r, flags});
      member.team_barrier();
    }
    int code = 0;
    if (tree_failed) {
      code = flags(tree_pivot) + 1;
    } else if (flags(pad_pivot) != INT_MAX) {
      code = flags(pad_pivot) + 1;
    } else if (flags(bad_rhs) != INT_MAX || flags(bad_x) != INT_MAX) {
      code = -((flags(bad_rhs) != INT_MAX ? flags(bad_rhs) : flags(bad_x)) + 1);
    }
    NeuronRows::store(member, op, s, r, code);
    if (member.team_rank() == 0 && op.status.data() != nullptr) op.status(s) = code;
  }
};

}  // namespace tridiag::hines::impl

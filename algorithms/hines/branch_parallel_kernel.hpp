#pragma once
// Kernel of algo::BranchParallel (hines_solve.hpp): a team per neuron, whose threads share out
// the sections of one level of the tree at a time (branch_schedule.hpp), so that a batch of
// large cells keeps many more threads busy than one thread per neuron does.
//
// The elimination is written as a "pull": row i, once all its children are done, starts from
// d(i) and rhs(i) and subtracts each child's contribution in decreasing child order, which is
// exactly what the sequential sweep (serial_hines.hpp) computes for row i, in the same order and
// the same arithmetic: results and status codes are bitwise those of algo::PerNeuron.

#include <Kokkos_Core.hpp>
#include <climits>
#include <tridiag/algorithms/hines/serial_hines.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>
#include <type_traits>

namespace tridiag::hines::impl {

template <class Schedule, class Operands, class Flags>
struct BranchParallelKernel {
  using Matrix = typename decltype(Operands::w)::value_type;
  using Value = typename decltype(Operands::x)::value_type;
  enum Flag { tree_pivot, bad_rhs, bad_x, pad_pivot };

  Schedule schedule;
  Operands op;

  /// Leaves-to-root elimination of section j (last row first).
  struct Eliminate {
    const BranchParallelKernel& k;
    int m;
    index_type s;
    Flags flags;
    KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
      const auto& sc = k.schedule;
      for (int q = sc.section_begin(m, j + 1) - 1; q >= sc.section_begin(m, j); --q) {
        const int i = sc.order(m, q);
        Matrix wi = k.op.d(s, i);
        Value xi = k.op.rhs(s, i);
        if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_rhs), i);
        for (int e = sc.child_begin(m, i); e < sc.child_begin(m, i + 1); ++e) {
          const int c = sc.children(m, e);
          const Matrix factor = k.op.b(s, c) / k.op.w(s, c);
          wi -= factor * k.op.a(s, c);
          xi -= factor * k.op.x(s, c);
        }
        if (!impl::usable_pivot(wi)) Kokkos::atomic_fetch_max(&flags(tree_pivot), i);
        k.op.w(s, i) = wi;
        k.op.x(s, i) = xi;
      }
    }
  };

  /// Root-to-leaves substitution of section j (first row first).
  struct Substitute {
    const BranchParallelKernel& k;
    int m;
    index_type s;
    Flags flags;
    KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
      const auto& sc = k.schedule;
      for (int q = sc.section_begin(m, j); q < sc.section_begin(m, j + 1); ++q) {
        const int i = sc.order(m, q);
        const int p = k.op.parent(m, i);
        Value xi = k.op.x(s, i);
        if (p >= 0) xi -= k.op.a(s, i) * k.op.x(s, p);
        xi /= k.op.w(s, i);
        if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_x), i);
        k.op.x(s, i) = xi;
      }
    }
  };

  /// Pad rows: diagonal rows, as SerialHines solves them.
  struct Pad {
    const BranchParallelKernel& k;
    index_type s;
    Flags flags;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type i) const {
      const Matrix di = k.op.d(s, i);
      if (!impl::usable_pivot(di)) Kokkos::atomic_fetch_min(&flags(pad_pivot), static_cast<int>(i));
      const Value ri = k.op.rhs(s, i);
      if (!compat::isfinite(ri)) Kokkos::atomic_fetch_min(&flags(bad_rhs), static_cast<int>(i));
      const Value xi = ri / di;
      if (!compat::isfinite(xi)) Kokkos::atomic_fetch_min(&flags(bad_x), static_cast<int>(i));
      k.op.x(s, i) = xi;
    }
  };

  struct Poison {
    const BranchParallelKernel& k;
    index_type s;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type i) const { k.op.x(s, i) = compat::quiet_nan<Value>(); }
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
    member.team_barrier();
    const int levels = schedule.levels(m);
    for (int l = levels - 1; l >= 0; --l) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, schedule.level_begin(m, l), schedule.level_begin(m, l + 1)),
                           Eliminate{*this, m, s, flags});
      member.team_barrier();
    }
    const bool tree_failed = flags(tree_pivot) >= 0;  // the sequential sweep stops here
    if (!tree_failed) {
      for (int l = 0; l < levels; ++l) {
        Kokkos::parallel_for(
            Kokkos::TeamThreadRange(member, schedule.level_begin(m, l), schedule.level_begin(m, l + 1)),
            Substitute{*this, m, s, flags});
        member.team_barrier();
      }
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n, op.rows), Pad{*this, s, flags});
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
    if (code != 0) Kokkos::parallel_for(Kokkos::TeamThreadRange(member, index_type(0), op.rows), Poison{*this, s});
    if (member.team_rank() == 0 && op.status.data() != nullptr) op.status(s) = code;
  }
};

}  // namespace tridiag::hines::impl

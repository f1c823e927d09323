#pragma once
// Kernel of algo::SubtreeParallel (hines_solve.hpp): several thread groups per neuron, each
// thread still on one neuron at a time, so that every global access of an interleaved layout
// stays coalesced. A team of G x lanes threads solves one or several blocks of `lanes`
// consecutive neurons (lanes = 32 on a GPU: a group is a warp, lane l of each of a block's warps
// on the block's neuron l; 1 on host spaces), the team's unit of its SubtreeTeamPlan
// (subtree_team_plan.hpp): blocks cut for g groups, each walked by min(g, G) of the team's groups.
// Per neuron (subtree_partition.hpp gives the rows and levels):
//   1. level after level, each group eliminates its cut subtrees of the level (all rows but
//      their roots), rows in decreasing order, exactly as SerialHines does
//      (impl::HinesElimination, serial_hines.hpp); a barrier after each level;
//   2. group 0 eliminates the trunk (what the levels left, down to the roots), then substitutes it
//      (roots first); barrier. With split_trunks, a morphology whose partition holds a split
//      trunk (split_trunk.hpp) has it solved by all the groups instead, in passes separated by
//      barriers (which every team holding such a morphology takes, SubtreeUnitFields::split_trunk);
//   3. level after level, the last first, each group substitutes its cut subtrees of the level,
//      rows in increasing order, and at level 0 its share of the pad rows; a barrier after each;
//   4. group 0 combines the failures the groups found into SerialHines' status code and, for a
//      failed neuron, writes NaN over its x.
// Every parent is reduced by its children in decreasing child order, with the same operations as
// the sequential sweep: results and status codes are bitwise those of algo::PerNeuron (a split
// trunk: results within rounding, status codes the same; split_trunk.hpp).
//
// Failures: each group stops eliminating a level at its first (highest) failing pivot, starts the
// next level afresh, and reports the highest after the sweep; the highest over groups is the
// sequential sweep's (a row's pivot depends only on the rows of its subtree, all above it: no row
// above the sequential sweep's failing row fails, and that row is reached and fails). Rows the
// sweeps compute after a failure are garbage, overwritten by NaN in step 4. The lowest non-finite
// rhs and x rows are minima over the groups. Barriers are reached by every thread of the team,
// whatever its neuron (a lane past the end of the batch walks nothing).
//
// A team may have fewer groups than the partition (host spaces, or the space's team size limit):
// group g then also walks the partition's groups g + G, g + 2 G, ... (G groups), in turn, with
// the same results. A unit of a split block (a block of several morphologies in a grouped batch,
// subtree_team_plan.hpp) leaves the lanes of the block's other morphologies idle: their units
// solve them.

#include <Kokkos_Core.hpp>
#include <climits>
#include <cstddef>
#include <tridiag/algorithms/hines/serial_hines.hpp>
#include <tridiag/algorithms/hines/split_trunk.hpp>
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <tridiag/algorithms/hines/subtree_team_plan.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::hines::impl {

template <class Partition, class Operands, class Units>
struct SubtreeParallelKernel {
  using Matrix = typename decltype(Operands::w)::value_type;
  using Value = typename decltype(Operands::x)::value_type;
  enum Flag { tree_pivot, bad_rhs, bad_x, pad_pivot, flag_count };
  /// Pad rows a group loads at once (step 3).
  static constexpr int pad_rows_in_flight = 4;

  Partition part;  ///< the plan's partitions, stacked (SubtreeTeamPlan::cut)
  Units units;     ///< per team: SubtreeTeamPlan::units
  Operands op;
  index_type systems;
  int lanes;           ///< neurons per block (32 on a GPU, 1 on host spaces)
  bool solve_padding;  ///< algo::SubtreeParallel::solve_padding
  bool split_trunks;   ///< the partition may hold split trunks (SubtreeTeamPlan::splits; before the plan, split_path > 0)

  /// A neuron's failure flags in team scratch (flag f of lane l of the team's block j at
  /// (j * flag_count + f) * lanes + l).
  struct LaneFlags {
    int* first;
    int lanes;
    KOKKOS_FORCEINLINE_FUNCTION int& operator()(Flag f) const { return first[f * lanes]; }
  };

  /// Team scratch (bytes): the failure flags of the team's neurons, up to `blocks` blocks, and
  /// with split trunks 4 doubles per lane and segment (split_trunk_solve) after them.
  /// (KOKKOS_INLINE_FUNCTION: the kernel calls them too.)
  KOKKOS_INLINE_FUNCTION static std::size_t flag_bytes(int lanes, int blocks) {
    return (static_cast<std::size_t>(lanes) * blocks * flag_count * sizeof(int) + 7) / 8 * 8;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int lanes, int blocks, bool split = false) {
    const int segments = blocks > split_trunk_max_segments ? blocks : split_trunk_max_segments;
    return flag_bytes(lanes, blocks) + (split ? static_cast<std::size_t>(lanes) * segments * 4 * sizeof(double) : 0);
  }

  /// Step 2 for a split trunk (split_trunk.hpp: the passes and the table), for the neuron of this
  /// thread (split: it has one) and its group; every thread of the team calls it and takes its
  /// barriers. seg: this lane's segment values in team scratch (4 doubles per segment, stride
  /// lanes).
  template <class Member, class Links, class A, class B, class D, class R, class XRows, class WRows>
  KOKKOS_INLINE_FUNCTION void split_trunk_solve(const Member& member, bool split, int group, int group_count, int pm,
                                                index_type n, double* seg, const LaneFlags& flag, const Links& links,
                                                const A& a, const B& b, const D& d, const R& rhs, const XRows& x,
                                                const WRows& w) const {
    auto S = [&](int k, int slot) -> double& { return seg[(k * 4 + slot) * lanes]; };
    const int E = split ? part.trunk(pm, 0) : 0;
    const int L = split ? part.trunk(pm, 1) : 0;
    const int K = split ? part.trunk(pm, 2) : 0;
    auto begin = [&](int k) { return part.trunk(pm, 3 + k); };
    auto entry = [&](int i) { return part.trunk(pm, 4 + K + i); };
    auto path_entry = [&](int j) { return part.trunk(pm, 4 + K + E + j); };
    auto lo = [&](int k) { return split_trunk_lo(L, K, k); };
    // A path row's partial entries: w, x where it has children off the path, else d, rhs (raw).
    auto partial_w = [&](int e) -> double { return (e & 1) ? w(e >> 1) : d(e >> 1); };
    auto partial_x = [&](int e) -> double { return (e & 1) ? x(e >> 1) : rhs(e >> 1); };
    struct PathRow {
      index_type r = 0;
      double a = 0, b = 0, w = 0, x = 0;
      int parent_entry = 1;
    };
    // Elimination direction: row j's a and b, its parent's (path row j - 1) partial entries.
    auto up = [&](int j, int last) {
      PathRow f;
      if (j >= last && j >= 0) {
        f.r = path_entry(j) >> 1;
        f.a = a(f.r);
        f.b = b(f.r);
        if (j > 0) {
          f.parent_entry = path_entry(j - 1);
          f.w = partial_w(f.parent_entry);
          f.x = partial_x(f.parent_entry);
        }
      }
      return f;
    };
    // Pass C: the row's own 1 / W, its a and b, its parent's partial rhs.
    auto own = [&](int j, int last) {
      PathRow f;
      if (j >= last && j >= 0) {
        f.r = path_entry(j) >> 1;
        f.a = a(f.r);
        f.b = b(f.r);
        f.w = w(f.r);
        if (j > 0) f.x = partial_x(path_entry(j - 1));
      }
      return f;
    };
    // Substitution direction: the row's own c and r (then x).
    auto down = [&](int j, int last) {
      PathRow f;
      if (j <= last) {
        f.r = path_entry(j) >> 1;
        f.w = w(f.r);
        f.x = x(f.r);
      }
      return f;
    };
    // Rows first..last (step +-1), the loads of the next two issued before the current row's
    // arithmetic and stores.
    auto walk = [&](int first, int last, int step, auto fetch, auto body) {
      if ((last - first) * step < 0) return;
      PathRow f0 = fetch(first, last), f1 = fetch(first + step, last);
      for (int j = first;; j += step) {
        const PathRow f2 = fetch(j + 2 * step, last);
        body(j, f0);
        if (j == last) break;
        f0 = f1;
        f1 = f2;
      }
    };
    // Group 0 chains the segments' maps between two barriers: after every segment composed its
    // own, before any segment uses what enters it.
    auto chain = [&](auto link) {
      member.team_barrier();
      if (split && group == 0) link();
      member.team_barrier();
    };
    // What enters segment k (S(k, 3)) through the affine maps v -> S(k, 1) + S(k, 2) v, from v
    // entering segment `first`, over first, first + step, .., last.
    auto affine_chain = [&](double v, int first, int last, int step) {
      for (int k = first; k != last + step; k += step) {
        S(k, 3) = v;
        v = S(k, 1) + S(k, 2) * v;
      }
    };
    index_type bad_rhs_row = INT_MAX, bad_x_row = INT_MAX;
    auto check_rhs = [&](double v, index_type row) {
      if (!compat::isfinite(v) && row < bad_rhs_row) bad_rhs_row = row;
    };
    // Substitutes path rows first..last from v, the x of the row above `first` (none for a root,
    // path row 0); returns the x of `last`.
    auto substitute = [&](int first, int last, double v) {
      walk(first, last, 1, down, [&](int j, const PathRow& f) {
        double xv = f.x;
        if (j > 0) xv -= f.w * v;
        if (!compat::isfinite(xv) && f.r < bad_x_row) bad_x_row = f.r;
        x(f.r) = static_cast<Value>(xv);
        v = xv;
      });
      return v;
    };
    if (split)  // twigs: each group's, into its path rows
      for (int k = group; k < K; k += group_count) {
        const int first = begin(k), end = begin(k + 1);
        int t = first;
        for (; t < end && entry(t) < 0; ++t) {
          const index_type r = -entry(t) - 1;
          w(r) = d(r);
          const Value v = rhs(r);
          check_rhs(v, r);
          x(r) = v;
        }
        HinesElimination<Matrix, Value, true> sweep(INT_MAX);
        for (int i = end - 1; i >= t; --i) {
          const index_type row = entry(i);
          if (!sweep.step(row, links(row), i > t ? entry(i - 1) : -1, a, b, d, rhs, x, w)) {
            Kokkos::atomic_fetch_max(&flag(tree_pivot), static_cast<int>(row));
            break;
          }
        }
        if (sweep.bad_rhs < bad_rhs_row) bad_rhs_row = sweep.bad_rhs;
      }
    member.team_barrier();
    if (split)  // A: each segment's Moebius map (al u + be) / (ga u + de) of the pivot u entering it
      for (int k = group; k < K; k += group_count) {
        const int l = lo(k), h = lo(k + 1);
        if (k == K - 1) {  // the bottom segment: its top pivot
          double pivot = partial_w(path_entry(L - 1));
          walk(L - 1, l + 1, -1, up, [&](int, const PathRow& f) { pivot = f.w - f.b * (f.a / pivot); });
          S(k, 0) = pivot;
        } else {
          const index_type rc = path_entry(h) >> 1;
          double al = partial_w(path_entry(h - 1)), be = -(a(rc) * b(rc)), ga = 1, de = 0;
          walk(h - 1, l + 1, -1, up, [&](int j, const PathRow& f) {
            const double ab = f.a * f.b;
            const double a2 = f.w * al - ab * ga, b2 = f.w * be - ab * de;
            ga = al;
            de = be;
            al = a2;
            be = b2;
            if ((j & 15) == 0) {  // the coefficients grow like the pivots' product
              const double scale = 1.0 / (a2 < 0 ? -a2 : a2);
              ga *= scale;
              de *= scale;
              al *= scale;
              be *= scale;
            }
          });
          S(k, 0) = al;
          S(k, 1) = be;
          S(k, 2) = ga;
          S(k, 3) = de;
        }
      }
    chain([&] {  // the pivots entering the segments, bottom up: S(k, 0)
      double u = S(K - 1, 0);
      for (int k = K - 2; k >= 0; --k) {
        const double al = S(k, 0), be = S(k, 1), ga = S(k, 2), de = S(k, 3);
        S(k, 0) = u;
        u = (al * u + be) / (ga * u + de);
      }
    });
    if (split)  // B: the pivots W (w = 1 / W), the rhs as sigma + tau X_in
      for (int k = group; k < K; k += group_count) {
        const int l = lo(k), h = lo(k + 1);
        const int e = path_entry(h - 1);
        double pivot = partial_w(e), sig = partial_x(e), tau = 0;
        if ((e & 1) == 0) check_rhs(sig, e >> 1);
        if (k < K - 1) {
          const double u = S(k, 0);
          const index_type rc = path_entry(h) >> 1;
          pivot -= b(rc) * (a(rc) / u);
          tau = -(b(rc) / u);
        }
        index_type failed = -1;
        walk(h - 1, l, -1, up, [&](int j, const PathRow& f) {
          if (!usable_pivot(static_cast<Matrix>(pivot)) && failed < 0) failed = f.r;  // the segment's highest
          const double rcp = 1.0 / pivot;
          if (j > l) {
            if ((f.parent_entry & 1) == 0) check_rhs(f.x, f.parent_entry >> 1);
            const double br = f.b * rcp;
            sig = f.x - br * sig;
            tau = -br * tau;
            pivot = f.w - f.b * (f.a * rcp);
          }
          w(f.r) = static_cast<Matrix>(rcp);
        });
        if (failed >= 0) Kokkos::atomic_fetch_max(&flag(tree_pivot), static_cast<int>(failed));
        S(k, 1) = sig;
        S(k, 2) = tau;
      }
    chain([&] { affine_chain(S(K - 1, 1), K - 2, 0, -1); });  // the rhs entering the segments, bottom up
    if (split)  // C: r = X / W and c = a / W, where the sequential sweep leaves them
      for (int k = group; k < K; k += group_count) {
        const int l = lo(k), h = lo(k + 1);
        double carried = partial_x(path_entry(h - 1));
        if (k < K - 1) carried -= b(path_entry(h) >> 1) * (S(k, 3) / S(k, 0));
        walk(h - 1, l, -1, own, [&](int j, const PathRow& f) {
          const double r = carried * f.w;
          if (j > l) carried = f.x - f.b * r;
          x(f.r) = static_cast<Value>(r);
          if (j > 0) w(f.r) = static_cast<Matrix>(f.a * f.w);
        });
      }
    member.team_barrier();
    if (split)  // D: segment 0 substitutes; the others compose x = mu + nu x_in
      for (int k = group; k < K; k += group_count) {
        const int l = lo(k), h = lo(k + 1);
        if (k == 0) {
          S(0, 0) = substitute(0, h - 1, 0);
        } else {
          double mu = 0, nu = 1;
          walk(l, h - 1, 1, down, [&](int, const PathRow& f) {
            mu = f.x - f.w * mu;
            nu = -f.w * nu;
          });
          S(k, 1) = mu;
          S(k, 2) = nu;
        }
      }
    chain([&] { affine_chain(S(0, 0), 1, K - 1, 1); });  // the x entering the segments, top down
    if (split)  // E, then the segment's twigs
      for (int k = group; k < K; k += group_count) {
        const int l = lo(k), h = lo(k + 1);
        if (k > 0) substitute(l, h - 1, S(k, 3));
        index_type previous_row = -1;
        Value previous{};
        for (int i = begin(k); i < begin(k + 1); ++i) {
          if (entry(i) < 0) continue;
          const index_type row = entry(i);
          const Value xi = hines_substitute(row, TreeLinks::parent(links(row)), previous_row, previous, x, w, n);
          if (!compat::isfinite(xi) && row < bad_x_row) bad_x_row = row;
          x(row) = xi;
          previous = xi;
          previous_row = row;
        }
      }
    if (bad_rhs_row < INT_MAX) Kokkos::atomic_fetch_min(&flag(bad_rhs), static_cast<int>(bad_rhs_row));
    if (bad_x_row < INT_MAX) Kokkos::atomic_fetch_min(&flag(bad_x), static_cast<int>(bad_x_row));
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const int rank = member.team_rank();
    const int team_groups = member.team_size() / lanes;
    // The team's unit: `blocks` blocks cut for `groups` groups, each walked by group_count groups;
    // its partition is the rows row0 + m of `part`, `levels` levels.
    const int league_rank = member.league_rank();
    using Unit = SubtreeUnitFields;
    const int first_block = units(league_rank, Unit::first_block), blocks = units(league_rank, Unit::blocks);
    const int groups = units(league_rank, Unit::groups_per_neuron), row0 = units(league_rank, Unit::partition_row);
    const int group_count = groups < team_groups ? groups : team_groups;
    const int lane = rank % lanes, team_group = rank / lanes;
    const int block = team_group / group_count, group = team_group % group_count;
    char* const scratch =
        static_cast<char*>(member.team_scratch(0).get_shmem(scratch_bytes(lanes, team_groups, split_trunks)));
    int* const flags = reinterpret_cast<int*>(scratch);
    const LaneFlags flag{flags + (block * flag_count) * lanes + lane, lanes};
    const index_type s = static_cast<index_type>(first_block + block) * lanes + lane;
    // Spare threads: a team size not a multiple of lanes, a unit of fewer blocks than fit, the
    // batch's end, and in a unit of a split block (subtree_team_plan.hpp) the lanes of the block's
    // other morphologies, which other units solve.
    const bool in_batch = team_group < team_groups && block < blocks && s < systems;
    const int lane_morphology = in_batch && op.ids.data() != nullptr ? op.ids(s) : 0;
    const int only = units(league_rank, Unit::morphology);
    const bool active = in_batch && (only < 0 || lane_morphology == only);
    const index_type neuron = active ? s : 0;  // storage slot whose rows this thread walks
    const int m = active ? lane_morphology : 0;
    const int pm = row0 + m;  // the neuron's partition
    const index_type n = active ? op.sizes(m) : 0;
    const index_type solved = solve_padding ? op.rows : n;  // rows of the neuron's system
    const auto links = op.link_rows(m);
    // Every vector has a's shape (hines::solve checked): through one copy of its mapping the six
    // arrays' row offsets are one computation where the layout allows it (core/batch_vector.hpp
    // rows_of(v, s, map); UnifiedVector keeps each vector's own). Measured on the H100
    // (docs/performance.md): the six classes grouped at 25,600 neurons 0.606 -> 0.587 ms;
    // PerNeuron, whose kernel got slower with it at 256,000 neurons (BG001 4.93 -> 5.33 ms), keeps
    // rows_of.
    const auto map = op.a.mapping();
    const auto a = rows_of(op.a, neuron, map);
    const auto b = rows_of(op.b, neuron, map);
    const auto d = rows_of(op.d, neuron, map);
    const auto rhs = rows_of(op.rhs, neuron, map);
    const auto x = rows_of(op.x, neuron, map);
    const auto w = rows_of(op.w, neuron, map);
    if (active && group == 0) {
      flag(tree_pivot) = -1;
      flag(bad_rhs) = INT_MAX;
      flag(bad_x) = INT_MAX;
      flag(pad_pivot) = INT_MAX;
    }

    // 1. The cut subtrees, level after level, each group its runs (decreasing), each level up to
    // its first failing pivot.
    index_type failed = -1, lowest_bad_rhs = INT_MAX;
    for (int level = 0; level < units(league_rank, Unit::levels); ++level) {
      if (active) {
        for (int k = group; k < groups; k += group_count) {
          const int slot = level * groups + k;
          HinesElimination<Matrix, Value, true> sweep(INT_MAX);
          bool ok = true;
          for (int j = part.run_begin(pm, slot); ok && j < part.run_begin(pm, slot + 1); ++j) {
            const index_type first = part.runs(pm, 2 * j), last = part.runs(pm, 2 * j + 1);
            for (index_type i = last; i >= first; --i) {
              if (!sweep.step(i, links(i), i > first ? i - 1 : -1, a, b, d, rhs, x, w)) {
                if (i > failed) failed = i;
                ok = false;
                break;
              }
            }
          }
          if (sweep.bad_rhs < lowest_bad_rhs) lowest_bad_rhs = sweep.bad_rhs;
        }
      }
      member.team_barrier();  // the flags reset, the level's cut roots reduced
    }

    // 2. The trunk, by group 0; every group reports what step 1 found.
    if (active) {
      if (failed >= 0) Kokkos::atomic_fetch_max(&flag(tree_pivot), static_cast<int>(failed));
      if (lowest_bad_rhs < INT_MAX) Kokkos::atomic_fetch_min(&flag(bad_rhs), static_cast<int>(lowest_bad_rhs));
    }
    const bool split = split_trunks && active && part.trunk_size(pm) == split_trunk_marker;
    if (active && group == 0 && !split) {
      const int count = part.trunk_size(pm);
      HinesElimination<Matrix, Value, true> sweep(INT_MAX);
      for (int j = count - 1; j >= 0; --j) {
        const index_type i = part.trunk(pm, j);
        if (!sweep.step(i, links(i), j > 0 ? part.trunk(pm, j - 1) : -1, a, b, d, rhs, x, w)) {
          Kokkos::atomic_fetch_max(&flag(tree_pivot), static_cast<int>(i));
          break;
        }
      }
      if (sweep.bad_rhs < INT_MAX) Kokkos::atomic_fetch_min(&flag(bad_rhs), static_cast<int>(sweep.bad_rhs));
      // Substituted even after a failure (the solution is overwritten in step 4): no test on the
      // path of a healthy neuron.
      index_type bad = INT_MAX, previous_row = -1;
      Value previous{};
      for (int j = 0; j < count; ++j) {
        const index_type i = part.trunk(pm, j);
        const Value xi = hines_substitute(i, TreeLinks::parent(links(i)), previous_row, previous, x, w, n);
        if (bad == INT_MAX && !compat::isfinite(xi)) bad = i;
        x(i) = xi;
        previous = xi;
        previous_row = i;
      }
      if (bad < INT_MAX) Kokkos::atomic_fetch_min(&flag(bad_x), static_cast<int>(bad));
    }
    if (split_trunks && units(league_rank, Unit::split_trunk) != 0) {  // the same for the whole team
      double* const segments = reinterpret_cast<double*>(scratch + flag_bytes(lanes, team_groups));
      split_trunk_solve(member, split, group, group_count, pm, n, segments + (block * group_count) * 4 * lanes + lane,
                        flag, links, a, b, d, rhs, x, w);
    }
    member.team_barrier();  // the cut roots solved

    // 3. The cut subtrees, the last level first, each group its runs (increasing); at level 0
    // also the pad rows, shared out among the groups.
    index_type bad = INT_MAX, pad_failed = INT_MAX, pad_bad_rhs = INT_MAX;
    for (int level = units(league_rank, Unit::levels) - 1; level >= 0; --level) {
      if (active) {
        for (int k = group; k < groups; k += group_count) {
          const int slot = level * groups + k;
          index_type previous_row = -1;
          Value previous{};
          for (int j = part.run_begin(pm, slot + 1) - 1; j >= part.run_begin(pm, slot); --j) {
            const index_type first = part.runs(pm, 2 * j), last = part.runs(pm, 2 * j + 1);
            for (index_type i = first; i <= last; ++i) {
              const Value xi = hines_substitute(i, TreeLinks::parent(links(i)), previous_row, previous, x, w, n);
              if (!compat::isfinite(xi) && i < bad) bad = i;
              x(i) = xi;
              previous = xi;
              previous_row = i;
            }
          }
          if (level > 0) continue;
          // Padding: diagonal rows, as SerialHines solves them, pad_rows_in_flight rows' loads
          // issued before their divisions and stores (one row at a time, each store kept the next
          // row's loads waiting: a row per memory round trip, most of a small cell's time in a
          // batch padded to a large one).
          for (index_type first = n + k; first < solved; first += pad_rows_in_flight * groups) {
            Matrix dv[pad_rows_in_flight];
            Value rv[pad_rows_in_flight];
#pragma unroll
            for (int u = 0; u < pad_rows_in_flight; ++u) {
              const index_type i = first + u * groups;
              dv[u] = i < solved ? d(i) : Matrix(1);
              rv[u] = i < solved ? rhs(i) : Value(0);
            }
#pragma unroll
            for (int u = 0; u < pad_rows_in_flight; ++u) {
              const index_type i = first + u * groups;
              if (i >= solved) break;
              if (!impl::usable_pivot(dv[u]) && i < pad_failed) pad_failed = i;
              if (!compat::isfinite(rv[u]) && i < pad_bad_rhs) pad_bad_rhs = i;
              const Value xi = rv[u] / dv[u];
              if (!compat::isfinite(xi) && i < bad) bad = i;
              x(i) = xi;
            }
          }
        }
      }
      if (level == 0 && active) {
        if (bad < INT_MAX) Kokkos::atomic_fetch_min(&flag(bad_x), static_cast<int>(bad));
        if (pad_failed < INT_MAX) Kokkos::atomic_fetch_min(&flag(pad_pivot), static_cast<int>(pad_failed));
        if (pad_bad_rhs < INT_MAX) Kokkos::atomic_fetch_min(&flag(bad_rhs), static_cast<int>(pad_bad_rhs));
      }
      member.team_barrier();  // the level's rows written (after level 0: every failure reported)
    }

    // 4. The status, as SerialHines::invoke returns it.
    if (active && group == 0) {
      int code = status_code::ok;
      if (flag(tree_pivot) >= 0) {
        code = flag(tree_pivot) + 1;
      } else if (flag(pad_pivot) != INT_MAX) {
        code = flag(pad_pivot) + 1;
      } else if (flag(bad_rhs) != INT_MAX || flag(bad_x) != INT_MAX) {
        code = -((flag(bad_rhs) != INT_MAX ? flag(bad_rhs) : flag(bad_x)) + 1);
      }
      if (code != status_code::ok) poison_solution(solved, x);
      if (op.status.data() != nullptr) op.status(s) = code;
    }
  }
};

}  // namespace tridiag::hines::impl

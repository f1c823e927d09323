#pragma once
// The interface system of a system whose P = 64 threads are two warps (the partitioned solver's
// plan for 512-row double systems on a GPU), solved by the lower warp alone with shuffles.
//
// Why: with the system spread over two warps, ScratchExchange needs a team barrier for each of
// its 2 + 2 log2(64) exchanges and three more for the failure reduction: 15 barriers per team,
// measured 78% of copy bandwidth at 256,000 x 512 double against 83% for 256 rows (one warp per
// system, shuffles, no barrier; docs/performance.md). Here every thread publishes its chunk's two
// interface rows to team scratch (one barrier), lane j of the lower warp takes chunks 2j and 2j + 1,
// does their cyclic-reduction steps and one more (the even last unknowns eliminated), solves the
// remaining 32 rows by cyclic reduction with shuffles, and publishes the last unknowns and the system's failure
// codes (one barrier); every thread then solves its chunk's inner rows and flags an overflow there
// (one barrier: the two warps' chunks are known only to their own threads): three team barriers
// in all where the team scratch has room for the exchange beside the staging slabs, five where it
// must reuse them (one before, one after).
//
// Notation as interface_solve.hpp: chunk t's rows f_t, l_t; R_t the row of the last unknowns
// y_t = x(last_t) after the cyclic-reduction step. Lane j holds R_2j and R_2j+1; substituting
// y_2j (from R_2j) and y_2j+2 (from lane j + 1's R_2j+2) into R_2j+1 leaves a row in the odd
// unknowns y_2j-1, y_2j+1, y_2j+3: 32 rows, one per lane, coupled to neighbouring lanes as
// solve_reduced_rows expects. Then y_2j = R_2j.d - R_2j.a y_2j-1 - R_2j.c y_2j+1.

#include <Kokkos_Core.hpp>
#include <climits>
#include <tridiag/algorithms/partitioned/interface_solve.hpp>
#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/warp_shuffle.hpp>

namespace tridiag::partitioned::impl {

/// Threads per system this exchange serves: two warps.
inline constexpr int paired_warps_threads = 64;

/// b rounded up to a multiple of 16 (bytes). (KOKKOS_INLINE_FUNCTION: kernels call these too.)
KOKKOS_INLINE_FUNCTION constexpr std::size_t round16(std::size_t b) { return (b + 15) / 16 * 16; }

/// Bytes of one system's PairedWarpsArea for scalars of the given sizes (a multiple of 16).
KOKKOS_INLINE_FUNCTION constexpr std::size_t paired_warps_area_bytes(std::size_t matrix_bytes,
                                                                      std::size_t value_bytes) {
  return round16(4 * paired_warps_threads * matrix_bytes) + round16(3 * paired_warps_threads * value_bytes) +
         round16((3 * paired_warps_threads + 3) * sizeof(int));
}

/// One system's part of the team scratch: its threads' interface rows and failure candidates, then
/// the solved last unknowns and the system's failure codes (pivot row, non-finite row, and whether
/// an inner row overflowed).
template <class Matrix, class Value>
struct PairedWarpsArea {
  static constexpr int P = paired_warps_threads;
  Matrix *fa, *fc, *la, *lc;
  Value *fd, *ld, *y;
  int *chunk_pivot, *last_row, *bad_value, *system_codes;

  /// Bytes of one system's area (a multiple of 16).
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes() {
    return paired_warps_area_bytes(sizeof(Matrix), sizeof(Value));
  }
  KOKKOS_INLINE_FUNCTION explicit PairedWarpsArea(char* base) {
    fa = reinterpret_cast<Matrix*>(base);
    fc = fa + P;
    la = fc + P;
    lc = la + P;
    base += round16(4 * P * sizeof(Matrix));
    fd = reinterpret_cast<Value*>(base);
    ld = fd + P;
    y = ld + P;
    base += round16(3 * P * sizeof(Value));
    chunk_pivot = reinterpret_cast<int*>(base);
    last_row = chunk_pivot + P;
    bad_value = last_row + P;
    system_codes = bad_value + P;
  }
  KOKKOS_INLINE_FUNCTION InterfaceRow<Matrix, Value> first_row(int t) const { return {fa[t], fc[t], fd[t]}; }
  KOKKOS_INLINE_FUNCTION InterfaceRow<Matrix, Value> last_row_of(int t) const { return {la[t], lc[t], ld[t]}; }

};

/// What a thread gets back: its chunk's interface unknowns and its system's failure codes (1-based
/// rows, INT_MAX for none; `overflow` in nonfinite_row: a non-finite solution from finite inputs).
template <class Value>
struct PairedWarpsOutcome {
  Value x_first, x_last;
  int pivot_row, nonfinite_row;
};

/// Solves the interface system of the caller's system (threads t = 0 .. 63 of it; the lower warp
/// is t < 32). Every thread of the team calls it (team barriers), those without a system with
/// `in_system` false. owns: the thread has a chunk (else its rows are identity rows, all zero);
/// last_row: its chunk's last row, 1-based (reported when its interface row's pivot fails);
/// failed / nonfinite: its chunk elimination's codes (0: none). `overflow`: the code to report for
/// a non-finite interface solution or inner row from finite inputs. solve_inner(x_first, x_last):
/// solves the caller's inner rows (none where it owns no chunk), false when one is not finite.
template <class Member, class Matrix, class Value, class SolveInner>
KOKKOS_INLINE_FUNCTION PairedWarpsOutcome<Value> solve_interface_on_paired_warps(
    const Member& member, const PairedWarpsArea<Matrix, Value>& area, bool area_private, bool in_system, int t,
    bool owns, int last_row, int failed, int nonfinite, const ChunkEnds<Matrix, Value>& ends, int overflow,
    const SolveInner& solve_inner) {
  using Row = InterfaceRow<Matrix, Value>;
  const Row zero{Matrix(0), Matrix(0), Value(0)};
  // An area that aliases scratch the team used just before (staging) waits for it; one of its own
  // (area_private: the launch found room for it) needs neither this barrier nor the last.
  if (!area_private) member.team_barrier();
  if (in_system) {
    area.fa[t] = ends.first.a;
    area.fc[t] = ends.first.c;
    area.fd[t] = ends.first.d;
    area.la[t] = ends.last.a;
    area.lc[t] = ends.last.c;
    area.ld[t] = ends.last.d;
    area.chunk_pivot[t] = owns && failed ? failed : INT_MAX;
    area.last_row[t] = owns ? last_row : INT_MAX;
    area.bad_value[t] = owns && nonfinite ? nonfinite : INT_MAX;
  }
  member.team_barrier();
  if (in_system && t < 32) {
    const int j = t, even = 2 * j, odd = 2 * j + 1;
    // Rows are read from the area when needed rather than kept: registers are scarce here (the
    // chunk's coefficients stay live across the interface solve).
    bool even_failed = false, odd_failed = false;
    const Row r0 = reduce_row(area.last_row_of(even), area.first_row(even), area.first_row(odd), even_failed);
    const Row r1 = reduce_row(area.last_row_of(odd), area.first_row(odd),
                              odd + 1 < paired_warps_threads ? area.first_row(odd + 1) : zero, odd_failed);
    // The odd unknowns: R_2j+1 with y_2j and y_2j+2 substituted (R_2j+2 is lane j + 1's r0).
    Row r2{compat::shuffle_down(r0.a, 1), compat::shuffle_down(r0.c, 1), compat::shuffle_down(r0.d, 1)};
    if (j == 31) r2 = zero;
    Row q = reduce_row(r1, r0, r2, odd_failed);
    // The 32 odd rows, one per lane, by cyclic reduction over shuffles.
    const Value y_odd = solve_reduced_rows(ShuffleExchange{32}, j, 32, q, odd_failed);
    Value y_before = compat::shuffle_up(y_odd, 1);  // y_2j-1
    if (j == 0) y_before = Value(0);
    const Value y_even = r0.d - r0.a * y_before - r0.c * y_odd;
    area.y[even] = y_even;
    area.y[odd] = y_odd;
    // The system's codes: lowest pivot row and lowest non-finite row over both chunks (as
    // PartitionedKernel::solve_interface_with ranks them), reduced over the warp.
    int pivot = area.chunk_pivot[even] < area.chunk_pivot[odd] ? area.chunk_pivot[even] : area.chunk_pivot[odd];
    if (even_failed && area.last_row[even] < pivot) pivot = area.last_row[even];
    if (odd_failed && area.last_row[odd] < pivot) pivot = area.last_row[odd];
    int bad = area.bad_value[even] < area.bad_value[odd] ? area.bad_value[even] : area.bad_value[odd];
    const Row f0 = area.first_row(even), f1 = area.first_row(odd);
    const Value x_first_even = f0.d - f0.a * y_before - f0.c * y_even;
    const Value x_first_odd = f1.d - f1.a * y_even - f1.c * y_odd;
    const bool even_finite = compat::isfinite(x_first_even) && compat::isfinite(y_even);
    const bool odd_finite = compat::isfinite(x_first_odd) && compat::isfinite(y_odd);
    if (bad == INT_MAX && ((area.last_row[even] != INT_MAX && !even_finite) ||
                           (area.last_row[odd] != INT_MAX && !odd_finite)))
      bad = overflow;
    for (int k = 1; k < 32; k *= 2) {
      const int other_pivot = compat::shuffle_xor(pivot, k), other_bad = compat::shuffle_xor(bad, k);
      pivot = other_pivot < pivot ? other_pivot : pivot;
      bad = other_bad < bad ? other_bad : bad;
    }
    if (j == 0) {
      area.system_codes[0] = pivot;
      area.system_codes[1] = bad;
      area.system_codes[2] = 0;
    }
  }
  member.team_barrier();
  PairedWarpsOutcome<Value> out{Value(0), Value(0), INT_MAX, INT_MAX};
  if (in_system) {
    out.x_last = area.y[t];
    const Value y_before = t > 0 ? area.y[t - 1] : Value(0);
    const Row f = area.first_row(t);
    out.x_first = f.d - f.a * y_before - f.c * out.x_last;
    out.pivot_row = area.system_codes[0];
    out.nonfinite_row = area.system_codes[1];
    if (!solve_inner(out.x_first, out.x_last)) area.system_codes[2] = 1;
  }
  // An overflow in one thread's inner rows fails the whole system: every thread must see it.
  member.team_barrier();
  if (in_system && out.nonfinite_row == INT_MAX && area.system_codes[2] != 0) out.nonfinite_row = overflow;
  if (!area_private) member.team_barrier();  // every thread has read the area: the team may reuse the scratch
  return out;
}

}  // namespace tridiag::partitioned::impl

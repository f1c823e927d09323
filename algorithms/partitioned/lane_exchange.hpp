#pragma once
// How the P threads that share one system of the partitioned solver see each other's values
// while they solve the interface system (interface_solve.hpp). Thread t of a system is team rank
// ls * P + t (ls: the system's place in the team). Two implementations, one interface:
//  * ShuffleExchange: warp shuffles, no memory and no barrier. Needs a CUDA device, P a power of
//    two <= 32 and a team size that is a multiple of 32, so that a system's threads are P aligned
//    lanes of one warp.
//  * ScratchExchange: team scratch and team barriers, for any P on any backend (several warps per
//    system on a GPU, host teams).
// Every call is collective: all threads of the team make the same calls in the same order (the
// barriers of ScratchExchange), including threads whose system does not exist. A neighbour that
// lies outside the caller's system comes back as an unspecified value: the caller masks it.

#include <Kokkos_Core.hpp>
#include <climits>
#include <tridiag/core/types.hpp>
#include <tridiag/core/warp_shuffle.hpp>

namespace tridiag::partitioned::impl {

/// A row of the interface system with unit diagonal: a x(t - s) + x(t) + c x(t + s) = d.
template <class Matrix, class Value>
struct InterfaceRow {
  Matrix a, c;
  Value d;
};

struct ShuffleExchange {
  int P;  ///< threads per system (power of two, <= 32)

  /// The rows of threads t - s and t + s of the caller's system.
  template <class Matrix, class Value>
  KOKKOS_FORCEINLINE_FUNCTION void neighbours(const InterfaceRow<Matrix, Value>& mine, int s,
                                              InterfaceRow<Matrix, Value>& lower,
                                              InterfaceRow<Matrix, Value>& upper) const {
    lower.a = compat::shuffle_up(mine.a, s);
    lower.c = compat::shuffle_up(mine.c, s);
    lower.d = compat::shuffle_up(mine.d, s);
    upper.a = compat::shuffle_down(mine.a, s);
    upper.c = compat::shuffle_down(mine.c, s);
    upper.d = compat::shuffle_down(mine.d, s);
  }
  /// v of threads t - s and t + s of the caller's system.
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION void neighbour_values(const T& mine, int s, T& lower, T& upper) const {
    lower = compat::shuffle_up(mine, s);
    upper = compat::shuffle_down(mine, s);
  }
  /// The row of thread t + 1.
  template <class Matrix, class Value>
  KOKKOS_FORCEINLINE_FUNCTION InterfaceRow<Matrix, Value> next_row(const InterfaceRow<Matrix, Value>& mine) const {
    return {compat::shuffle_down(mine.a, 1), compat::shuffle_down(mine.c, 1), compat::shuffle_down(mine.d, 1)};
  }
  /// v of thread t - 1.
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION T previous(const T& v) const {
    return compat::shuffle_up(v, 1);
  }
  /// The smallest u and the smallest v over the caller's system (butterfly over its P aligned
  /// lanes).
  KOKKOS_FORCEINLINE_FUNCTION void system_min(int& u, int& v) const {
    for (int k = 1; k < P; k *= 2) {
      const int other_u = compat::shuffle_xor(u, k), other_v = compat::shuffle_xor(v, k);
      u = other_u < u ? other_u : u;
      v = other_v < v ? other_v : v;
    }
  }
  /// Nothing to order: shuffles need no memory.
  KOKKOS_FORCEINLINE_FUNCTION void fence_scratch_reuse() const {}
};

/// Team scratch of a ScratchExchange (matrix and right-hand-side scalars of the given sizes): two
/// interface rows per team thread (double buffering) and two ints per system.
constexpr std::size_t scratch_exchange_bytes(int team_size, int systems_per_team, std::size_t matrix_bytes,
                                             std::size_t value_bytes) {
  return 2 * static_cast<std::size_t>(team_size) * (2 * matrix_bytes + value_bytes) +
         2 * static_cast<std::size_t>(systems_per_team) * sizeof(int) + 5 * 16;  // 16-byte alignment of each part
}

/// Rows are published into one of two buffers, alternately: a thread overwrites a buffer only
/// two exchanges after it was read, and the barrier of the exchange between orders the two, so
/// each exchange needs one team barrier rather than two.
template <class Member, class Matrix, class Value>
struct ScratchExchange {
  const Member& member;
  // Buffer k of each array starts at k * team_size (plain offsets: an array of pointers indexed
  // by the run-time buffer number would put the whole object in local memory).
  Matrix* a;
  Matrix* c;
  Value* d;
  int* first_flag;   ///< one per system of the team
  int* second_flag;  ///< one per system of the team
  int rank, team_size, P;
  mutable int buffer = 0;  ///< the buffer the last exchange wrote (0 or team_size)

  /// Carves the buffers out of `base` (scratch_exchange_bytes of it, 16-byte aligned).
  KOKKOS_INLINE_FUNCTION ScratchExchange(const Member& m, void* base, int P_)
      : member(m), rank(m.team_rank()), team_size(m.team_size()), P(P_) {
    char* p = static_cast<char*>(base);
    a = reinterpret_cast<Matrix*>(take(p, 2 * team_size * sizeof(Matrix)));
    c = reinterpret_cast<Matrix*>(take(p, 2 * team_size * sizeof(Matrix)));
    d = reinterpret_cast<Value*>(take(p, 2 * team_size * sizeof(Value)));
    first_flag = reinterpret_cast<int*>(take(p, ((team_size + P - 1) / P) * sizeof(int)));
    second_flag = reinterpret_cast<int*>(take(p, ((team_size + P - 1) / P) * sizeof(int)));
  }

  KOKKOS_INLINE_FUNCTION void neighbours(const InterfaceRow<Matrix, Value>& mine, int s,
                                         InterfaceRow<Matrix, Value>& lower, InterfaceRow<Matrix, Value>& upper) const {
    const int k = publish(mine);
    const int lo = k + lower_rank(s), hi = k + upper_rank(s);
    lower = {a[lo], c[lo], d[lo]};
    upper = {a[hi], c[hi], d[hi]};
  }
  KOKKOS_INLINE_FUNCTION void neighbour_values(const Value& mine, int s, Value& lower, Value& upper) const {
    const int k = publish_value(mine);
    lower = d[k + lower_rank(s)];
    upper = d[k + upper_rank(s)];
  }
  KOKKOS_INLINE_FUNCTION InterfaceRow<Matrix, Value> next_row(const InterfaceRow<Matrix, Value>& mine) const {
    const int k = publish(mine);
    const int hi = k + upper_rank(1);
    return {a[hi], c[hi], d[hi]};
  }
  KOKKOS_INLINE_FUNCTION Value previous(const Value& v) const { return d[publish_value(v) + lower_rank(1)]; }
  /// Ends with a barrier: after it the team may reuse all of the exchange's scratch.
  KOKKOS_INLINE_FUNCTION void system_min(int& u, int& v) const {
    const int ls = rank / P;
    if (rank % P == 0) first_flag[ls] = second_flag[ls] = INT_MAX;
    member.team_barrier();
    Kokkos::atomic_fetch_min(&first_flag[ls], u);
    Kokkos::atomic_fetch_min(&second_flag[ls], v);
    member.team_barrier();
    u = first_flag[ls];
    v = second_flag[ls];
    member.team_barrier();
  }
  /// The exchange buffers may alias scratch the team used just before (staging): wait for it.
  KOKKOS_INLINE_FUNCTION void fence_scratch_reuse() const { member.team_barrier(); }

 private:
  /// Writes this thread's row into the other buffer for the others to read, then waits for every
  /// thread's; returns the buffer's offset.
  KOKKOS_INLINE_FUNCTION int publish(const InterfaceRow<Matrix, Value>& mine) const {
    const int next = team_size - buffer;
    a[next + rank] = mine.a;
    c[next + rank] = mine.c;
    return publish_value(mine.d);
  }
  /// publish for d alone (the substitution levels exchange one value).
  KOKKOS_INLINE_FUNCTION int publish_value(const Value& mine) const {
    buffer = team_size - buffer;
    d[buffer + rank] = mine;
    member.team_barrier();
    return buffer;
  }
  /// The ranks s below and above this thread's, clamped to its own outside the team (as a
  /// shuffle returns the caller's own value; the callers ignore those).
  KOKKOS_INLINE_FUNCTION int lower_rank(int s) const { return rank - s >= 0 ? rank - s : rank; }
  KOKKOS_INLINE_FUNCTION int upper_rank(int s) const { return rank + s < team_size ? rank + s : rank; }
  /// The next 16-byte aligned block of `bytes` at p; advances p.
  KOKKOS_INLINE_FUNCTION static char* take(char*& p, std::size_t bytes) {
    char* q = p;
    p += (bytes + 15) / 16 * 16;
    return q;
  }
};

}  // namespace tridiag::partitioned::impl

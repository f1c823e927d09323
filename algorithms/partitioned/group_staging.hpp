#pragma once
// Coalesced loads and stores for the partitioned solver's register chunks.
//
// Thread t of a system owns a chunk of at most M consecutive rows. Read directly, neighbouring
// threads read addresses M rows apart: on a GPU every load instruction of a warp then touches 32
// cache lines, and the L1 cache thrashes before the other rows of those lines are used. But the
// chunks of a group of consecutive team threads (a warp on a GPU) are consecutive rows of
// consecutive systems: one contiguous range of positions q = system * n + row. The group reads
// that range with consecutive threads on consecutive positions (one 128-byte line per 16 doubles
// on the Flat layout), puts it in a scratch buffer, and each thread takes its chunk from there;
// stores go the same way back. Measured on the H100 (../shared/notes/h100-reference.md, and the
// prototype in docs/performance.md): the direct loads reach 80% of copy bandwidth at M = 16 where
// the staged ones reach 104%.
//
// The buffer pads one slot after every M positions, so that threads reading their own chunks
// (M apart) hit distinct shared-memory banks. On a GPU a group is a warp, ordered by __syncwarp;
// on host backends the whole team is one group, ordered by team barriers (same code, no gain:
// host solves do not stage by default).

#include <Kokkos_Core.hpp>
#include <tridiag/core/macros.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/core/warp_shuffle.hpp>
#include <tridiag/layouts/flat.hpp>
#include <type_traits>

namespace tridiag::partitioned::impl {

/// Threads of a staging group: a warp in CUDA device code, the team elsewhere.
template <class Member>
KOKKOS_FORCEINLINE_FUNCTION int staging_group_size(const Member& member) {
  (void)member;
#if defined(__CUDA_ARCH__)
  return 32;
#else
  return member.team_size();
#endif
}

/// Scratch bytes the staging of a team needs: team_size * (M + 1) scalars of the larger of the
/// two scalar types, in 16-byte aligned group buffers.
constexpr std::size_t group_staging_bytes(int team_size, int M, std::size_t scalar_bytes) {
  return static_cast<std::size_t>(team_size) * static_cast<std::size_t>(M + 1) * scalar_bytes +
         static_cast<std::size_t>(team_size / 32 + 1) * 16;
}

/// True when a batch vector's positions (system * n + row) are its storage offsets (the Flat
/// layout): the group then reads storage directly, without turning positions into (system, row)
/// and back (64-bit index arithmetic per element that costs registers, and with them occupancy).
template <class V>
inline constexpr bool positions_are_offsets = std::is_same_v<typename V::layout_type, layouts::Flat>;

/// One thread's view of its group's rows (positions q = system * n + row; the kernel fills in
/// the group's range and this thread's place in it).
template <int M, class Member>
struct GroupStaging {
  const Member& member;
  index_type n;        ///< rows per system (>= 2)
  index_type q_begin;  ///< the group's first position
  index_type q_end;    ///< one past the group's last position (clipped to the batch)
  index_type offset;   ///< this thread's chunk start minus q_begin
  int lane, G;
  char* buffer;        ///< the group's scratch buffer

  KOKKOS_FORCEINLINE_FUNCTION static int pad(int e) { return e + e / M; }

  KOKKOS_FORCEINLINE_FUNCTION void sync() const {
#if defined(__CUDA_ARCH__)
    compat::sync_warp();
#else
    member.team_barrier();
#endif
  }

  /// rows[j] = v(system, row) for the j < m rows of this thread's chunk, read by the group.
  /// Every thread of the team calls it; `owns_chunk` false for threads without a system.
  template <class Scalar, class V>
  KOKKOS_INLINE_FUNCTION void load(const V& v, Scalar (&rows)[M], index_type m, bool owns_chunk) const {
    Scalar* buf = reinterpret_cast<Scalar*>(buffer);
    Scalar in_flight[M];
    const int count = static_cast<int>(q_end - q_begin);  // <= G * M positions
    // All loads first, then the scratch stores: M rows per thread in flight at once.
    if constexpr (positions_are_offsets<V>) {
      const auto* first = v.data() + q_begin;
      TRIDIAG_UNROLL
      for (int u = 0; u < M; ++u)
        if (lane + u * G < count) in_flight[u] = first[lane + u * G];
    } else {
      index_type q = q_begin + lane;
      index_type s = q / n, i = q - s * n;
      TRIDIAG_UNROLL
      for (int u = 0; u < M; ++u) {
        if (lane + u * G < count) in_flight[u] = v(s, i);
        i += G;
        while (i >= n) {
          i -= n;
          ++s;
        }
      }
    }
    TRIDIAG_UNROLL
    for (int u = 0; u < M; ++u) {
      const int e = lane + u * G;
      if (e < count) buf[pad(e)] = in_flight[u];
    }
    sync();
    TRIDIAG_UNROLL
    for (int j = 0; j < M; ++j)
      if (owns_chunk && j < m) rows[j] = buf[pad(static_cast<int>(offset) + j)];
    sync();
  }

  /// v(system, row) = rows[j] for the j < m rows of this thread's chunk, written by the group.
  template <class Scalar, class V>
  KOKKOS_INLINE_FUNCTION void store(const V& v, const Scalar (&rows)[M], index_type m, bool owns_chunk) const {
    Scalar* buf = reinterpret_cast<Scalar*>(buffer);
    TRIDIAG_UNROLL
    for (int j = 0; j < M; ++j)
      if (owns_chunk && j < m) buf[pad(static_cast<int>(offset) + j)] = rows[j];
    sync();
    const int count = static_cast<int>(q_end - q_begin);
    if constexpr (positions_are_offsets<V>) {
      auto* first = v.data() + q_begin;
      TRIDIAG_UNROLL
      for (int u = 0; u < M; ++u)
        if (lane + u * G < count) first[lane + u * G] = buf[pad(lane + u * G)];
    } else {
      index_type q = q_begin + lane;
      index_type s = q / n, i = q - s * n;
      TRIDIAG_UNROLL
      for (int u = 0; u < M; ++u) {
        if (lane + u * G < count) v(s, i) = buf[pad(lane + u * G)];
        i += G;
        while (i >= n) {
          i -= n;
          ++s;
        }
      }
    }
    sync();
  }
};

}  // namespace tridiag::partitioned::impl

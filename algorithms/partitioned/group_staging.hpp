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

  KOKKOS_FORCEINLINE_FUNCTION static int pad(index_type e) { return static_cast<int>(e + e / M); }

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
    index_type q = q_begin + lane;
    index_type s = q / n, i = q - s * n;
    // All loads first, then the scratch stores: M rows per thread in flight at once.
    TRIDIAG_UNROLL
    for (int u = 0; u < M; ++u) {
      if (q < q_end) in_flight[u] = v(s, i);
      q += G;
      i += G;
      while (i >= n) {
        i -= n;
        ++s;
      }
    }
    TRIDIAG_UNROLL
    for (int u = 0; u < M; ++u) {
      const index_type e = lane + static_cast<index_type>(u) * G;
      if (q_begin + e < q_end) buf[pad(e)] = in_flight[u];
    }
    sync();
    TRIDIAG_UNROLL
    for (int j = 0; j < M; ++j)
      if (owns_chunk && j < m) rows[j] = buf[pad(offset + j)];
    sync();
  }

  /// v(system, row) = rows[j] for the j < m rows of this thread's chunk, written by the group.
  template <class Scalar, class V>
  KOKKOS_INLINE_FUNCTION void store(const V& v, const Scalar (&rows)[M], index_type m, bool owns_chunk) const {
    Scalar* buf = reinterpret_cast<Scalar*>(buffer);
    TRIDIAG_UNROLL
    for (int j = 0; j < M; ++j)
      if (owns_chunk && j < m) buf[pad(offset + j)] = rows[j];
    sync();
    index_type q = q_begin + lane;
    index_type s = q / n, i = q - s * n;
    TRIDIAG_UNROLL
    for (int u = 0; u < M; ++u) {
      if (q < q_end) v(s, i) = buf[pad(q - q_begin)];
      q += G;
      i += G;
      while (i >= n) {
        i -= n;
        ++s;
      }
    }
    sync();
  }
};

}  // namespace tridiag::partitioned::impl

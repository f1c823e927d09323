#pragma once
// Coalesced loads and stores for the partitioned solver's register chunks.
//
// Thread t of a system owns a chunk of at most M consecutive rows. Read directly, neighbouring
// threads read addresses M rows apart: on a GPU every load instruction of a warp then touches 32
// cache lines, and the L1 cache thrashes before the other rows of those lines are used. But the
// chunks of a group of consecutive team threads (a warp on a GPU) are consecutive rows of
// consecutive systems: one contiguous range of positions q = system * n + row. The group reads
// that range of a, b, c and d with consecutive threads on consecutive positions (one 128-byte line
// per 16 doubles on the Flat layout), all four arrays at once (4 M values per thread in flight),
// into four scratch slabs; each thread's chunk elimination then reads its rows from the slabs
// (rows()), and the solution goes back the same way (store). Measured on the H100
// (../shared/notes/h100-reference.md, and the prototype in docs/performance.md): the direct
// loads reach 80% of copy bandwidth at M = 16 where the staged ones reach 104%.
//
// Why the rows stay in scratch rather than in registers: copied into per-thread arrays, the four
// arrays of 8 doubles and the chunk's three took the staged kernel to 212 registers (one team of
// 256 threads per H100 multiprocessor); read from scratch, only the chunk's three arrays live in
// registers.
//
// A slab pads one slot after every M positions, so that threads reading their own chunks (M
// apart) hit distinct shared-memory banks. On a GPU a group is a warp, ordered by __syncwarp; on
// host backends the whole team is one group, ordered by team barriers (same code, no gain: host
// solves do not stage by default).

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <tridiag/core/macros.hpp>
#include <tridiag/core/streaming_access.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/core/warp_shuffle.hpp>
#include <tridiag/layouts/flat.hpp>
#include <tridiag/layouts/variable_batch.hpp>
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

/// The team's level-0 scratch, 16-byte aligned (launches ask for 16 bytes more than they use).
template <class ExecSpace, class Member>
KOKKOS_INLINE_FUNCTION char* aligned_team_scratch(const Member& member) {
  using Bytes = Kokkos::View<char*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  char* p = Bytes(member.team_scratch(0), 1).data();
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  return p + ((16 - address % 16) % 16);
}

/// Arrays a group stages at once: a, b, c and d (the solution reuses the first slab).
inline constexpr int staged_arrays = 4;

/// Bytes of one slab of a group of G threads: G * (M + 1) scalars, rounded up to 16 bytes.
KOKKOS_INLINE_FUNCTION constexpr std::size_t staging_slab_bytes(int G, int M, std::size_t scalar_bytes) {
  return (static_cast<std::size_t>(G) * static_cast<std::size_t>(M + 1) * scalar_bytes + 15) / 16 * 16;
}

/// Scratch bytes the staging of a team of `team_size` threads needs (groups of `group_size`
/// threads; scalars of `scalar_bytes`, the larger of the matrix's and the right-hand side's).
constexpr std::size_t group_staging_bytes(int team_size, int group_size, int M, std::size_t scalar_bytes) {
  const int groups = (team_size + group_size - 1) / group_size;
  return static_cast<std::size_t>(groups) * staged_arrays * staging_slab_bytes(group_size, M, scalar_bytes);
}

/// True when a vector's positions (system * n + row; a ragged vector's offsets(system) + row) are
/// its storage offsets (the Flat layout, ragged storage): the group then reads storage directly,
/// without turning positions into (system, row) and back (64-bit index arithmetic per element
/// that costs registers, and with them occupancy).
template <class V, class = void>
inline constexpr bool positions_are_offsets = false;
template <class V>
inline constexpr bool positions_are_offsets<V, std::void_t<typename V::layout_type>> =
    std::is_same_v<typename V::layout_type, layouts::Flat>;
template <class Scalar, class MemorySpace>
inline constexpr bool positions_are_offsets<layouts::RaggedVector<Scalar, MemorySpace>> = true;

/// One thread's view of its group's rows (positions q = system * n + row; the kernel fills in
/// the group's range and this thread's place in it).
template <int M, class Member>
struct GroupStaging {
  const Member& member;
  index_type n;        ///< rows per system (>= 2)
  index_type q_begin;  ///< the group's first position
  index_type q_end;    ///< one past the group's last position (clipped to the batch)
  int offset;          ///< this thread's chunk start minus q_begin (< G * M)
  int lane, G;
  char* buffer;        ///< the group's scratch: staged_arrays slabs of slab_bytes
  int slab_bytes;

  KOKKOS_FORCEINLINE_FUNCTION static int pad(int e) { return e + e / M; }

  KOKKOS_FORCEINLINE_FUNCTION void sync() const {
#if defined(__CUDA_ARCH__)
    compat::sync_warp();
#else
    member.team_barrier();
#endif
  }

  template <class Scalar>
  KOKKOS_FORCEINLINE_FUNCTION Scalar* slab(int k) const {
    return reinterpret_cast<Scalar*>(buffer + k * slab_bytes);
  }

  /// Row j of this thread's chunk in one slab (what eliminate_chunk_rows reads).
  template <class Scalar>
  struct Rows {
    const Scalar* slab;
    int offset;
    KOKKOS_FORCEINLINE_FUNCTION const Scalar& operator()(index_type j) const {
      return slab[pad(offset + static_cast<int>(j))];
    }
  };
  template <class Scalar>
  KOKKOS_FORCEINLINE_FUNCTION Rows<Scalar> rows(int k) const {
    return {slab<Scalar>(k), offset};
  }

  /// Reads the group's positions of a, b, c and d into slabs 0..3. Every thread of the team
  /// calls it; afterwards rows<>(0..3) give this thread's chunk rows.
  template <class A, class B, class C, class D>
  KOKKOS_INLINE_FUNCTION void load(const A& a, const B& b, const C& c, const D& d) const {
    load_slab(a, 0);
    load_slab(b, 1);
    load_slab(c, 2);
    load_slab(d, 3);
    sync();
  }

  /// The group's positions of v into slab k (M values per thread in flight).
  template <class V>
  KOKKOS_INLINE_FUNCTION void load_slab(const V& v, int k) const {
    using Scalar = typename V::value_type;
    Scalar in_flight[M];
    const int count = static_cast<int>(q_end - q_begin);  // <= G * M positions
    if constexpr (positions_are_offsets<V>) {
      const auto* first = v.data() + q_begin;
      TRIDIAG_UNROLL
      for (int u = 0; u < M; ++u)
        if (lane + u * G < count) in_flight[u] = tridiag::impl::load_read_only(first + lane + u * G);
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
    Scalar* buf = slab<Scalar>(k);
    TRIDIAG_UNROLL
    for (int u = 0; u < M; ++u) {
      const int e = lane + u * G;
      if (e < count) buf[pad(e)] = in_flight[u];
    }
  }

  /// v(system, row) = rows[j] for the j < m rows of this thread's chunk, written by the group
  /// through slab 0 (the group's reads of the slabs must be over: the first sync).
  template <class Scalar, class V>
  KOKKOS_INLINE_FUNCTION void store(const V& v, const Scalar (&rows)[M], index_type m, bool owns_chunk) const {
    Scalar* buf = slab<Scalar>(0);
    sync();
    TRIDIAG_UNROLL
    for (int j = 0; j < M; ++j)
      if (owns_chunk && j < m) buf[pad(offset + j)] = rows[j];
    sync();
    const int count = static_cast<int>(q_end - q_begin);
    if constexpr (positions_are_offsets<V>) {
      auto* first = v.data() + q_begin;
      TRIDIAG_UNROLL
      for (int u = 0; u < M; ++u)
        if (lane + u * G < count) tridiag::impl::store_streaming(first + lane + u * G, buf[pad(lane + u * G)]);
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

#pragma once
// Block-Interleaved layout: systems grouped in tiles of BlockSize; inside a tile the systems are
// interleaved (row i of the tile's BlockSize systems contiguous), tiles stored one after another.
// The batch is padded to a whole number of tiles; padding systems are never read or written by a
// solver.
// Best for: one thread per system where a tile matches a warp (GPU, BlockSize 32) or a SIMD
// vector of a host core (BlockSize 8 doubles / 16 floats for AVX-512): unit-stride inner loop
// across systems, and each tile's data is one contiguous block of memory.

#include <tridiag/core/types.hpp>

namespace tridiag::layouts {

template <int BlockSize>
struct BlockInterleaved {
  static_assert(BlockSize > 0, "BlockInterleaved: BlockSize must be positive");
  static constexpr int block_size = BlockSize;
  static constexpr const char* name() { return "block_interleaved"; }
  /// Padding rule: the stored systems are rounded up to a multiple of BlockSize.
  static constexpr index_type system_granularity = BlockSize;

  index_type systems = 0;
  index_type rows = 0;

  BlockInterleaved() = default;
  BlockInterleaved(index_type nsys, index_type n) : systems(nsys), rows(n) {}

  /// Systems the storage holds, padding included.
  index_type stored_systems() const { return (systems + BlockSize - 1) / BlockSize * BlockSize; }

  KOKKOS_FORCEINLINE_FUNCTION index_type offset(index_type s, index_type i) const {
    return (s / BlockSize) * (rows * BlockSize) + i * BlockSize + (s % BlockSize);
  }
  index_type required_span() const { return stored_systems() * rows; }
};

}  // namespace tridiag::layouts

#pragma once
// Flat layout: each system stored contiguously, rows in order (cuThomasBatch "Flat", Figure 4).
// Equivalent to a Kokkos::LayoutRight View of extents (systems, rows).
// Best for: team-per-system solvers (CR, PCR, partitioned) and cooperative kernels that give each
// thread consecutive rows; worst for one thread per system on a GPU (uncoalesced).

#include <tridiag/core/types.hpp>

namespace tridiag::layouts {

struct Flat {
  static constexpr const char* name() { return "flat"; }
  /// Padding rule: none; storage holds exactly `systems` systems.
  static constexpr index_type system_granularity = 1;

  index_type systems = 0;  ///< systems in the batch
  index_type rows = 0;     ///< unknowns per system

  Flat() = default;
  Flat(index_type nsys, index_type n) : systems(nsys), rows(n) {}

  /// Storage offset of row i of system s.
  /// Systems the storage holds (no padding in this layout).
  index_type stored_systems() const { return systems; }

  KOKKOS_FORCEINLINE_FUNCTION index_type offset(index_type s, index_type i) const { return s * rows + i; }
  /// Scalars the storage must hold.
  index_type required_span() const { return systems * rows; }
};

}  // namespace tridiag::layouts

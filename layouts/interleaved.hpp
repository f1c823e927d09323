#pragma once
// Full-Interleaved layout: row i of every system stored contiguously, then row i+1 (cuThomasBatch
// "Full-Interleaved", Figure 5). Equivalent to a Kokkos::LayoutLeft View of extents (systems, rows).
// Best for: one GPU thread per system (neighbouring threads read neighbouring addresses).

#include <tridiag/core/types.hpp>

namespace tridiag::layouts {

struct Interleaved {
  static constexpr const char* name() { return "interleaved"; }
  static constexpr index_type system_granularity = 1;

  index_type systems = 0;
  index_type rows = 0;

  Interleaved() = default;
  Interleaved(index_type nsys, index_type n) : systems(nsys), rows(n) {}

  /// Systems the storage holds (no padding in this layout).
  index_type stored_systems() const { return systems; }

  KOKKOS_FORCEINLINE_FUNCTION index_type offset(index_type s, index_type i) const { return i * systems + s; }
  index_type required_span() const { return systems * rows; }
};

}  // namespace tridiag::layouts

#pragma once
// Unified-Vector layout (cuThomasBatch, Section 3, Figure 6): the lower, main and upper diagonals
// and the right-hand side of one row are packed together (4 consecutive scalars), and rows of all
// systems are interleaved: row i of system s starts at (i * systems + s) * 4. A thread solving
// system s touches a, b, c and d of a row in one 4-scalar run (temporal locality), and neighbouring
// threads still read neighbouring runs.
//
// One allocation serves the four vectors of a batch: each vector is the same storage seen with a
// different `component` (0 lower, 1 diagonal, 2 upper, 3 right-hand side; the solution may
// overwrite component 3 in place). A vector allocated on its own (width 1) is ordered like the
// Interleaved layout.

#include <tridiag/core/types.hpp>

namespace tridiag::layouts {

struct UnifiedVector {
  static constexpr const char* name() { return "unified_vector"; }
  static constexpr index_type system_granularity = 1;
  /// Components of a packed row: lower, diagonal, upper, right-hand side.
  static constexpr int packed_width = 4;
  enum Component : int { lower = 0, diagonal = 1, upper = 2, rhs = 3 };

  index_type systems = 0;
  index_type rows = 0;
  int width = 1;      ///< scalars per packed row: 4 inside a packed system, 1 for a lone vector
  int component = 0;  ///< which scalar of the packed row this vector is

  UnifiedVector() = default;
  UnifiedVector(index_type nsys, index_type n, int width_ = 1, int component_ = 0)
      : systems(nsys), rows(n), width(width_), component(component_) {}

  /// Systems the storage holds (no padding in this layout).
  index_type stored_systems() const { return systems; }

  KOKKOS_FORCEINLINE_FUNCTION index_type offset(index_type s, index_type i) const {
    return (i * systems + s) * width + component;
  }
  index_type required_span() const { return systems * rows * width; }
};

}  // namespace tridiag::layouts

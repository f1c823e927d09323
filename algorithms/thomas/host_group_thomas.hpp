#pragma once
// Lockstep "group" Thomas for host cores: one thread solves W systems side by side, row by row,
// the inner loops running across the W systems on arrays of compile-time size W.
//
// Why: one system per thread makes each forward sweep one long serial chain (multiply, subtract,
// divide per row), so a host core waits on latency, not memory (about half of the STREAM triad on
// the flat layout). W independent chains fill the core's pipelines and the compiler turns the
// loops across systems into SIMD instructions; with W adjacent systems per row (Interleaved,
// BlockInterleaved) every load of a row is one unit-stride run. c' of the W systems is kept in the
// thread's team scratch (W x n values, reused by every group the thread solves: it stays in cache),
// so memory sees 5 values per unknown (a, b, c, d read, x written).
//
// Semantics are exactly SerialThomas::invoke's (serial_thomas.hpp), system by system: the same
// operations in the same order on the same values, hence bitwise the same x; the same status codes
// (k > 0 first unusable pivot, -k first non-finite row) and a failed system's x all NaN while the
// other systems of its group are solved normally (a failed lane runs on with meaningless values
// that are never reported: its x is poisoned at the end). A last partial group (systems not a
// multiple of W) is solved one system at a time by SerialThomas itself, so no lane ever touches a
// system that does not exist (the padding systems of BlockInterleaved storage among them).
// Used by thomas::solve on host execution spaces when the caller gives no workspace
// (thomas_solve.hpp). Host only: GPUs keep one thread per system.

#include <cstddef>
#include <type_traits>

#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/layouts/layouts.hpp>

namespace tridiag::thomas::impl {

/// How a layout is solved by the host group kernel: `width` systems per thread (0: the layout
/// keeps one system per thread, ThomasScratchKernel), and whether systems s0 .. s0+width-1 of a
/// group (s0 a multiple of width) are adjacent scalars in every row (v(s0 + k, i) is
/// (&v(s0, i))[k]), so that a row of the group is loaded as one unit-stride run. The widths were
/// chosen on the 2-core development machine (OpenMP on 2 threads, 25,600 x 512, float and
/// double); a 16-core host may prefer others.
template <class Layout, class Matrix>
struct HostGroup {
  static constexpr int width = 0;
  static constexpr bool adjacent = false;
};
/// Interleaved: consecutive rows of a system are a whole batch row apart (a new page each), so a
/// group spans 256 bytes of a row (32 doubles, 64 floats): each page visited serves that many
/// systems. Measured: 1.2x (double) and 1.6x (float) faster than a group of one cache line.
template <class Matrix>
struct HostGroup<layouts::Interleaved, Matrix> {
  static constexpr int width = sizeof(Matrix) >= 256 ? 1 : static_cast<int>(256 / sizeof(Matrix));
  static constexpr bool adjacent = true;
};
/// BlockInterleaved<BS>: a group is one tile (groups never straddle tiles, so the padding systems
/// of the last tile are only ever in the last, partial group). BlockInterleaved<32> in sub-tiles
/// of 8 was 1.9x slower than whole tiles.
template <int BS, class Matrix>
struct HostGroup<layouts::BlockInterleaved<BS>, Matrix> {
  static constexpr int width = BS;
  static constexpr bool adjacent = true;
};
/// UnifiedVector: neighbouring systems are a packed row (4 scalars) apart: the loads go through
/// the accessor one by one, the arithmetic still runs across the group; 256 bytes of a row again.
template <class Matrix>
struct HostGroup<layouts::UnifiedVector, Matrix> {
  static constexpr int width = 4 * sizeof(Matrix) >= 256 ? 1 : static_cast<int>(256 / (4 * sizeof(Matrix)));
  static constexpr bool adjacent = false;
};
/// Flat: every system of a group is its own memory stream (loads one by one through the
/// accessor); 4 systems were 1.9x faster than one system per thread, 8 only 1.4x (too many
/// streams), 2 1.5x.
template <class Matrix>
struct HostGroup<layouts::Flat, Matrix> {
  static constexpr int width = 4;
  static constexpr bool adjacent = false;
};

/// Largest per-thread scratch (c' of one group) the group kernel takes; above it (systems of
/// several 10^5 rows) thomas::solve keeps one system per thread, whose scratch is W times smaller
/// (every thread of the pool gets its scratch, whether or not it gets a group).
inline constexpr std::size_t host_group_scratch_limit = std::size_t(16) << 20;

/// Loads and stores of one row of a group of W systems starting at s0.
template <int W, bool Adjacent>
struct GroupRow {
  template <class V, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void load(const V& v, index_type s0, index_type i, T (&out)[W]) {
    for (int k = 0; k < W; ++k) out[k] = T(v(s0 + k, i));
  }
  template <class V, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store(const V& v, index_type s0, index_type i, const T (&in)[W]) {
    for (int k = 0; k < W; ++k) v(s0 + k, i) = in[k];
  }
};
template <int W>
struct GroupRow<W, true> {
  template <class V, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void load(const V& v, index_type s0, index_type i, T (&out)[W]) {
    const auto* const p = &v(s0, i);
    for (int k = 0; k < W; ++k) out[k] = T(p[k]);
  }
  template <class V, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store(const V& v, index_type s0, index_type i, const T (&in)[W]) {
    auto* const p = &v(s0, i);
    for (int k = 0; k < W; ++k) p[k] = in[k];
  }
};

/// The group kernel: team (of one thread) t solves systems W t .. W t + W - 1; c' of the group in
/// team scratch, row i of system s0 + k at g(i W + k). A named functor (core/kokkos_compat.hpp).
template <int W, bool Adjacent, class ExecSpace, class Matrix, class A, class B, class C, class D, class X,
          class Status>
struct HostGroupThomasKernel {
  static_assert(W > 0, "HostGroupThomasKernel: a group holds at least one system");
  using Scratch = Kokkos::View<Matrix*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Value = typename X::value_type;
  using Row = GroupRow<W, Adjacent>;

  index_type nsys;
  index_type n;
  A a;
  B b;
  C c;
  D d;
  X x;
  Status status;

  /// Scratch one team needs: W rows of c' per row of the systems.
  static std::size_t scratch_bytes(index_type rows) { return Scratch::shmem_size(W * rows); }
  /// Teams of one thread: one per group, the last one possibly partial.
  static index_type groups(index_type systems) { return (systems + W - 1) / W; }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const index_type s0 = static_cast<index_type>(member.league_rank()) * W;
    const Scratch g(member.team_scratch(0), W * n);
    if (s0 + W > nsys) {
      solve_one_by_one(s0, g);
    } else {
      solve_group(s0, g);
    }
  }

  /// A partial group: SerialThomas per system (the same code as ThomasScratchKernel).
  KOKKOS_INLINE_FUNCTION void solve_one_by_one(index_type s0, const Scratch& g) const {
    for (index_type s = s0; s < nsys; ++s) {
      const int code = SerialThomas::invoke(n, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(d, s),
                                            rows_of(x, s), ViewRows{g});
      if (status.data() != nullptr) status(s) = code;
    }
  }
  struct ViewRows {
    Scratch view;
    KOKKOS_FORCEINLINE_FUNCTION Matrix& operator()(index_type i) const { return view(i); }
  };

  /// Records row `row` (1-based) as the first unusable pivot of every lane that has none yet.
  KOKKOS_INLINE_FUNCTION static void mark_unusable(const Matrix (&w)[W], int row, int (&code)[W]) {
    for (int k = 0; k < W; ++k)
      if (code[k] == 0 && !tridiag::impl::usable_pivot(w[k])) code[k] = row;
  }
  /// True when some lane's pivot is unusable (vectorised: no branch per lane).
  KOKKOS_FORCEINLINE_FUNCTION static bool any_unusable(const Matrix (&w)[W]) {
    int bad = 0;
    for (int k = 0; k < W; ++k) bad |= tridiag::impl::usable_pivot(w[k]) ? 0 : 1;
    return bad != 0;
  }

  /// A full group: SerialThomas::invoke on W systems in lockstep (same operations, same order).
  KOKKOS_INLINE_FUNCTION void solve_group(index_type s0, const Scratch& g) const {
    int code[W];
    for (int k = 0; k < W; ++k) code[k] = status_code::ok;
    if (n <= 0) {
      write_status(s0, code);
      return;
    }
    Matrix* const gp = g.data();
    Matrix g_prev[W];
    Value x_prev[W];
    {  // row 0
      Matrix w[W], inv[W];
      Row::load(b, s0, 0, w);
      if (any_unusable(w)) mark_unusable(w, 1, code);
      for (int k = 0; k < W; ++k) inv[k] = Matrix(1) / w[k];
      if (n > 1) {
        Matrix ck[W];
        Row::load(c, s0, 0, ck);
        for (int k = 0; k < W; ++k) g_prev[k] = ck[k] * inv[k];
        for (int k = 0; k < W; ++k) gp[k] = g_prev[k];
      } else {
        for (int k = 0; k < W; ++k) g_prev[k] = Matrix(0);
      }
      Value dk[W];
      Row::load(d, s0, 0, dk);
      for (int k = 0; k < W; ++k) x_prev[k] = dk[k] * inv[k];
      Row::store(x, s0, 0, x_prev);
    }
    // Forward elimination: w_i = b_i - a_i g_{i-1}, g_i = c_i / w_i, x_i = (d_i - a_i x_{i-1}) / w_i.
    for (index_type i = 1; i < n; ++i) {
      Matrix ak[W], w[W], inv[W];
      Value dk[W];
      Row::load(a, s0, i, ak);
      Row::load(b, s0, i, w);
      Row::load(d, s0, i, dk);
      for (int k = 0; k < W; ++k) w[k] = w[k] - ak[k] * g_prev[k];
      if (any_unusable(w)) mark_unusable(w, static_cast<int>(i + 1), code);
      for (int k = 0; k < W; ++k) inv[k] = Matrix(1) / w[k];
      for (int k = 0; k < W; ++k) x_prev[k] = (dk[k] - ak[k] * x_prev[k]) * inv[k];
      Row::store(x, s0, i, x_prev);
      if (i + 1 < n) {
        Matrix ck[W];
        Row::load(c, s0, i, ck);
        for (int k = 0; k < W; ++k) g_prev[k] = ck[k] * inv[k];
        Matrix* const gi = gp + i * W;
        for (int k = 0; k < W; ++k) gi[k] = g_prev[k];
      }
    }
    // A NaN or infinity anywhere in d (or overflow) reaches the last row; a lane whose pivot was
    // fine throughout but whose last value is not finite reports its first non-finite row.
    bool failed = false;
    for (int k = 0; k < W; ++k) {
      if (code[k] == 0 && !compat::isfinite(x_prev[k])) {
        index_type first = 0;
        while (first < n && compat::isfinite(x(s0 + k, first))) ++first;
        code[k] = -static_cast<int>(first + 1);
      }
      failed = failed || code[k] != 0;
    }
    // Back substitution: x_i = x_i - g_i x_{i+1} (a failed lane's values are overwritten below).
    for (index_type i = n - 2; i >= 0; --i) {
      Value xi[W];
      Row::load(x, s0, i, xi);
      const Matrix* const gi = gp + i * W;
      for (int k = 0; k < W; ++k) x_prev[k] = xi[k] - gi[k] * x_prev[k];
      Row::store(x, s0, i, x_prev);
    }
    // An overflow in the back substitution reaches row 1 (impl::back_substitution_status).
    for (int k = 0; k < W; ++k) {
      if (code[k] == 0 && !compat::isfinite(x_prev[k])) code[k] = -1;
      failed = failed || code[k] != 0;
    }
    if (failed) {
      for (int k = 0; k < W; ++k)
        if (code[k] != 0) tridiag::impl::poison_solution(n, rows_of(x, s0 + k));
    }
    write_status(s0, code);
  }

  KOKKOS_INLINE_FUNCTION void write_status(index_type s0, const int (&code)[W]) const {
    if (status.data() != nullptr)
      for (int k = 0; k < W; ++k) status(s0 + k) = code[k];
  }
};

}  // namespace tridiag::thomas::impl

#pragma once
// Kernel of algo::WarpStaged (hines_solve.hpp), CUDA devices of compute capability 8.0 and later:
// a warp solves 8 neighbouring neurons of one morphology with 4 lanes each, the neurons staged in
// shared memory, so that a row moves the 5 useful values of global traffic (a, b, d, rhs read, x
// written) and not SerialHines' 9 (its eliminated entries written and read back).
//   - Team: 2 warps (64 threads), 16 neurons; its scratch holds the step tables
//     (warp_staged_steps.hpp) and per warp the neurons' d then w (c_i) and rhs then x (r_i, then
//     the solution), row-major (row i of the 8 neurons together), and a ring of a and b.
//   - Staging: the tables, then d and rhs, copied into scratch by cp.async, all at once (16 bytes
//     per copy where the warp's neurons lie side by side, Interleaved and BlockInterleaved<8 k>,
//     else one value per copy); the team waits only for the tables before its barrier. (The
//     tables were copied by a plain loop first: one round trip to L2 after another, 6,000 of a
//     warp's 57,000 cycles.)
//   - Elimination: lane l works on neuron l % 8 as group l / 8 of the tables, one step after the
//     other: r = x / w, c = a / w, the parent's entries lose b c and b r; a and b of a step are
//     copied by cp.async into the ring 4 steps ahead (registers cannot run ahead: the loads in
//     flight share a warp's few scoreboards); the next row's entries are read before the step's
//     stores; __syncwarp at each barrier. Substitution: x_i = r_i - c_i x_p, the steps backwards.
//   - The row's two divisions share one reciprocal in double (`quotients`): CUDA's own fast path
//     of a division, split, with its checks, else `/`: the correctly rounded quotients, the same
//     bits as SerialHines'. No branch but the one to `/`.
//   - Failures: a lane notes a pivot usable_pivot rejects and a non-finite x; a neuron with any
//     (or with a non-finite rhs, which makes some x non-finite) is solved again by SerialHines from
//     its inputs in global memory, before its x is written, so its status code and poisoned x are
//     exactly SerialHines' (in place too); the others get status 0.
// Same operations per row and order as SerialHines (serial_hines.hpp): the same bits as
// algo::PerNeuron. Measured as an experiment first (docs/performance.md, 2026-11-26, the driver
// docs/experiments/hines_warp_uniform_driver.cu at a9acf97, version 5: 73% of copy for 256,000
// neurons of 107 rows on the H100, BlockInterleaved<8>; this kernel, with a library solver's
// checks and any layout: 61% at d8449c1; 72-74% at f1ceb42, after the staging, branch-free
// quotients, a light-weight launch and the tables' extra levels (warp_level_cost): the same file,
// 2026-11-26 06:08 UTC).

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tridiag/algorithms/hines/hines_quotients.hpp>
#include <tridiag/algorithms/hines/serial_hines.hpp>
#include <tridiag/algorithms/hines/warp_staged_steps.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/layouts/block_interleaved.hpp>
#include <tridiag/layouts/interleaved.hpp>

namespace tridiag::hines::impl {

constexpr int warp_staged_neurons = 8;  ///< neurons per warp
constexpr int warp_staged_groups = 4;   ///< lanes (tree groups) per neuron
constexpr int warp_staged_warps = 2;    ///< warps per team
constexpr int warp_staged_ring = 4;     ///< steps a and b are copied ahead

/// Scratch (bytes) of one warp of algo::WarpStaged for a morphology of n rows: its neurons' d / w
/// and rhs / x with the source, sink and zero rows, and the ring of a and b; a multiple of 16.
template <class Matrix, class Value>
KOKKOS_INLINE_FUNCTION constexpr std::size_t warp_staged_warp_bytes(index_type n) {
  const std::size_t rows = static_cast<std::size_t>(n) + 3;
  const std::size_t bytes = rows * warp_staged_neurons * (sizeof(Matrix) + sizeof(Value)) +
                            2 * 32 * warp_staged_ring * sizeof(Matrix);
  return (bytes + 15) / 16 * 16;
}

/// Bytes of a team's step tables (first in its scratch) for `steps` steps: a multiple of 16.
KOKKOS_INLINE_FUNCTION constexpr std::size_t warp_staged_table_bytes(int steps) {
  return 4 * static_cast<std::size_t>(steps) * warp_staged_groups * sizeof(int);
}

template <class Layout>
struct is_block_interleaved : std::false_type {};
template <int B>
struct is_block_interleaved<layouts::BlockInterleaved<B>> : std::true_type {};

/// Whether a warp's neurons (warp_staged_neurons of them, the first a multiple of that) lie side
/// by side in every row of Layout, so that their d and rhs are staged by 16-byte copies
/// (Interleaved: row i at i N + s; BlockInterleaved<B>, B a multiple of warp_staged_neurons).
template <class Layout>
KOKKOS_INLINE_FUNCTION constexpr bool warp_neighbours_contiguous() {
  if constexpr (std::is_same_v<Layout, layouts::Interleaved>) {
    return true;
  } else if constexpr (is_block_interleaved<Layout>::value) {
    return Layout::block_size % warp_staged_neurons == 0;
  } else {
    return false;
  }
}

/// Team scratch (bytes) of algo::WarpStaged for a morphology of n rows and `steps` steps, with 16
/// bytes of slack to align it to 16 (Kokkos aligns scratch to 8).
template <class Matrix, class Value>
KOKKOS_INLINE_FUNCTION constexpr std::size_t warp_staged_scratch_bytes(index_type n, int steps) {
  return warp_staged_table_bytes(steps) + warp_staged_warps * warp_staged_warp_bytes<Matrix, Value>(n) + 16;
}

#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 800
#define TRIDIAG_HINES_CP_ASYNC 1
#endif
/// dst (shared memory) = *src (global memory), Bytes of them, asynchronously (cp.async) on sm_80
/// and later, a plain copy before.
template <int Bytes>
__device__ __forceinline__ void copy_async(void* dst, const void* src) {
#if defined(TRIDIAG_HINES_CP_ASYNC)
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (Bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to), "l"(src), "n"(Bytes) : "memory");
#else
  struct alignas(Bytes) Chunk {
    unsigned char bytes[Bytes];
  };
  *static_cast<Chunk*>(dst) = *static_cast<const Chunk*>(src);
#endif
}
__device__ __forceinline__ void copy_async_commit() {
#if defined(TRIDIAG_HINES_CP_ASYNC)
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/// Waits for all but the Pending most recent commit groups of this thread.
template <int Pending>
__device__ __forceinline__ void copy_async_wait() {
#if defined(TRIDIAG_HINES_CP_ASYNC)
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

#endif

/// The functor: league rank r owns neurons [16 r, 16 r + 16), warp v of its team [16 r + 8 v,
/// 16 r + 8 v + 8). Only launched on CUDA devices (hines::solve runs algo::PerNeuron elsewhere).
template <class Operands, class Tables>
struct WarpStagedKernel {
  using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Operands>().w(0, 0))>>;
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Operands>().x(0, 0))>>;
  using Layout = typename decltype(std::declval<Operands>().d)::layout_type;
  Operands op;
  Tables tables;  ///< WarpSteps::packed
  int steps;
  int n;  ///< the morphology's rows (= op.rows)
  index_type systems;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
#if defined(__CUDA_ARCH__)
    constexpr int NPW = warp_staged_neurons, G = warp_staged_groups, PD = warp_staged_ring;
    const int t = member.team_rank(), lane = t % 32, warp = t / 32, m = lane % NPW, k = lane / NPW;
    const index_type first = (static_cast<index_type>(member.league_rank()) * warp_staged_warps + warp) * NPW;
    const bool active = first + m < systems;
    const index_type s = active ? first + m : systems - 1;  // a tail lane works on a copy, never stored
    const int S = steps, rows = n + 3;
    // 16-byte aligned for the 16-byte copies (the size has the slack).
    char* scratch = static_cast<char*>(
        member.team_shmem().get_shmem_aligned(warp_staged_scratch_bytes<Matrix, Value>(n, S) - 16, 16));
    int* T = reinterpret_cast<int*>(scratch);
    Matrix* D = reinterpret_cast<Matrix*>(scratch + warp_staged_table_bytes(S) +
                                          warp * warp_staged_warp_bytes<Matrix, Value>(n));
    Value* R = reinterpret_cast<Value*>(D + static_cast<std::size_t>(rows) * NPW);
    Matrix* ring = reinterpret_cast<Matrix*>(R + static_cast<std::size_t>(rows) * NPW);

    // 1. Stage the tables (a commit group of its own, waited for before the team's barrier),
    // then d and rhs (waited for before the elimination's first row).
    // (make_warp_steps checks that the tables are 16-byte aligned.)
    for (int c = t; c < static_cast<int>(warp_staged_table_bytes(S) / 16); c += member.team_size())
      copy_async<16>(reinterpret_cast<char*>(T) + 16 * c, reinterpret_cast<const char*>(tables.data()) + 16 * c);
    copy_async_commit();
    const bool full = first + NPW <= systems;  // else a tail warp: clamped copies, nothing stored
    const auto* d0 = full ? &op.d(first, 0) : nullptr;
    const auto* r0 = full ? &op.rhs(first, 0) : nullptr;
    const index_type d_stride = full && n > 1 ? &op.d(first, 1) - d0 : 0;  // between rows
    const index_type r_stride = full && n > 1 ? &op.rhs(first, 1) - r0 : 0;
    const bool bulk = warp_neighbours_contiguous<Layout>() && full &&
                      reinterpret_cast<std::uintptr_t>(d0) % 16 == 0 && reinterpret_cast<std::uintptr_t>(r0) % 16 == 0 &&
                      d_stride * sizeof(Matrix) % 16 == 0 && r_stride * sizeof(Value) % 16 == 0;
    if (bulk) {  // row i of the warp's neurons: NPW contiguous values, 16-byte aligned
      constexpr int d_row = NPW * sizeof(Matrix) / 16, r_row = NPW * sizeof(Value) / 16;  // copies per row
      for (int c = lane; c < n * d_row; c += 32)
        copy_async<16>(reinterpret_cast<char*>(D) + 16 * c,
                       reinterpret_cast<const char*>(d0 + (c / d_row) * d_stride) + 16 * (c % d_row));
      for (int c = lane; c < n * r_row; c += 32)
        copy_async<16>(reinterpret_cast<char*>(R) + 16 * c,
                       reinterpret_cast<const char*>(r0 + (c / r_row) * r_stride) + 16 * (c % r_row));
    } else {
      // Element e = i NPW + m of lane l has m = l % NPW and i = l / NPW + (32 / NPW) j: the lane's
      // own neuron s, every (32 / NPW)-th row (s fixed, so the layout's offsets are affine in j).
      for (int i = k; i < n; i += 32 / NPW) {
        copy_async<sizeof(Matrix)>(D + i * NPW + m, &op.d(s, i));
        copy_async<sizeof(Value)>(R + i * NPW + m, &op.rhs(s, i));
      }
    }
    copy_async_commit();
    if (lane < NPW) {
      D[n * NPW + lane] = Matrix(1);  // source: 1 / 1, no division's slow path
      R[n * NPW + lane] = Value(1);
      D[(n + 1) * NPW + lane] = Matrix(1);  // sink
      R[(n + 1) * NPW + lane] = Value(0);
      D[(n + 2) * NPW + lane] = Matrix(0);  // zero
      R[(n + 2) * NPW + lane] = Value(0);
    }
    copy_async_wait<1>();   // the tables' group (not the staging's)
    member.team_barrier();  // every warp's part of the tables

    // 2. Elimination. a and b of step u go to ring slot u % PD, one commit group per step.
    const int* TE = T;
    const int* TS = T + 2 * S * G;
    auto load_row = [&](const int* table, int step) { return table[2 * (step * G + k)] & 0xffff; };
    auto issue = [&](int step, int slot) {
      if (step < S) {
        const int li = load_row(TE, step);
        const index_type row = li < n ? li : 0;
        copy_async<sizeof(Matrix)>(ring + (2 * slot) * 32 + lane, &op.a(s, row));
        copy_async<sizeof(Matrix)>(ring + (2 * slot + 1) * 32 + lane, &op.b(s, row));
      }
      copy_async_commit();
    };
#pragma unroll
    for (int u = 0; u < PD; ++u) issue(u, u);
    copy_async_wait<PD>();  // the staging group (and the tables')
    __syncwarp();
    bool ok = true;
    Matrix wi;
    Value xi;
    {
      const int li = load_row(TE, 0);
      wi = D[li * NPW + m];
      xi = R[li * NPW + m];
    }
    for (int s0 = 0; s0 < S; s0 += PD) {
#pragma unroll
      for (int u = 0; u < PD; ++u) {
        const int step = s0 + u;
        if (step < S) {
          const int2 entry = reinterpret_cast<const int2*>(TE)[step * G + k];  // one 8-byte load
          const int e0 = entry.x, e1 = entry.y;
          const int si = e0 >> 16, p = e1 & 0xffff, flags = e1 >> 16;
          const int next = step + 1 < S ? load_row(TE, step + 1) : n;
          const Matrix wn = D[next * NPW + m];
          const Value xn = R[next * NPW + m];
          Matrix wp = D[p * NPW + m];
          Value xp = R[p * NPW + m];
          copy_async_wait<PD - 1>();  // this step's a and b are in
          const Matrix ai = ring[(2 * u) * 32 + lane], bi = ring[(2 * u + 1) * 32 + lane];
          if (!usable_pivot(wi)) ok = false;  // a dummy step's w is the source row's 1
          Value ri;
          Matrix ci;
          quotients(xi, ai, wi, ri, ci);
          wp -= bi * ci;
          xp -= bi * ri;
          issue(step + PD, u);  // slot u is consumed
          R[si * NPW + m] = ri;
          D[si * NPW + m] = ci;
          const bool carry = (flags & warp_step_carry) != 0;
          if (!carry) {
            D[p * NPW + m] = wp;
            R[p * NPW + m] = xp;
          }
          wi = carry ? wp : wn;
          xi = carry ? xp : xn;
          if (flags & warp_step_barrier) {
            __syncwarp();
            wi = D[next * NPW + m];
            xi = R[next * NPW + m];
          }
        }
      }
    }
    __syncwarp();

    // 3. Substitution, the steps backwards.
    Value rn;
    Matrix cn;
    {
      const int li = load_row(TS, 0);
      rn = R[li * NPW + m];
      cn = D[li * NPW + m];
    }
    Value previous = 0;
    for (int step = 0; step < S; ++step) {
      const int2 entry = reinterpret_cast<const int2*>(TS)[step * G + k];
      const int e0 = entry.x, e1 = entry.y;
      const int li = e0 & 0xffff, si = e0 >> 16, p = e1 & 0xffff, flags = e1 >> 16;
      if (flags & warp_step_barrier) {  // before this step: what the other groups wrote
        __syncwarp();
        rn = R[li * NPW + m];
        cn = D[li * NPW + m];
      }
      const Value ri = rn;
      const Matrix ci = cn;
      const int next = step + 1 < S ? load_row(TS, step + 1) : n;
      rn = R[next * NPW + m];
      cn = D[next * NPW + m];
      const Value xp = (flags & warp_step_carry) ? previous : R[p * NPW + m];
      Value xv = ri;
      xv -= ci * xp;
      if (!compat::isfinite(xv)) ok = false;  // a dummy step's x is 1 - 1 x 0
      R[si * NPW + m] = xv;
      previous = xv;
    }
    __syncwarp();

    // 4. x out, but for the neurons some lane found failing: SerialHines solves them again.
    const unsigned failing = __ballot_sync(0xffffffffu, !ok);
    if (active && (failing & (0x01010101u << m)) == 0)  // the lane's neuron, every (32 / NPW)-th row
      for (int i = k; i < n; i += 32 / NPW) op.x(s, i) = R[i * NPW + m];
    if (k == 0 && active) {
      int code = status_code::ok;
      if ((failing & (0x01010101u << m)) != 0)
        code = SerialHines::invoke(n, n, op.link_rows(0), rows_of(op.a, s), rows_of(op.b, s), rows_of(op.d, s),
                                   rows_of(op.rhs, s), rows_of(op.x, s), rows_of(op.w, s));
      if (op.status.data() != nullptr) op.status(s) = code;
    }
#else
    (void)member;  // host spaces: hines::solve runs algo::PerNeuron
#endif
  }
};

}  // namespace tridiag::hines::impl

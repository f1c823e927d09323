// Experiment (not part of the library): the warp-staged Hines kernel of
// hines_warp_staged_driver.cpp with a uniform step table, to see whether its elimination, 1,220
// cycles per chain row there (latency and issue bound, docs/performance.md "a warp per few
// neurons"), can be cheap enough for issue 6's 70% of copy at 256,000 neurons. It can, for the
// 107-row cells (version 5 below on BlockInterleaved<8>: 73.4% on the H100); results and the
// steps that got there: docs/performance.md, "a warp per 8 neurons with a uniform step table".
//
// Same work as there: one warp per NPW consecutive neurons of copies of one cell (Interleaved,
// row i of neuron s at i N + s, or BlockInterleaved<8>), their d and rhs staged in shared memory,
// lane l on neuron l % NPW as group l / NPW of the library's subtree partition for 32 / NPW groups
// (given by hines_cell_dump), c_i and r_i kept in place of d and rhs, x written back: 5 values of
// DRAM traffic per row. What differs is how a lane walks its rows:
//   - the host flattens the partition into steps: step t of a level gives every group its t-th
//     row of that level, or a dummy row where the group has fewer (the trunk: group 0's rows, the
//     others dummies), so that every lane runs the same instructions with no branch on the tree
//     (one entry {load row, store row, parent row, flags} per group and step);
//   - a dummy reads a constant row (d = 1, rhs = 1: 0 / 1 would take the division's slow path)
//     and writes a sink row; a root's parent is the sink in the elimination and a zero row in the
//     substitution;
//   - the next row's entries are read from shared memory before the current row's stores (its
//     children are all eliminated by the same lane, so no store of this step or another lane's
//     can change them before the next barrier), and after a barrier they are read again;
//   - a and b come from global memory PD steps ahead: version 1 (in this file at d8226b5 only)
//     into registers, the tables read from global memory; version 2 into registers, the tables in
//     shared memory (one copy per block of WPB warps); version 3 by cp.async into a ring in shared
//     memory; version 4 as 3, a row's two divisions sharing one reciprocal (refined_reciprocal,
//     fast_quotient); version 5 as 4, d and rhs of BlockInterleaved<8> staged by 16-byte cp.async
//     (on Interleaved it is 4). One kernel, warp_uniform, with a switch per step.
// The operations on a row are those of SerialHines (serial_hines.hpp): ri = xi / wi,
// ci = ai / wi, wp -= bi ci, xp -= bi ri; then x_i = r_i - c_i x_p. So x must equal, bit for
// bit, the one-thread-per-neuron kernel below (per_neuron, SerialHines' operations and order,
// the reference), which is itself checked against a host solve (relative 1e-10); x is poisoned
// (NaN) before every timed kernel. No pivot or finiteness checks (a library kernel has them).
// Build (development machine, no Kokkos): nvcc -std=c++17 -O3 -arch=sm_90 hines_warp_uniform_driver.cu -o drv_wu
// Run: ./drv_wu N CELL_G4.txt [CELL_G8.txt ...] (files from hines_cell_dump for 4 and 8 groups;
//      a file whose groups do not match a variant's lanes skips it);
//      ./drv_wu --emulate CELL.txt ... checks the step tables on the host (no device needed).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

/// A cell as hines_cell_dump writes it.
struct CellFile {
  int n = 0, groups = 0, levels = 0;
  std::vector<int> parent, trunk;
  std::vector<std::vector<int>> slots;  // level * groups + group: rows, elimination order
};

CellFile read_cell(const std::string& path) {
  std::ifstream in(path);
  CellFile c;
  std::size_t trunk = 0;
  if (!(in >> c.n >> c.groups >> c.levels >> trunk)) {
    std::fprintf(stderr, "%s: cannot read the header\n", path.c_str());
    std::exit(1);
  }
  c.parent.resize(c.n);
  for (int& p : c.parent) in >> p;
  c.slots.resize(static_cast<std::size_t>(c.levels) * c.groups);
  for (auto& s : c.slots) {
    std::size_t count = 0;
    in >> count;
    s.resize(count);
    for (int& i : s) in >> i;
  }
  c.trunk.resize(trunk);
  for (int& i : c.trunk) in >> i;
  if (!in) {
    std::fprintf(stderr, "%s: truncated\n", path.c_str());
    std::exit(1);
  }
  return c;
}

/// One step of one group. Elimination: load row li (w, x), store r, c at si, update parent p.
/// Substitution: x(si) = R(li) - D(li) x(p). flags: 1 = carry (the updated parent / the value
/// just computed is the next step's), 2 = barrier after this step.
struct Entry {
  int li, si, p, flags;
};
constexpr int carry_flag = 1, barrier_flag = 2;

/// The uniform step tables of a cell for its groups (see the file comment).
struct Steps {
  int count = 0;
  std::vector<Entry> elim, subst;  // count x groups
};

Steps make_steps(const CellFile& c) {
  const int n = c.n, G = c.groups, source = n, sink = n + 1, zero = n + 2;
  // Segments between barriers: each level, then the trunk (group 0 alone).
  std::vector<std::vector<std::vector<int>>> segments;  // segment, group, rows
  for (int L = 0; L < c.levels; ++L) {
    std::vector<std::vector<int>> seg(G);
    for (int k = 0; k < G; ++k) seg[k] = c.slots[L * G + k];
    segments.push_back(seg);
  }
  {
    std::vector<std::vector<int>> seg(G);
    for (auto it = c.trunk.rbegin(); it != c.trunk.rend(); ++it) seg[0].push_back(*it);
    segments.push_back(seg);
  }
  Steps s;
  std::vector<std::vector<Entry>> elim;   // per step, per group
  std::vector<std::vector<int>> rows_of;  // per step, per group: the row or -1 (dummy)
  std::vector<char> barrier_after;
  for (const auto& seg : segments) {
    std::size_t len = 0;
    for (const auto& g : seg) len = std::max(len, g.size());
    if (len == 0) continue;
    for (std::size_t t = 0; t < len; ++t) {
      std::vector<Entry> step(G);
      std::vector<int> rows(G, -1);
      for (int k = 0; k < G; ++k) {
        if (t < seg[k].size()) {
          const int i = seg[k][t], p = c.parent[i];
          const bool carry = t + 1 < seg[k].size() && p >= 0 && seg[k][t + 1] == p;
          step[k] = {i, i, p >= 0 ? p : sink, carry ? carry_flag : 0};
          rows[k] = i;
        } else {
          step[k] = {source, sink, sink, 0};
        }
      }
      elim.push_back(step);
      rows_of.push_back(rows);
      barrier_after.push_back(0);
    }
    barrier_after.back() = 1;
  }
  s.count = static_cast<int>(elim.size());
  for (int t = 0; t < s.count; ++t)
    for (int k = 0; k < G; ++k) {
      Entry e = elim[t][k];
      if (barrier_after[t]) e.flags |= barrier_flag;
      s.elim.push_back(e);
    }
  // Substitution: the elimination's steps backwards, a barrier before each segment's first step
  // (backwards: the segment's last elimination step) but the trunk's; carry when the parent is
  // the row just substituted by the same group within the segment.
  s.subst.resize(s.elim.size());
  for (int r = 0; r < s.count; ++r) {
    const int t = s.count - 1 - r;  // the elimination step
    const bool barrier = r > 0 && barrier_after[t];  // t ends an elimination segment
    for (int k = 0; k < G; ++k) {
      const int i = rows_of[t][k];
      Entry e{source, sink, zero, 0};
      if (i >= 0) {
        const int p = c.parent[i];
        const int previous = (r > 0 && !barrier_after[t]) ? rows_of[t + 1][k] : -1;
        e = {i, i, p >= 0 ? p : zero, (p >= 0 && p == previous) ? carry_flag : 0};
      }
      if (barrier) e.flags |= barrier_flag;
      s.subst[static_cast<std::size_t>(r) * G + k] = e;
    }
  }
  return s;
}

/// x of the Hines system (d, a, b as in the kernels' convention, parent) by the textbook sweeps
/// on the host: the oracle of emulate() and host_check(). d and r are overwritten.
std::vector<double> host_solve(const std::vector<int>& parent, const std::vector<double>& a, const std::vector<double>& b,
                               std::vector<double>& d, std::vector<double>& r) {
  const int n = static_cast<int>(parent.size());
  for (int i = n - 1; i > 0; --i) {
    const int p = parent[i];
    const double f = b[i] / d[i];
    d[p] -= f * a[i];
    r[p] -= f * r[i];
  }
  std::vector<double> y(n);
  y[0] = r[0] / d[0];
  for (int i = 1; i < n; ++i) y[i] = (r[i] - a[i] * y[parent[i]]) / d[i];
  return y;
}

/// The kernel's walk of the step tables on the host, all groups of one neuron in lockstep (every
/// group's loads of a step before any group's stores, as the lanes of a warp may run), against a
/// plain host solve: checks the tables before any device run (`drv_wu --emulate CELL.txt`).
double emulate(const CellFile& c, const Steps& st) {
  const int n = c.n, G = c.groups, S = st.count;
  std::vector<double> a(n), b(n), d(n), r(n);
  unsigned long long seed = 12345;
  auto rnd = [&]() {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return double(seed >> 11) * (1.0 / 9007199254740992.0);
  };
  for (int i = 0; i < n; ++i) {
    a[i] = -0.1 - rnd();
    b[i] = -0.1 - rnd();
    r[i] = rnd() - 0.5;
    d[i] = 0.5 + rnd();
  }
  for (int i = 1; i < n; ++i) {
    d[i] += -a[i] + 0.1;
    d[c.parent[i]] += -b[i];
  }
  std::vector<double> D(n + 3), R(n + 3);
  for (int i = 0; i < n; ++i) D[i] = d[i], R[i] = r[i];
  D[n] = 1, R[n] = 1, D[n + 1] = 1, R[n + 1] = 0, D[n + 2] = 0, R[n + 2] = 0;
  std::vector<double> wi(G), xi(G), wn(G), xn(G), wp(G), xp(G);
  for (int k = 0; k < G; ++k) wi[k] = D[st.elim[k].li], xi[k] = R[st.elim[k].li];
  for (int s = 0; s < S; ++s) {
    for (int k = 0; k < G; ++k) {
      const Entry& e = st.elim[s * G + k];
      const int next = s + 1 < S ? st.elim[(s + 1) * G + k].li : n;
      wn[k] = D[next], xn[k] = R[next], wp[k] = D[e.p], xp[k] = R[e.p];
    }
    bool barrier = false;
    for (int k = 0; k < G; ++k) {
      const Entry& e = st.elim[s * G + k];
      const double ai = e.li < n ? a[e.li] : a[0], bi = e.li < n ? b[e.li] : b[0];
      const double ri = xi[k] / wi[k], ci = ai / wi[k];
      wp[k] -= bi * ci;
      xp[k] -= bi * ri;
      R[e.si] = ri, D[e.si] = ci;
      const bool carry = e.flags & carry_flag;
      if (!carry) D[e.p] = wp[k], R[e.p] = xp[k];
      wi[k] = carry ? wp[k] : wn[k];
      xi[k] = carry ? xp[k] : xn[k];
      barrier = barrier || (e.flags & barrier_flag);
    }
    if (barrier)
      for (int k = 0; k < G; ++k) {
        const int next = s + 1 < S ? st.elim[(s + 1) * G + k].li : n;
        wi[k] = D[next], xi[k] = R[next];
      }
  }
  std::vector<double> rn(G), cn(G), prev(G, 0.0), xpv(G);
  for (int k = 0; k < G; ++k) rn[k] = R[st.subst[k].li], cn[k] = D[st.subst[k].li];
  for (int s = 0; s < S; ++s) {
    if (st.subst[s * G].flags & barrier_flag)
      for (int k = 0; k < G; ++k) rn[k] = R[st.subst[s * G + k].li], cn[k] = D[st.subst[s * G + k].li];
    std::vector<double> ri = rn, ci = cn;
    for (int k = 0; k < G; ++k) {
      const Entry& e = st.subst[s * G + k];
      const int next = s + 1 < S ? st.subst[(s + 1) * G + k].li : n;
      rn[k] = R[next], cn[k] = D[next];
      xpv[k] = (e.flags & carry_flag) ? prev[k] : R[e.p];
    }
    for (int k = 0; k < G; ++k) {
      const Entry& e = st.subst[s * G + k];
      const double xv = ri[k] - ci[k] * xpv[k];
      R[e.si] = xv;
      prev[k] = xv;
    }
  }
  const std::vector<double> y = host_solve(c.parent, a, b, d, r);
  double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(R[i] - y[i]) / std::max(1.0, std::fabs(y[i])));
  return worst;
}

// ---------------------------------------------------------------------------------------------
// Inputs: diagonally dominant random values, as docs/experiments/hines_driver_common.hpp (Fill).

/// Where row i of neuron s lies: Interleaved (block 0: i * N + s) or BlockInterleaved<block>
/// (the neurons in blocks of `block`, each block's rows one after another: ((s / block) n + i)
/// block + s % block). As base + i * stride.
struct Place {
  long base, stride;
  __host__ __device__ Place(long s, long N, int n, int block)
      : base(block == 0 ? s : (s / block) * n * block + s % block), stride(block == 0 ? N : block) {}
  __host__ __device__ long operator()(long i) const { return base + i * stride; }
};

__global__ void fill(double* a, double* b, double* d, double* rhs, double* x, const int* parent, int n, long N, int block) {
  const long s = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (s >= N) return;
  const Place at(s, N, n, block);
  unsigned long long st = 1469598103934665603ull ^ (s * 1099511628211ull);
  auto rnd = [&]() {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    return double(st >> 11) * (1.0 / 9007199254740992.0);
  };
  for (int i = 0; i < n; ++i) {
    a[at(i)] = -0.1 - rnd();
    b[at(i)] = -0.1 - rnd();
    rhs[at(i)] = rnd() - 0.5;
    x[at(i)] = 0.0 / 0.0;
    d[at(i)] = 0.5 + rnd();
  }
  for (int i = 1; i < n; ++i) {
    const int p = parent[i];
    d[at(i)] += -a[at(i)] + 0.1;
    d[at(p)] += -b[at(i)];
  }
}

// ---------------------------------------------------------------------------------------------
// Reference: one thread per neuron, SerialHines' operations in its order (w scratch, carried
// parent along unbranched stretches). links: bit 0 has children, bit 1 first child (the highest
// child, the first the sweep meets), parent = links >> 2 (-1 encoded as -1 >> 2 handled below).

__global__ void per_neuron(const double* a, const double* b, const double* d, const double* rhs, double* x, double* w,
                           const int* parent, const int* flags, int n, long N, int block) {
  const long s = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (s >= N) return;
  const Place at_(s, N, n, block);
  double wc = 0, xc = 0;
  bool carried = false;
  for (int i = n - 1; i >= 0; --i) {
    const long at = at_(i);
    const int p = parent[i], f = flags[i];
    double wi, xi;
    if (carried) {
      wi = wc;
      xi = xc;
    } else if (!(f & 1)) {
      wi = d[at];
      xi = rhs[at];
    } else {
      wi = w[at];
      xi = x[at];
    }
    double ai = 0, bi = 0, wp = 0, xp = 0;
    if (p >= 0) {
      ai = a[at];
      bi = b[at];
      if (f & 2) {
        wp = d[at_(p)];
        xp = rhs[at_(p)];
      } else {
        wp = w[at_(p)];
        xp = x[at_(p)];
      }
    }
    carried = false;
    const double ri = xi / wi;
    x[at] = ri;
    if (p >= 0) {
      const double ci = ai / wi;
      w[at] = ci;
      wp -= bi * ci;
      xp -= bi * ri;
      if (p == i - 1) {
        wc = wp;
        xc = xp;
        carried = true;
      } else {
        w[at_(p)] = wp;
        x[at_(p)] = xp;
      }
    }
  }
  double previous = 0;
  for (int i = 0; i < n; ++i) {
    const long at = at_(i);
    const int p = parent[i];
    double xi = x[at];
    if (p >= 0) xi -= w[at] * (p == i - 1 ? previous : x[at_(p)]);
    x[at] = xi;
    previous = xi;
  }
}

// ---------------------------------------------------------------------------------------------
// The uniform warp-staged kernel, versions 2 to 5 (version 1, the tables read from global memory
// and a and b into registers 1 step ahead, is in this file at d8226b5 only):
//   2 (RING false): the tables, packed into 8 bytes per entry, copied once per block of WPB warps
//     into shared memory; a and b PD steps ahead in registers, a slot refilled after its last use.
//     (Nsight Compute on version 1: its warps waited on a and b at the register moves rotating the
//     ring, and on the tables' loads, which missed L1 behind the streams of a and b.)
//   3 (RING): a and b copied by cp.async into a ring of PD slots in shared memory, one commit
//     group per step, cp.async.wait_group PD - 1 before a step reads its slot. (Version 2's warps
//     still waited on a and b at every step whatever the distance, with 3 warps per
//     multiprocessor as well: the loads in flight share the warp's few scoreboards, and waiting
//     for the oldest waits for the newest.)
//   4 (RING, FUSED): a row's two divisions through refined_reciprocal and fast_quotient.
//   5 (RING, FUSED, ASYNC): the d and rhs of a BlockInterleaved<NPW> batch staged by 16-byte
//     cp.async, all in flight at once (on Interleaved, ASYNC changes nothing).

struct Args {
  const double *a, *b, *d, *rhs;
  double* x;
  long N;
  int n, steps;
  const int2* tables;  // elimination then substitution, steps x groups each: {li | si << 16, p | flags << 16}
  long long* phases;
};


/// The fast path of CUDA's double division (div.rn.f64 as ptxas expands it: the SASS of version
/// 2), split so that one reciprocal serves both of a row's quotients and their refinements
/// overlap: r refined from the hardware approximation by two Newton steps, q = x r corrected by
/// one fused residual. Where CUDA's own checks (the numerator not tiny, the quotient's exponent in
/// range, w finite) fail, the caller divides with `/`. q is then the correctly rounded quotient,
/// which is unique: the same bits as x / w (checked against the reference, bit for bit).
__device__ __forceinline__ double refined_reciprocal(double w) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(w));
  double e = fma(-w, r, 1.0);
  e = fma(e, e, e);
  r = fma(r, e, r);
  e = fma(-w, r, 1.0);
  return fma(r, e, r);
}
__device__ __forceinline__ bool fast_quotient(double x, double w, double r, double& q) {
  const double q0 = x * r;
  q = fma(r, fma(-w, q0, x), q0);
  const float x_hi = __int_as_float(__double2hiint(x)), q_hi = __int_as_float(__double2hiint(q));
  const float w_hi = __int_as_float(__double2hiint(w));
  return fabsf(x_hi) >= 6.5827683646048100446e-37f && fabsf(fmaf(0.0f, w_hi, q_hi)) > 1.469367938527859385e-39f;
}

template <int NPW, int PD, int WPB, int BLK, bool RING, bool FUSED, bool ASYNC>
__global__ void __launch_bounds__(32 * WPB) warp_uniform(Args g) {
  extern __shared__ double sh[];
  constexpr int G = 32 / NPW;
  const long long clock0 = clock64();
  long long clocks[4];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, m = lane % NPW, k = lane / NPW;
  const int n = g.n, S = g.steps;
  const long N = g.N;
  // Row i of this warp's neuron m at base + i * stride + m (BLK: 0 Interleaved, else
  // BlockInterleaved<BLK>, NPW dividing BLK).
  const long first = (static_cast<long>(blockIdx.x) * WPB + warp) * NPW;
  const long base = BLK == 0 ? first : (first / BLK) * n * BLK + first % BLK;
  constexpr long blk_stride = BLK;
  const long stride = BLK == 0 ? N : blk_stride;
  const int rows = n + 3;
  int2* TE = reinterpret_cast<int2*>(sh);
  const int2* TS = TE + S * G;
  constexpr int ring_values = RING ? 2 * 32 * PD : 0;
  double* D = sh + 2 * S * G + warp * (2 * rows * NPW + ring_values);
  double* R = D + rows * NPW;
  double* ab = R + rows * NPW;  // RING: slot u's a at ab[2 u 32 + lane], b at ab[(2 u + 1) 32 + lane]
  if constexpr (RING && ASYNC && BLK == NPW) {
    // The warp's d and rhs are contiguous (n NPW values each): all in flight at once, 16 bytes
    // per copy, into shared memory without registers (one commit group, waited for below).
    for (int e2 = lane; e2 < n * NPW / 2; e2 += 32) {
      const unsigned dd = static_cast<unsigned>(__cvta_generic_to_shared(D + 2 * e2));
      const unsigned dr = static_cast<unsigned>(__cvta_generic_to_shared(R + 2 * e2));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dd), "l"(g.d + base + 2 * e2) : "memory");
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dr), "l"(g.rhs + base + 2 * e2) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  } else {  // element e = row * NPW + neuron; loads and shared-memory stores, 8 rows unrolled
#pragma unroll 8
    for (int e = lane; e < n * NPW; e += 32) {
      const long at = static_cast<long>(e / NPW) * stride + base + e % NPW;
      D[e] = g.d[at];
      R[e] = g.rhs[at];
    }
  }
  for (int j = threadIdx.x; j < 2 * S * G; j += 32 * WPB) TE[j] = g.tables[j];
  if (lane < NPW) {
    D[n * NPW + lane] = 1;
    R[n * NPW + lane] = 1;
    D[(n + 1) * NPW + lane] = 1;
    R[(n + 1) * NPW + lane] = 0;
    D[(n + 2) * NPW + lane] = 0;
    R[(n + 2) * NPW + lane] = 0;
  }
  __syncthreads();
  clocks[0] = clock64();
  const double* A = g.a + base + m;
  const double* B = g.b + base + m;
  auto load_row = [&](int2 e) { return e.x & 0xffff; };
  // RING: a and b of step s copied by cp.async into slot s % PD, one commit group per step; else
  // loaded into registers an[s % PD], bn[s % PD].
  double an[PD], bn[PD];
  auto issue = [&](int s, int slot) {
    const int li = s < S ? load_row(TE[s * G + k]) : 0;
    const long ga = li < n ? li : 0;
    if constexpr (RING) {
      if (s < S) {
        const unsigned da = static_cast<unsigned>(__cvta_generic_to_shared(ab + (2 * slot) * 32 + lane));
        const unsigned db = static_cast<unsigned>(__cvta_generic_to_shared(ab + (2 * slot + 1) * 32 + lane));
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(da), "l"(A + ga * stride) : "memory");
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(db), "l"(B + ga * stride) : "memory");
      }
      asm volatile("cp.async.commit_group;" ::: "memory");
    } else if (s < S) {
      an[slot] = A[ga * stride];
      bn[slot] = B[ga * stride];
    }
  };
#pragma unroll
  for (int u = 0; u < PD; ++u) issue(u, u);
  if constexpr (RING && ASYNC && BLK == NPW) {  // the staging group, committed before the ring's PD
    asm volatile("cp.async.wait_group %0;" ::"n"(PD) : "memory");
    __syncwarp();
  }
  double wi, xi;
  {
    const int li = load_row(TE[k]);
    wi = D[li * NPW + m];
    xi = R[li * NPW + m];
  }
  for (int s0 = 0; s0 < S; s0 += PD) {
#pragma unroll
    for (int u = 0; u < PD; ++u) {
      const int s = s0 + u;
      if (s < S) {
        const int2 e = TE[s * G + k];
        const int si = e.x >> 16, p = e.y & 0xffff, flags = e.y >> 16;
        const int next = s + 1 < S ? load_row(TE[(s + 1) * G + k]) : n;
        const double wn = D[next * NPW + m], xn = R[next * NPW + m];
        double wp = D[p * NPW + m], xp = R[p * NPW + m];
        double ai, bi;
        if constexpr (RING) {
          asm volatile("cp.async.wait_group %0;" ::"n"(PD - 1) : "memory");  // step s's group is in
          ai = ab[(2 * u) * 32 + lane];
          bi = ab[(2 * u + 1) * 32 + lane];
        } else {
          ai = an[u];
          bi = bn[u];
        }
        double ri, ci;
        if constexpr (FUSED) {
          const double r = refined_reciprocal(wi);
          if (!fast_quotient(xi, wi, r, ri) | !fast_quotient(ai, wi, r, ci)) {
            ri = xi / wi;
            ci = ai / wi;
          }
        } else {
          ri = xi / wi;
          ci = ai / wi;
        }
        wp -= bi * ci;
        xp -= bi * ri;
        issue(s + PD, u);  // slot u's a and b are consumed (ci, wp, xp depend on them)
        R[si * NPW + m] = ri;
        D[si * NPW + m] = ci;
        const bool carry = (flags & carry_flag) != 0;
        if (!carry) {
          D[p * NPW + m] = wp;
          R[p * NPW + m] = xp;
        }
        wi = carry ? wp : wn;
        xi = carry ? xp : xn;
        if (flags & barrier_flag) {
          __syncwarp();
          wi = D[next * NPW + m];
          xi = R[next * NPW + m];
        }
      }
    }
  }
  __syncwarp();
  clocks[1] = clock64();
  double rn, cn;
  {
    const int li = load_row(TS[k]);
    rn = R[li * NPW + m];
    cn = D[li * NPW + m];
  }
  double previous = 0;
  for (int s = 0; s < S; ++s) {
    const int2 e = TS[s * G + k];
    const int li = e.x & 0xffff, si = e.x >> 16, p = e.y & 0xffff, flags = e.y >> 16;
    if (flags & barrier_flag) {
      __syncwarp();
      rn = R[li * NPW + m];
      cn = D[li * NPW + m];
    }
    const double ri = rn, ci = cn;
    const int next = s + 1 < S ? load_row(TS[(s + 1) * G + k]) : n;
    rn = R[next * NPW + m];
    cn = D[next * NPW + m];
    const double xp = (flags & carry_flag) ? previous : R[p * NPW + m];
    double xv = ri;
    xv -= ci * xp;
    R[si * NPW + m] = xv;
    previous = xv;
  }
  __syncwarp();
  clocks[2] = clock64();
  for (int e = lane; e < n * NPW; e += 32) g.x[static_cast<long>(e / NPW) * stride + base + e % NPW] = R[e];
  clocks[3] = clock64();
  if (g.phases != nullptr && lane == 0) {
    long long* out = g.phases + 4 * (static_cast<long>(blockIdx.x) * WPB + warp);
    out[0] = clocks[0] - clock0;
    for (int q = 1; q < 4; ++q) out[q] = clocks[q] - clocks[q - 1];
  }
}

// ---------------------------------------------------------------------------------------------

template <class Launch>
float median_ms(const Launch& launch, int reps = 9) {
  cudaEvent_t t0, t1;
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(t0));
    launch();
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

/// Device copy bandwidth, GB/s: cudaMemcpy of 1 GiB device to device, read + write counted (as
/// tridiag-bench copy, Kokkos::deep_copy).
double copy_bandwidth() {
  const std::size_t bytes = std::size_t(1) << 30;
  void *src, *dst;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  const float ms = median_ms([&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

struct Batch {
  int n;
  long N;
  int block;  // 0: Interleaved, else BlockInterleaved<block>
  double *a, *b, *d, *rhs, *x, *w;
  int *parent, *flags;
  Batch(const CellFile& c, long N_, int block_) : n(c.n), N(N_), block(block_) {
    const std::size_t bytes = sizeof(double) * n * N;
    for (double** p : {&a, &b, &d, &rhs, &x, &w}) CHECK(cudaMalloc(p, bytes));
    std::vector<int> f(n, 0);
    for (int i = n - 1; i >= 0; --i) {
      const int p = c.parent[i];
      if (p >= 0) {
        if (!(f[p] & 1)) f[i] |= 2;
        f[p] |= 1;
      }
    }
    CHECK(cudaMalloc(&parent, sizeof(int) * n));
    CHECK(cudaMalloc(&flags, sizeof(int) * n));
    CHECK(cudaMemcpy(parent, c.parent.data(), sizeof(int) * n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(flags, f.data(), sizeof(int) * n, cudaMemcpyHostToDevice));
    fill<<<(N + 127) / 128, 128>>>(a, b, d, rhs, x, parent, n, N, block);
    CHECK(cudaDeviceSynchronize());
  }
  ~Batch() {
    for (double* p : {a, b, d, rhs, x, w}) cudaFree(p);
    cudaFree(parent);
    cudaFree(flags);
  }
  void poison() const { CHECK(cudaMemset(x, 0xff, sizeof(double) * n * N)); }  // NaN
  std::vector<double> x_host() const {
    std::vector<double> h(static_cast<std::size_t>(n) * N);
    CHECK(cudaMemcpy(h.data(), x, sizeof(double) * h.size(), cudaMemcpyDeviceToHost));
    return h;
  }
};

/// Largest |x - x_host solve| / max(1, |x|) over `samples` neurons, a plain host Hines solve
/// (independent of both kernels' code: dense-free, children summed in any order).
double host_check(const CellFile& c, const Batch& p, const std::vector<double>& x, int samples) {
  const int n = c.n;
  const long N = p.N;
  std::vector<double> a(n), b(n), d(n), r(n);
  double worst = 0;
  for (int q = 0; q < samples; ++q) {
    const long s = (q * 7919L) % N;
    const Place at(s, N, n, p.block);
    for (int i = 0; i < n; ++i) {
      CHECK(cudaMemcpy(&a[i], p.a + at(i), 8, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&b[i], p.b + at(i), 8, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&d[i], p.d + at(i), 8, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&r[i], p.rhs + at(i), 8, cudaMemcpyDeviceToHost));
    }
    const std::vector<double> y = host_solve(c.parent, a, b, d, r);
    for (int i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(x[at(i)] - y[i]) / std::max(1.0, std::fabs(y[i])));
  }
  return worst;
}

/// Times version V (2 to 5, see warp_uniform) on the batch, checks x bit for bit against the
/// reference and prints the mean cycles of each phase per warp (one more, clocked run).
template <int V, int NPW, int PD, int WPB>
void run_uniform(const CellFile& c, const Batch& p, const std::vector<double>& reference, double copy) {
  constexpr bool ring = V >= 3, fused = V >= 4, async = V >= 5;
  if (32 / NPW != c.groups || (p.block != 0 && p.block != 8)) return;
  const Steps st = make_steps(c);
  const long warps = p.N / NPW;
  char what[96];
  std::snprintf(what, sizeof what, "v%d %d neurons x %d lanes, PD %d, %d/block", V, NPW, 32 / NPW, PD, WPB);
  const std::size_t per_warp = (std::size_t(2) * (c.n + 3) * NPW + (ring ? 2 * 32 * PD : 0)) * sizeof(double);
  const std::size_t bytes = WPB * per_warp + st.elim.size() * 2 * sizeof(int2);
  if (bytes > 227 * 1024 || p.N % NPW != 0 || warps % WPB != 0 || c.n + 3 > 0xffff) {
    std::printf("  %-34s skipped (%zu bytes of shared memory per block)\n", what, bytes);
    return;
  }
  std::vector<int2> packed;
  for (const auto* t : {&st.elim, &st.subst})
    for (const Entry& e : *t) packed.push_back({e.li | (e.si << 16), e.p | (e.flags << 16)});
  int2* tables;
  CHECK(cudaMalloc(&tables, sizeof(int2) * packed.size()));
  CHECK(cudaMemcpy(tables, packed.data(), sizeof(int2) * packed.size(), cudaMemcpyHostToDevice));
  const unsigned blocks = static_cast<unsigned>(warps / WPB);
  long long* phases;
  CHECK(cudaMalloc(&phases, sizeof(long long) * 4 * warps));
  auto kernel = p.block == 0 ? warp_uniform<NPW, PD, WPB, 0, ring, fused, async>
                             : warp_uniform<NPW, PD, WPB, 8, ring, fused, async>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * WPB, bytes));
  auto launch = [&](long long* ph) {
    Args g{p.a, p.b, p.d, p.rhs, p.x, p.N, c.n, st.count, tables, ph};
    kernel<<<blocks, 32 * WPB, bytes>>>(g);
  };
  p.poison();
  const float ms = median_ms([&] { launch(nullptr); });
  const std::vector<double> x = p.x_host();
  std::size_t differ = 0;
  for (std::size_t j = 0; j < x.size(); ++j)
    if (!(x[j] == reference[j]) && !(x[j] != x[j] && reference[j] != reference[j])) ++differ;
  launch(phases);
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> h(4 * std::size_t(warps));
  CHECK(cudaMemcpy(h.data(), phases, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost));
  double mean[4] = {0, 0, 0, 0};
  for (long w = 0; w < warps; ++w)
    for (int q = 0; q < 4; ++q) mean[q] += double(h[4 * w + q]) / warps;
  const double useful = 5.0 * 8 * p.N * c.n;
  std::printf("  %-34s %8.4f ms  %5.1f%% of copy  %2d warps/SM  %d steps  x %s (%zu differ)\n", what, ms,
              useful / (ms * 1e-3) / 1e9 / copy * 100, per_sm * WPB, st.count,
              differ == 0 ? "bitwise = reference" : "DIFFERENT", differ);
  std::printf("    cycles per warp (mean): staging %.0f, elimination %.0f, substitution %.0f, store %.0f; %.0f per step\n",
              mean[0], mean[1], mean[2], mean[3], mean[1] / st.count);
  CHECK(cudaFree(phases));
  CHECK(cudaFree(tables));
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N CELL.txt [CELL.txt ...]\n", argv[0]);
    return 2;
  }
  if (std::string(argv[1]) == "--emulate") {
    int failed = 0;
    for (int f = 2; f < argc; ++f) {
      const CellFile c = read_cell(argv[f]);
      const Steps st = make_steps(c);
      const double err = emulate(c, st);
      std::printf("%s: %d rows, %d groups, %d steps, emulated x against a host solve %.1e %s\n", argv[f], c.n,
                  c.groups, st.count, err, err < 1e-12 ? "ok" : "FAILED");
      failed += err < 1e-12 ? 0 : 1;
    }
    return failed;
  }
  const long N = std::atol(argv[1]);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const double copy = copy_bandwidth();
  std::printf("device %s, copy %.0f GB/s, N = %ld\n", prop.name, copy, N);
  for (int f = 2; f < argc; ++f) {
    const CellFile c = read_cell(argv[f]);
    std::printf("== %s: %d rows, %d groups, %d levels, trunk %zu\n", argv[f], c.n, c.groups, c.levels, c.trunk.size());
    for (int block : {0, 8}) {
      Batch p(c, N, block);
      const double useful = 5.0 * 8 * N * c.n;
      p.poison();
      const float ms = median_ms([&] {
        per_neuron<<<(N + 127) / 128, 128>>>(p.a, p.b, p.d, p.rhs, p.x, p.w, p.parent, p.flags, c.n, N, block);
      });
      const std::vector<double> reference = p.x_host();
      const double err = host_check(c, p, reference, 4);
      std::printf(" %s:\n  %-34s %8.4f ms  %5.1f%% of copy  host check %.1e %s\n",
                  block == 0 ? "Interleaved" : "BlockInterleaved<8>", "per_neuron (reference)", ms,
                  useful / (ms * 1e-3) / 1e9 / copy * 100, err, err < 1e-10 ? "ok" : "FAILED");
      run_uniform<2, 8, 8, 1>(c, p, reference, copy);
      run_uniform<3, 8, 4, 2>(c, p, reference, copy);
      run_uniform<4, 8, 4, 2>(c, p, reference, copy);
      run_uniform<5, 8, 4, 2>(c, p, reference, copy);
      run_uniform<5, 8, 2, 2>(c, p, reference, copy);
      run_uniform<5, 8, 4, 4>(c, p, reference, copy);
      run_uniform<5, 4, 4, 4>(c, p, reference, copy);
    }
  }
  return 0;
}

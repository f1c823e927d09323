// Design study behind the partitioned solver's GPU kernel (not part of the library; results in
// docs/results/h100_partitioned_prototype.txt, discussed in docs/performance.md).
// Flat-layout partitioned tridiagonal solver, P threads per system, M consecutive rows per thread
// in registers, one CR step + PCR on the interface system with warp shuffles (P <= 32) or shared
// memory (P > 32). Variants of the load path:
//   LOAD=0 direct 16-byte vector loads (L1 merges the two halves of each sector)
//   LOAD=1 coalesced warp loads transposed through shared memory (per-warp buffer, __syncwarp)
// Checks every variant against a double CPU Thomas on sampled systems, times median of reps.
// Build and run: nvcc -O3 -arch=sm_90 -std=c++17 -o proto warp_partitioned_prototype.cu && ./proto
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1);} } while (0)

template <class T> struct V16;
template <> struct V16<double> { using type = double2; static constexpr int n = 2; };
template <> struct V16<float> { using type = float4; static constexpr int n = 4; };

template <class T>
__device__ __forceinline__ T shfl_up(T v, int d) { return __shfl_up_sync(0xffffffffu, v, d); }
template <class T>
__device__ __forceinline__ T shfl_down(T v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }

// Loads M consecutive values starting at p (aligned to M*sizeof(T)) into r.
template <class T, int M>
__device__ __forceinline__ void load_direct(T (&r)[M], const T* p) {
  using Vt = typename V16<T>::type;
  constexpr int W = V16<T>::n;
  static_assert(M % W == 0, "M multiple of vector width");
  const Vt* q = reinterpret_cast<const Vt*>(p);
#pragma unroll
  for (int u = 0; u < M / W; ++u) {
    Vt v = q[u];
    const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int k = 0; k < W; ++k) r[u * W + k] = e[k];
  }
}
template <class T, int M>
__device__ __forceinline__ void store_direct(const T (&r)[M], T* p) {
  using Vt = typename V16<T>::type;
  constexpr int W = V16<T>::n;
  Vt* q = reinterpret_cast<Vt*>(p);
#pragma unroll
  for (int u = 0; u < M / W; ++u) {
    Vt v;
    T* e = reinterpret_cast<T*>(&v);
#pragma unroll
    for (int k = 0; k < W; ++k) e[k] = r[u * W + k];
    q[u] = v;
  }
}

// Warp-coalesced: the warp's 32*M values at wp (contiguous) -> lane's M values via smem buffer
// buf (32*M + pads). Pads: one 16-byte slot after every M values of a lane.
template <class T, int M>
struct WarpStage {
  static constexpr int W = V16<T>::n;
  static constexpr int stride = M + W;  // padded lane stride in T
  static constexpr int size = 32 * stride;
  __device__ __forceinline__ static void load(T (&r)[M], const T* wp, T* buf, int lane, bool full) {
    using Vt = typename V16<T>::type;
    const Vt* q = reinterpret_cast<const Vt*>(wp);
    constexpr int per_lane = M / W;  // vectors per lane
    Vt v[per_lane];
#pragma unroll
    for (int u = 0; u < per_lane; ++u) v[u] = full ? q[u * 32 + lane] : Vt{};
#pragma unroll
    for (int u = 0; u < per_lane; ++u) {
      const int e = (u * 32 + lane) * W;      // element index in warp chunk
      const int owner = e / M, off = e % M;   // lane owning it, offset
      *reinterpret_cast<Vt*>(buf + owner * stride + off) = v[u];
    }
    __syncwarp();
#pragma unroll
    for (int u = 0; u < per_lane; ++u) {
      Vt w = *reinterpret_cast<const Vt*>(buf + lane * stride + u * W);
      const T* e = reinterpret_cast<const T*>(&w);
#pragma unroll
      for (int k = 0; k < W; ++k) r[u * W + k] = e[k];
    }
    __syncwarp();
  }
  __device__ __forceinline__ static void store(const T (&r)[M], T* wp, T* buf, int lane, bool full) {
    using Vt = typename V16<T>::type;
    constexpr int per_lane = M / W;
#pragma unroll
    for (int u = 0; u < per_lane; ++u) {
      Vt w;
      T* e = reinterpret_cast<T*>(&w);
#pragma unroll
      for (int k = 0; k < W; ++k) e[k] = r[u * W + k];
      *reinterpret_cast<Vt*>(buf + lane * stride + u * W) = w;
    }
    __syncwarp();
    Vt* q = reinterpret_cast<Vt*>(wp);
#pragma unroll
    for (int u = 0; u < per_lane; ++u) {
      const int e = (u * 32 + lane) * W;
      const int owner = e / M, off = e % M;
      Vt v = *reinterpret_cast<const Vt*>(buf + owner * stride + off);
      if (full) q[u * 32 + lane] = v;
    }
    __syncwarp();
  }
};

// n == P * M exactly; blockDim.x == 256; total threads = nsys * P rounded up to the block.
template <class T, int M, int P, int LOAD>
__global__ void __launch_bounds__(256) wp_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                                 const T* __restrict__ c, const T* __restrict__ d,
                                                 T* __restrict__ x, long long total_rows) {
  constexpr int WS = WarpStage<T, M>::size;
  __shared__ __align__(16) T stage[(LOAD == 1) ? 8 * WS : 1];
  __shared__ T xa[P > 32 ? 256 : 1], xc[P > 32 ? 256 : 1], xd[P > 32 ? 256 : 1];
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int t = (int)(g % P);
  const long long row0 = g * M;
  const bool active = row0 < total_rows;
  T ra[M], rb[M], rc[M], rd[M];
  if (LOAD == 0) {
    if (active) {
      load_direct<T, M>(ra, a + row0);
      load_direct<T, M>(rb, b + row0);
      load_direct<T, M>(rc, c + row0);
      load_direct<T, M>(rd, d + row0);
    } else {
#pragma unroll
      for (int j = 0; j < M; ++j) { ra[j] = 0; rb[j] = 1; rc[j] = 0; rd[j] = 0; }
    }
  } else {
    const long long wrow = (g - lane) * M;
    const bool full = wrow + 32LL * M <= total_rows;  // prototype: whole warps only
    T* buf = stage + warp * WS;
    WarpStage<T, M>::load(ra, a + wrow, buf, lane, full);
    WarpStage<T, M>::load(rb, b + wrow, buf, lane, full);
    WarpStage<T, M>::load(rc, c + wrow, buf, lane, full);
    WarpStage<T, M>::load(rd, d + wrow, buf, lane, full);
    if (!active) {
#pragma unroll
      for (int j = 0; j < M; ++j) { ra[j] = 0; rb[j] = 1; rc[j] = 0; rd[j] = 0; }
    }
  }
  if (t == 0) ra[0] = 0;
  if (t == P - 1) rc[M - 1] = 0;
  // Chunk elimination: every row in terms of x(first), x(last).
  T al[M], ga[M], de[M];
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const T w = j < 2 ? rb[j] : rb[j] - ra[j] * ga[j - 1];
    const T inv = T(1) / w;
    de[j] = j < 2 ? rd[j] * inv : (rd[j] - ra[j] * de[j - 1]) * inv;
    al[j] = j < 2 ? ra[j] * inv : -ra[j] * al[j - 1] * inv;
    ga[j] = rc[j] * inv;
  }
#pragma unroll
  for (int j = M - 3; j >= 1; --j) {
    const T gj = ga[j];
    de[j] = de[j] - gj * de[j + 1];
    al[j] = al[j] - gj * al[j + 1];
    ga[j] = -gj * ga[j + 1];
  }
  {
    const T g0 = ga[0];
    const T inv = T(1) / (T(1) - g0 * al[1]);
    de[0] = (de[0] - g0 * de[1]) * inv;
    al[0] = al[0] * inv;
    ga[0] = -g0 * ga[1] * inv;
  }
  // One CR step: the last row of each chunk in terms of the neighbours' last unknowns.
  T an, gn, dn;  // next thread's first row
  if (P <= 32) {
    an = shfl_down(al[0], 1); gn = shfl_down(ga[0], 1); dn = shfl_down(de[0], 1);
  } else {
    xa[threadIdx.x] = al[0]; xc[threadIdx.x] = ga[0]; xd[threadIdx.x] = de[0];
    __syncthreads();
    const int nb = threadIdx.x + 1 < 256 ? threadIdx.x + 1 : threadIdx.x;
    an = xa[nb]; gn = xc[nb]; dn = xd[nb];
    __syncthreads();
  }
  if (t == P - 1) { an = 0; gn = 0; dn = 0; }
  const T aL = al[M - 1], gL = ga[M - 1];
  T A = -aL * al[0];
  T B = T(1) - aL * ga[0] - gL * an;
  T C = -gL * gn;
  T D = de[M - 1] - aL * de[0] - gL * dn;
  {
    const T inv = T(1) / B;
    A *= inv; C *= inv; D *= inv;
  }
  // PCR on the P last unknowns, one per thread.
#pragma unroll
  for (int s = 1; s < P; s *= 2) {
    T Am, Cm, Dm, Ap, Cp, Dp;
    if (P <= 32) {
      Am = shfl_up(A, s); Cm = shfl_up(C, s); Dm = shfl_up(D, s);
      Ap = shfl_down(A, s); Cp = shfl_down(C, s); Dp = shfl_down(D, s);
    } else {
      xa[threadIdx.x] = A; xc[threadIdx.x] = C; xd[threadIdx.x] = D;
      __syncthreads();
      const int lo = (int)threadIdx.x - s >= 0 ? (int)threadIdx.x - s : (int)threadIdx.x;  // (the measured run lacked the int casts: an out-of-range read, masked below)
      const int hi = threadIdx.x + s < 256 ? threadIdx.x + s : threadIdx.x;
      Am = xa[lo]; Cm = xc[lo]; Dm = xd[lo];
      Ap = xa[hi]; Cp = xc[hi]; Dp = xd[hi];
      __syncthreads();
    }
    if (t - s < 0) { Am = 0; Cm = 0; Dm = 0; }
    if (t + s >= P) { Ap = 0; Cp = 0; Dp = 0; }
    const T inv = T(1) / (T(1) - A * Cm - C * Ap);
    const T nA = -A * Am * inv, nC = -C * Cp * inv, nD = (D - A * Dm - C * Dp) * inv;
    A = nA; C = nC; D = nD;
  }
  const T xl = D;
  T xprev;
  if (P <= 32) {
    xprev = shfl_up(xl, 1);
  } else {
    xd[threadIdx.x] = xl;
    __syncthreads();
    xprev = xd[threadIdx.x > 0 ? threadIdx.x - 1 : 0];
  }
  if (t == 0) xprev = 0;
  const T xf = de[0] - al[0] * xprev - ga[0] * xl;
  T rx[M];
#pragma unroll
  for (int j = 0; j < M; ++j) rx[j] = j == 0 ? xf : j == M - 1 ? xl : de[j] - al[j] * xf - ga[j] * xl;
  if (LOAD == 0) {
    if (active) store_direct<T, M>(rx, x + row0);
  } else {
    const long long wrow = (g - lane) * M;
    const bool full = wrow + 32LL * M <= total_rows;
    WarpStage<T, M>::store(rx, x + wrow, stage + warp * WS, lane, full);
  }
}

// Plain one-thread-per-system Thomas on the interleaved layout (reference timing), workspace g.
template <class T>
__global__ void thomas_interleaved(const T* a, const T* b, const T* c, const T* d, T* x, T* gw, int nsys, int n) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsys) return;
  T inv = T(1) / b[s];
  T gp = c[s] * inv, xp = d[s] * inv;
  gw[s] = gp; x[s] = xp;
  for (int i = 1; i < n; ++i) {
    const long long k = (long long)i * nsys + s;
    const T ai = a[k];
    inv = T(1) / (b[k] - ai * gp);
    xp = (d[k] - ai * xp) * inv;
    x[k] = xp;
    gp = c[k] * inv;
    gw[k] = gp;
  }
  for (int i = n - 2; i >= 0; --i) {
    const long long k = (long long)i * nsys + s;
    xp = x[k] - gw[k] * xp;
    x[k] = xp;
  }
}

template <class T>
__global__ void fill(T* a, T* b, T* c, T* d, long long N, unsigned seed) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < N; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)(i * 2654435761u) ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    const T r1 = T((h & 0xffff) / 65536.0), r2 = T(((h >> 16) & 0xffff) / 65536.0);
    a[i] = -0.5 - r1; c[i] = -0.5 - r2; b[i] = 2.5 + r1 + r2; d[i] = r1 - r2 + 0.1;
  }
}

static double cpu_err(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c,
                      const std::vector<double>& d, const std::vector<double>& x, int n) {
  std::vector<double> g(n), y(n);
  double inv = 1 / b[0];
  g[0] = c[0] * inv; y[0] = d[0] * inv;
  for (int i = 1; i < n; ++i) { inv = 1 / (b[i] - a[i] * g[i - 1]); g[i] = c[i] * inv; y[i] = (d[i] - a[i] * y[i - 1]) * inv; }
  for (int i = n - 2; i >= 0; --i) y[i] -= g[i] * y[i + 1];
  double num = 0, den = 0;
  for (int i = 0; i < n; ++i) { num = std::max(num, std::fabs(y[i] - x[i])); den = std::max(den, std::fabs(y[i])); }
  return num / den;
}

template <class F>
static float time_it(F f, int reps) {
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  f(); CK(cudaDeviceSynchronize());
  std::vector<float> ts;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

static double copy_bw;

template <class T>
struct Bench {
  int nsys, n;
  T *a, *b, *c, *d, *x, *g;
  long long N;
  Bench(int nsys_, int n_) : nsys(nsys_), n(n_), N((long long)nsys_ * n_) {
    CK(cudaMalloc(&a, N * sizeof(T))); CK(cudaMalloc(&b, N * sizeof(T))); CK(cudaMalloc(&c, N * sizeof(T)));
    CK(cudaMalloc(&d, N * sizeof(T))); CK(cudaMalloc(&x, N * sizeof(T))); CK(cudaMalloc(&g, N * sizeof(T)));
    fill<T><<<1024, 256>>>(a, b, c, d, N, 12345u + nsys + n);
    CK(cudaDeviceSynchronize());
  }
  ~Bench() { cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d); cudaFree(x); cudaFree(g); }
  double check_flat() {
    CK(cudaDeviceSynchronize());
    double worst = 0;
    const int samples[4] = {0, 1, nsys / 2, nsys - 1};
    for (int q = 0; q < 4; ++q) {
      const long long off = (long long)samples[q] * n;
      std::vector<T> h[5];
      T* src[5] = {a, b, c, d, x};
      std::vector<double> dd[5];
      for (int k = 0; k < 5; ++k) {
        h[k].resize(n);
        CK(cudaMemcpy(h[k].data(), src[k] + off, n * sizeof(T), cudaMemcpyDeviceToHost));
        dd[k].assign(h[k].begin(), h[k].end());
      }
      dd[0][0] = 0; dd[2][n - 1] = 0;
      worst = std::max(worst, cpu_err(dd[0], dd[1], dd[2], dd[3], dd[4], n));
    }
    return worst;
  }
  template <int M, int P, int LOAD>
  void run_wp(const char* prec, int reps) {
    if (n != M * P) return;
    CK(cudaMemset(x, 0xff, N * sizeof(T)));  // poison: NaN
    const long long threads = (long long)nsys * P;
    const int blocks = (int)((threads + 255) / 256);
    auto f = [&] { wp_kernel<T, M, P, LOAD><<<blocks, 256>>>(a, b, c, d, x, N); };
    f();
    CK(cudaGetLastError());
    const double err = check_flat();
    const float ms = time_it(f, reps);
    const double gbs = 5.0 * N * sizeof(T) / (ms * 1e-3) / 1e9;
    printf("%-6s %7d x %4d  wp M=%2d P=%3d load=%d  %8.4f ms  %7.1f GB/s  %5.1f%% copy  err %.1e%s\n", prec, nsys, n, M,
           P, LOAD, ms, gbs, 100 * gbs / copy_bw, err, err < (sizeof(T) == 8 ? 1e-12 : 1e-4) ? "" : "  WRONG");
  }
  void run_thomas(const char* prec, int reps) {
    auto f = [&] { thomas_interleaved<T><<<(nsys + 127) / 128, 128>>>(a, b, c, d, x, g, nsys, n); };
    const float ms = time_it(f, reps);
    const double gbs = 5.0 * N * sizeof(T) / (ms * 1e-3) / 1e9;
    printf("%-6s %7d x %4d  thomas/interleaved        %8.4f ms  %7.1f GB/s  %5.1f%% copy\n", prec, nsys, n, ms, gbs,
           100 * gbs / copy_bw);
  }
};

template <class T>
void sweep(const char* prec, int nsys, int n, int reps) {
  Bench<T> B(nsys, n);
  B.run_thomas(prec, reps);
  B.template run_wp<8, 8, 0>(prec, reps);
  B.template run_wp<8, 8, 1>(prec, reps);
  B.template run_wp<4, 16, 0>(prec, reps);
  B.template run_wp<8, 16, 0>(prec, reps);
  B.template run_wp<8, 16, 1>(prec, reps);
  B.template run_wp<4, 32, 0>(prec, reps);
  B.template run_wp<8, 32, 0>(prec, reps);
  B.template run_wp<8, 32, 1>(prec, reps);
  B.template run_wp<16, 16, 0>(prec, reps);
  B.template run_wp<16, 32, 0>(prec, reps);
  B.template run_wp<16, 32, 1>(prec, reps);
  B.template run_wp<8, 64, 0>(prec, reps);
  B.template run_wp<8, 64, 1>(prec, reps);
  B.template run_wp<4, 64, 0>(prec, reps);
  B.template run_wp<4, 128, 0>(prec, reps);
}

int main(int argc, char** argv) {
  int reps = 15;
  {
    const size_t bytes = 1ull << 30;
    char *s, *t;
    CK(cudaMalloc(&s, bytes)); CK(cudaMalloc(&t, bytes));
    CK(cudaMemset(s, 1, bytes));
    float ms = time_it([&] { cudaMemcpyAsync(t, s, bytes, cudaMemcpyDeviceToDevice); }, 10);
    copy_bw = 2.0 * bytes / (ms * 1e-3) / 1e9;
    printf("copy %.1f GB/s\n", copy_bw);
    cudaFree(s); cudaFree(t);
  }
  const int sizes[4] = {64, 128, 256, 512};
  const int systems[3] = {256000, 25600, 2560};
  for (int q = 0; q < 3; ++q)
    for (int k = 0; k < 4; ++k) {
      sweep<double>("double", systems[q], sizes[k], reps);
      sweep<float>("float", systems[q], sizes[k], reps);
    }
  return 0;
}

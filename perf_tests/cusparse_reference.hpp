#pragma once
// cuSPARSE's batched tridiagonal solvers, the reference of the GPU measurements:
//   gtsv2StridedBatch            flat layout (system after system, batchStride = m); CR + PCR,
//                                needs a large buffer (about batch x (4m + 2048) values);
//   gtsvInterleavedBatch algo 0  interleaved layout, Thomas; 1: LU with partial pivoting; 2: QR.
// A plain C++ interface over raw device pointers, so that only cusparse_reference.cpp includes
// cusparse.h; compiled and linked only when Kokkos has CUDA (perf_tests/CMakeLists.txt).
//
// cuSPARSE solves in place: the right-hand side is overwritten (and gtsvInterleavedBatch may
// overwrite dl, d, du), so every repetition works on fresh copies restored outside the timed
// region; the inputs passed in are never modified. The buffer is queried (_bufferSizeExt) and
// allocated before timing. Timing as in bench_timer.hpp, with cudaDeviceSynchronize as the fence.

#include <cstddef>
#include <string>

#include "bench_timer.hpp"

namespace tridiag::bench {

enum class CusparseAlgorithm {
  gtsv2_strided_batch,
  gtsv_interleaved_batch_0,
  gtsv_interleaved_batch_1,
  gtsv_interleaved_batch_2,
};

/// "cusparse_gtsv2StridedBatch", "cusparse_gtsvInterleavedBatch_alg0", ...
const char* cusparse_name(CusparseAlgorithm algorithm);

/// True for the gtsvInterleavedBatch algorithms (interleaved layout), false for the strided one (flat).
constexpr bool cusparse_is_interleaved(CusparseAlgorithm algorithm) {
  return algorithm != CusparseAlgorithm::gtsv2_strided_batch;
}

struct CusparseTiming {
  Timing timing;
  std::size_t buffer_bytes = 0;  ///< from _bufferSizeExt
  std::size_t memory_bytes = 0;  ///< dl, d, du, x (4 x m x batch values) + buffer
  std::string error;             ///< non-empty when a CUDA or cuSPARSE call failed (nothing timed)
};

/// Solves the batch as `reps` says (after one warm-up; bench_timer.hpp) with `algorithm`. dl, d, du, rhs: device
/// arrays of m x batch values in the layout the algorithm needs (flat for gtsv2StridedBatch,
/// interleaved for gtsvInterleavedBatch), dl zero in each system's first row and du in its last.
/// The solution of the last repetition is left in x (device, m x batch values).
CusparseTiming time_cusparse(CusparseAlgorithm algorithm, int m, int batch, const float* dl, const float* d,
                             const float* du, const float* rhs, float* x, const Repetitions& reps);
CusparseTiming time_cusparse(CusparseAlgorithm algorithm, int m, int batch, const double* dl, const double* d,
                             const double* du, const double* rhs, double* x, const Repetitions& reps);

}  // namespace tridiag::bench

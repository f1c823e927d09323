// cuSPARSE reference solvers (see cusparse_reference.hpp). cuSPARSE 12 (CUDA 12/13) C API.

#include "cusparse_reference.hpp"

#include <stdexcept>
#include <string>

#include <cuda_runtime.h>
#include <cusparse.h>

namespace tridiag::bench {

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void check_sparse(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}

/// cudaMalloc'd memory, freed on scope exit.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { check_cuda(cudaMalloc(&p_, bytes > 0 ? bytes : 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

class Handle {
 public:
  Handle() { check_sparse(cusparseCreate(&h_), "cusparseCreate"); }
  ~Handle() { cusparseDestroy(h_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator cusparseHandle_t() const { return h_; }

 private:
  cusparseHandle_t h_ = nullptr;
};

// ---- one overload per precision of each cuSPARSE entry ----------------------------------------
cusparseStatus_t strided_buffer_size(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                     const float* x, int batch, int stride, std::size_t* bytes) {
  return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
cusparseStatus_t strided_buffer_size(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                     const double* x, int batch, int stride, std::size_t* bytes) {
  return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du, float* x,
                               int batch, int stride, void* buffer) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
cusparseStatus_t strided_solve(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                               double* x, int batch, int stride, void* buffer) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
cusparseStatus_t interleaved_buffer_size(cusparseHandle_t h, int algo, int m, const float* dl, const float* d,
                                         const float* du, const float* x, int batch, std::size_t* bytes) {
  return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, batch, bytes);
}
cusparseStatus_t interleaved_buffer_size(cusparseHandle_t h, int algo, int m, const double* dl, const double* d,
                                         const double* du, const double* x, int batch, std::size_t* bytes) {
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, batch, bytes);
}
cusparseStatus_t interleaved_solve(cusparseHandle_t h, int algo, int m, float* dl, float* d, float* du, float* x,
                                   int batch, void* buffer) {
  return cusparseSgtsvInterleavedBatch(h, algo, m, dl, d, du, x, batch, buffer);
}
cusparseStatus_t interleaved_solve(cusparseHandle_t h, int algo, int m, double* dl, double* d, double* du, double* x,
                                   int batch, void* buffer) {
  return cusparseDgtsvInterleavedBatch(h, algo, m, dl, d, du, x, batch, buffer);
}

int interleaved_algo(CusparseAlgorithm a) {
  switch (a) {
    case CusparseAlgorithm::gtsv_interleaved_batch_0: return 0;
    case CusparseAlgorithm::gtsv_interleaved_batch_1: return 1;
    case CusparseAlgorithm::gtsv_interleaved_batch_2: return 2;
    default: return -1;
  }
}

void copy_device(void* dst, const void* src, std::size_t bytes) {
  check_cuda(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy (restoring the inputs)");
}

template <class T>
CusparseTiming run(CusparseAlgorithm algorithm, int m, int batch, const T* dl, const T* d, const T* du, const T* rhs,
                   T* x, const Repetitions& reps) {
  CusparseTiming out;
  try {
    if (m <= 0 || batch <= 0) throw std::runtime_error("empty batch");
    Handle handle;
    const std::size_t bytes = std::size_t(m) * std::size_t(batch) * sizeof(T);
    const auto fence = [] { check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); };
    fence();  // the caller's kernels (Kokkos stream) have finished writing the inputs
    DeviceBuffer work_x(bytes);
    if (!cusparse_is_interleaved(algorithm)) {
      // dl, d, du are read-only for gtsv2StridedBatch: only x (in place) needs restoring.
      std::size_t buffer_bytes = 0;
      check_sparse(strided_buffer_size(handle, m, dl, d, du, work_x.as<T>(), batch, m, &buffer_bytes),
                   "gtsv2StridedBatch_bufferSizeExt");
      DeviceBuffer buffer(buffer_bytes);
      out.buffer_bytes = buffer_bytes;
      out.memory_bytes = 4 * bytes + buffer_bytes;
      out.timing = time_repeated(
          reps, [&] { copy_device(work_x.as<T>(), rhs, bytes); },
          [&] {
            check_sparse(strided_solve(handle, m, dl, d, du, work_x.as<T>(), batch, m, buffer.as<void>()),
                         "gtsv2StridedBatch");
          },
          fence);
    } else {
      // gtsvInterleavedBatch takes dl, d, du as non-const: solve on copies, restored every time.
      const int algo = interleaved_algo(algorithm);
      DeviceBuffer work_dl(bytes), work_d(bytes), work_du(bytes);
      std::size_t buffer_bytes = 0;
      check_sparse(interleaved_buffer_size(handle, algo, m, work_dl.as<T>(), work_d.as<T>(), work_du.as<T>(),
                                           work_x.as<T>(), batch, &buffer_bytes),
                   "gtsvInterleavedBatch_bufferSizeExt");
      DeviceBuffer buffer(buffer_bytes);
      out.buffer_bytes = buffer_bytes;
      out.memory_bytes = 4 * bytes + buffer_bytes;
      out.timing = time_repeated(
          reps,
          [&] {
            copy_device(work_dl.as<T>(), dl, bytes);
            copy_device(work_d.as<T>(), d, bytes);
            copy_device(work_du.as<T>(), du, bytes);
            copy_device(work_x.as<T>(), rhs, bytes);
          },
          [&] {
            check_sparse(interleaved_solve(handle, algo, m, work_dl.as<T>(), work_d.as<T>(), work_du.as<T>(),
                                           work_x.as<T>(), batch, buffer.as<void>()),
                         "gtsvInterleavedBatch");
          },
          fence);
    }
    copy_device(x, work_x.as<T>(), bytes);
    fence();
  } catch (const std::exception& e) {
    out.error = e.what();
    out.timing.samples_ms.clear();
  }
  return out;
}

}  // namespace

const char* cusparse_name(CusparseAlgorithm algorithm) {
  switch (algorithm) {
    case CusparseAlgorithm::gtsv2_strided_batch: return "cusparse_gtsv2StridedBatch";
    case CusparseAlgorithm::gtsv_interleaved_batch_0: return "cusparse_gtsvInterleavedBatch_alg0";
    case CusparseAlgorithm::gtsv_interleaved_batch_1: return "cusparse_gtsvInterleavedBatch_alg1";
    case CusparseAlgorithm::gtsv_interleaved_batch_2: return "cusparse_gtsvInterleavedBatch_alg2";
  }
  return "cusparse_unknown";
}

CusparseTiming time_cusparse(CusparseAlgorithm algorithm, int m, int batch, const float* dl, const float* d,
                             const float* du, const float* rhs, float* x, const Repetitions& reps) {
  return run(algorithm, m, batch, dl, d, du, rhs, x, reps);
}

CusparseTiming time_cusparse(CusparseAlgorithm algorithm, int m, int batch, const double* dl, const double* d,
                             const double* du, const double* rhs, double* x, const Repetitions& reps) {
  return run(algorithm, m, batch, dl, d, du, rhs, x, reps);
}

}  // namespace tridiag::bench

#pragma once
// Compiler hints shared by the kernels.

/// Asks the compiler to unroll the next loop completely. Used on loops with a compile-time trip
/// count over small per-thread arrays, so that the arrays stay in registers (an array indexed at
/// run time is moved to local memory by nvcc).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define TRIDIAG_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define TRIDIAG_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__) && !defined(__NVCC__)  // nvcc's host pass does not know GCC unroll
#define TRIDIAG_UNROLL _Pragma("GCC unroll 32")
#else
#define TRIDIAG_UNROLL
#endif

#pragma once
// What a figure needs next to it (STYLE 7: no figure without device, commit and command): the
// git commit, the date, and a description of the hardware each execution space runs on.

#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <tridiag/core/kokkos_compat.hpp>

namespace tridiag::bench {

/// $TRIDIAG_COMMIT if set, else `git rev-parse --short HEAD` at the last build ("-dirty" appended
/// when tracked files differed from it), else "unknown".
std::string commit();
/// Now, UTC, ISO 8601 ("2026-11-22T10:31:05Z").
std::string utc_date();
/// First "model name" of /proc/cpuinfo ("unknown CPU" if there is none).
std::string host_cpu_name();
/// Hardware threads the OS reports.
int host_hardware_threads();
/// GPU name from cudaGetDeviceProperties on a CUDA build; "" otherwise.
std::string gpu_name();

/// "AMD EPYC [OpenMP, 2 threads]", "AMD EPYC [Serial, 1 thread]", "NVIDIA H100 80GB HBM3 [Cuda]".
template <class Exec>
std::string device_of(const Exec& exec) {
  const std::string space = Exec::name();
  if constexpr (std::is_same_v<typename Exec::memory_space, Kokkos::HostSpace>) {
    const int threads = compat::concurrency(exec);
    return host_cpu_name() + " [" + space + ", " + std::to_string(threads) + (threads == 1 ? " thread]" : " threads]");
  } else {
    return gpu_name() + " [" + space + "]";
  }
}

/// True when Exec runs on a GPU (its memory is not the host's).
template <class Exec>
constexpr bool is_device_space() {
  return !std::is_same_v<typename Exec::memory_space, Kokkos::HostSpace>;
}

}  // namespace tridiag::bench

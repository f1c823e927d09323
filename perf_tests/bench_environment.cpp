#include "bench_environment.hpp"

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

// TRIDIAG_BENCH_COMMIT: written at build time by perf_tests/bench_commit.cmake.
#include "bench_commit.hpp"

namespace tridiag::bench {

std::string commit() {
  if (const char* env = std::getenv("TRIDIAG_COMMIT"); env != nullptr && *env != '\0') return env;
  return TRIDIAG_BENCH_COMMIT;
}

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string host_cpu_name() {
  static const std::string name = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
      if (line.compare(0, 10, "model name") != 0) continue;
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      auto value = line.substr(colon + 1);
      const auto first = value.find_first_not_of(" \t");
      const auto last = value.find_last_not_of(" \t\r");
      if (first != std::string::npos) return value.substr(first, last - first + 1);
    }
    return std::string("unknown CPU");
  }();
  return name;
}

int host_hardware_threads() { return static_cast<int>(std::thread::hardware_concurrency()); }

std::string gpu_name() {
#if defined(KOKKOS_ENABLE_CUDA)
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, Kokkos::Cuda().cuda_device()) != cudaSuccess) return "unknown GPU";
  return prop.name;
#else
  return "";
#endif
}

}  // namespace tridiag::bench

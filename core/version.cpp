#include <tridiag/core/version.hpp>

#include <sstream>

#include <Kokkos_Core.hpp>

namespace tridiag {

std::string version_string() { return TRIDIAG_VERSION_STRING; }

std::string configuration_string() {
  std::ostringstream os;
  os << "tridiag " << TRIDIAG_VERSION_STRING << ", Kokkos " << KOKKOS_VERSION / 10000 << '.'
     << (KOKKOS_VERSION / 100) % 100 << '.' << KOKKOS_VERSION % 100
     << ", default execution space " << Kokkos::DefaultExecutionSpace::name();
  return os.str();
}

std::string missing_device_reason() {
#if defined(KOKKOS_ENABLE_CUDA)
  int gpus = 0;
  const cudaError_t error = cudaGetDeviceCount(&gpus);
  if (error != cudaSuccess)
    return std::string("built for CUDA and no GPU is usable here (cudaGetDeviceCount: ") + cudaGetErrorString(error) +
           ")";
  if (gpus == 0) return "built for CUDA and this machine has no GPU";
#endif
  return {};
}

}  // namespace tridiag

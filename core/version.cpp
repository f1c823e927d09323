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

}  // namespace tridiag

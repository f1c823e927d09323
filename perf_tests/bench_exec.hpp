#pragma once
// From the --exec choice (a run-time value) to an execution space type: with_exec(choice, f)
// calls f(ExecSpace()) with the chosen space, so a sweep is written once as a generic lambda and
// instantiated for every space this Kokkos has.

#include <string>

#include <Kokkos_Core.hpp>

#include "bench_options.hpp"

namespace tridiag::bench {

template <class F>
void with_exec(ExecChoice choice, F&& f) {
  switch (choice) {
    case ExecChoice::default_space:
      f(Kokkos::DefaultExecutionSpace());
      return;
    case ExecChoice::serial:
#if defined(KOKKOS_ENABLE_SERIAL)
      f(Kokkos::Serial());
      return;
#else
      break;
#endif
    case ExecChoice::openmp:
#if defined(KOKKOS_ENABLE_OPENMP)
      f(Kokkos::OpenMP());
      return;
#else
      break;
#endif
    case ExecChoice::cuda:
#if defined(KOKKOS_ENABLE_CUDA)
      f(Kokkos::Cuda());
      return;
#else
      break;
#endif
  }
  throw usage_error(std::string("--exec ") + exec_choice_name(choice) + ": not enabled in this Kokkos");
}

}  // namespace tridiag::bench

# Which Kokkos backends the found Kokkos carries. tridiag never chooses a backend itself: it
# inherits Kokkos's (Kokkos_ENABLE_<DEVICE> is set by KokkosConfig.cmake since 3.x).
set(TRIDIAG_BACKENDS "")
foreach(device SERIAL OPENMP THREADS CUDA)
  if(Kokkos_ENABLE_${device})
    list(APPEND TRIDIAG_BACKENDS ${device})
  endif()
endforeach()
if(Kokkos_ENABLE_CUDA)
  set(TRIDIAG_HAVE_CUDA ON)
else()
  set(TRIDIAG_HAVE_CUDA OFF)
endif()
# A host function called from device code is only a warning for nvcc (#20014-D), and the kernel
# then silently does nothing on the GPU: an error in this project's own targets (not exported).
if(TRIDIAG_HAVE_CUDA)
  add_compile_options("SHELL:-Xcudafe --diag_error=20014")  # SHELL: CMake would de-duplicate a second -Xcudafe
endif()

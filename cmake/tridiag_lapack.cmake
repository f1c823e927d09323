# LAPACK(E) from Debian (liblapacke-dev, OpenBLAS or reference LAPACK) as target tridiag::lapack:
# the independent oracle of the tests and benchmarks; never a dependency of the library itself.
if(NOT TARGET tridiag::lapack)
  find_package(LAPACK REQUIRED)
  find_path(LAPACKE_INCLUDE_DIR lapacke.h REQUIRED)
  find_library(LAPACKE_LIBRARY lapacke REQUIRED)
  add_library(tridiag_lapack INTERFACE)
  target_include_directories(tridiag_lapack INTERFACE ${LAPACKE_INCLUDE_DIR})
  target_link_libraries(tridiag_lapack INTERFACE ${LAPACKE_LIBRARY} ${LAPACK_LIBRARIES})
  add_library(tridiag::lapack ALIAS tridiag_lapack)
endif()

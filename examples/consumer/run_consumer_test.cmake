# CTest script: install the tridiag build tree into WORK_DIR/prefix (twice: the second install
# must remove a header planted as left over from an older one), move it to
# WORK_DIR/moved/prefix, configure and build examples/consumer against it with
# find_package(tridiag), run it (unless built for CUDA and no GPU is present: then the test stops
# after configure + build with the message CTest reports as Skipped, SKIP_REGULAR_EXPRESSION in
# examples/CMakeLists.txt).
include("${CMAKE_CURRENT_LIST_DIR}/install_tridiag.cmake")
# Installing over an older install leaves no header the source no longer has.
set(stale_header "${WORK_DIR}/prefix/include/tridiag/core/header_deleted_from_the_source.hpp")
file(WRITE "${stale_header}" "#error stale header of an older install\n")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${TRIDIAG_BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install of tridiag over an older install failed (${rc})")
endif()
if(EXISTS "${stale_header}")
  message(FATAL_ERROR "installing over an older install left its stale header ${stale_header}")
endif()
# The installed package is relocatable: no installed CMake file names the prefix it was installed
# to, and the consumer is built against the prefix moved elsewhere (as a package manager or a
# cluster's module tree moves it; its Kokkos stays where it was).
file(GLOB_RECURSE installed_cmake_files "${WORK_DIR}/prefix/*.cmake")
if(NOT installed_cmake_files)
  message(FATAL_ERROR "no CMake package files installed under ${WORK_DIR}/prefix")
endif()
foreach(file IN LISTS installed_cmake_files)
  file(READ "${file}" text)
  string(FIND "${text}" "${WORK_DIR}/prefix" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${file} names the install prefix ${WORK_DIR}/prefix: the package cannot be moved")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}/moved")
file(RENAME "${WORK_DIR}/prefix" "${WORK_DIR}/moved/prefix")
# Only the tridiag prefix, as the README tells a user: the installed config finds the Kokkos
# tridiag was built with by itself.
execute_process(COMMAND ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build"
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  "-DCMAKE_PREFIX_PATH=${WORK_DIR}/moved/prefix"
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer against the installed package failed (${rc})")
endif()
# Kokkos Kernels is a dependency of one unit test, not of the library: the config must not look for it.
file(STRINGS "${WORK_DIR}/build/CMakeCache.txt" kokkos_kernels REGEX "^KokkosKernels_DIR:")
if(kokkos_kernels)
  message(FATAL_ERROR "find_package(tridiag) looked for Kokkos Kernels (${kokkos_kernels}); the library does not use it")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed (${rc})")
endif()
if(KOKKOS_HAS_CUDA)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
  if(no_gpu)
    message(STATUS "consumer built; not run: no CUDA GPU on this machine")
    return()
  endif()
endif()
execute_process(COMMAND "${WORK_DIR}/build/consumer" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the consumer ran and failed (${rc})")
endif()

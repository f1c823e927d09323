# CTest script: install the tridiag build tree into WORK_DIR/prefix, configure and build
# examples/consumer against it with find_package(tridiag), run it (unless built for CUDA and no
# GPU is present, in which case configure + build is the whole test).
include("${CMAKE_CURRENT_LIST_DIR}/install_tridiag.cmake")
# Only the tridiag prefix, as the README tells a user: the installed config finds the Kokkos and
# Kokkos Kernels tridiag was built with by itself.
execute_process(COMMAND ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build"
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer against the installed package failed (${rc})")
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

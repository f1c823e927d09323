# CTest script: find_package(tridiag) with another Kokkos ahead of the one tridiag was built with
# on CMAKE_PREFIX_PATH (configure only, examples/consumer against WORK_DIR/prefix):
#   1. a Kokkos of another version is passed over: the consumer configures with tridiag's Kokkos;
#   2. a Kokkos of tridiag's version with other backends stops the configuration with a message
#      naming both (before the check it configured, built and linked a host tridiag against it).
# The other Kokkos are stand-ins (a KokkosConfig.cmake and its version file), so that a machine
# with one Kokkos install runs the test.
include("${CMAKE_CURRENT_LIST_DIR}/install_tridiag.cmake")

# stand_in_kokkos(<name> <version> <devices>): WORK_DIR/<name>/lib/cmake/Kokkos
function(stand_in_kokkos name version devices)
  set(dir "${WORK_DIR}/${name}/lib/cmake/Kokkos")
  file(WRITE "${dir}/KokkosConfigVersion.cmake" "set(PACKAGE_VERSION \"${version}\")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
")
  file(WRITE "${dir}/KokkosConfig.cmake" "# stand-in Kokkos ${version} (${devices}) of the consumer test
set(Kokkos_VERSION \"${version}\")
foreach(device ${devices})
  set(Kokkos_ENABLE_\${device} ON)
endforeach()
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos INTERFACE IMPORTED)
endif()
")
endfunction()

# configure_consumer(<build dir> <Kokkos prefix first on CMAKE_PREFIX_PATH>): rc and output
function(configure_consumer build first)
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/${build}"
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCMAKE_PREFIX_PATH=${WORK_DIR}/${first};${WORK_DIR}/prefix"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()

# 1. Another version: skipped for the one tridiag's config hints at.
stand_in_kokkos(other-version "${KOKKOS_VERSION}.99" "${BACKENDS}")
configure_consumer(build-other-version other-version)
if(rc)
  message(FATAL_ERROR "a Kokkos of another version ahead on CMAKE_PREFIX_PATH made the consumer's "
    "configuration fail (${rc}); it should have been passed over:\n${out}")
endif()
file(STRINGS "${WORK_DIR}/build-other-version/CMakeCache.txt" kokkos_dir REGEX "^Kokkos_DIR:")
if(kokkos_dir MATCHES "other-version")
  message(FATAL_ERROR "the consumer took the Kokkos of another version: ${kokkos_dir}")
endif()
message(STATUS "another Kokkos version passed over: ${kokkos_dir}")

# 2. Same version, other backends: refused with a message.
if(BACKENDS STREQUAL "SERIAL")
  set(other_backends OPENMP)
else()
  set(other_backends SERIAL)
endif()
stand_in_kokkos(other-backends "${KOKKOS_VERSION}" "${other_backends}")
configure_consumer(build-other-backends other-backends)
if(NOT rc)
  message(FATAL_ERROR "the consumer configured against a Kokkos with the backends ${other_backends} "
    "although tridiag was built for ${BACKENDS}:\n${out}")
endif()
string(REPLACE ";" ", " backends_text "${BACKENDS}")
string(REGEX REPLACE "[ \n]+" " " out_text "${out}")
if(NOT out_text MATCHES "was built against a Kokkos with the backends ${backends_text} .* has the backends ${other_backends}")
  message(FATAL_ERROR "the configuration failed, but not with tridiag's message on the backends:\n${out}")
endif()
message(STATUS "a Kokkos with other backends refused")

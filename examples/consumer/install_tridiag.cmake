# Included by the consumer test scripts: a fresh WORK_DIR with the tridiag build tree installed
# into WORK_DIR/prefix.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${TRIDIAG_BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install of tridiag failed (${rc})")
endif()

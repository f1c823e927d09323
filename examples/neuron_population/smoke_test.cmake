# ctest smoke test of tridiag-neurons: a quick run (-DARGS) into a fresh folder, then checks that
# traces.csv exists with a header and samples, and traces.png too when PYTHON can import
# matplotlib. Variables: EXE, OUT, PYTHON, ARGS (a ;-list). The output goes to a folder of OUT
# whose name has a space, quotes and a dollar sign: the plot script gets its paths as they are.
file(REMOVE_RECURSE "${OUT}")
set(OUT "${OUT}/odd \"name\" $HOME")
execute_process(COMMAND "${EXE}" ${ARGS} --out "${OUT}" RESULT_VARIABLE code OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "tridiag-neurons exited with ${code}: ${errors}")
endif()
if(NOT EXISTS "${OUT}/traces.csv")
  message(FATAL_ERROR "no ${OUT}/traces.csv")
endif()
file(STRINGS "${OUT}/traces.csv" lines)
list(LENGTH lines count)
list(GET lines 0 header)
if(count LESS 3 OR NOT header MATCHES "^t_ms,")
  message(FATAL_ERROR "traces.csv has ${count} lines, header '${header}'")
endif()
execute_process(COMMAND "${PYTHON}" -c "import matplotlib" RESULT_VARIABLE no_matplotlib OUTPUT_QUIET ERROR_QUIET)
if(no_matplotlib EQUAL 0 AND NOT EXISTS "${OUT}/traces.png")
  message(FATAL_ERROR "matplotlib is importable but ${OUT}/traces.png was not written")
endif()

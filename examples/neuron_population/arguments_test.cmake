# ctest of tridiag-neurons' command line: --help, bad option values (exit status 2 and a message
# naming the option, before any cell is read; an option is no value), --tstop a whole number of
# --dt steps to rounding only, the setup line's numbers, --kokkos-help (no run), and a morphology
# that cannot be discretised (exit status 1, the message naming the file). Variables: EXE, WORK (a
# scratch folder, also the runs' current folder: what a wrong run writes there stays out of the
# build tree). A CUDA build on a machine without a GPU checks the options, then skips the rest
# (exit status 77 where a run needs the device, skip_without_gpu.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/skip_without_gpu.cmake")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
function(expect_run expected_code expected_text)
  execute_process(COMMAND "${EXE}" ${ARGN} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE code OUTPUT_VARIABLE output
                  ERROR_VARIABLE errors)
  skip_without_gpu("${code}" "${output}${errors}")
  string(FIND "${output}${errors}" "${expected_text}" at)
  if(NOT code EQUAL expected_code OR at EQUAL -1)
    message(FATAL_ERROR "tridiag-neurons ${ARGN}: exit status ${code} (expected ${expected_code}), "
                        "expected '${expected_text}' in:\n${output}${errors}")
  endif()
  message("ok: ${ARGN} -> ${code}")
endfunction()

expect_run(0 "--record-every STEPS" --help)
expect_run(2 "--neurons needs a value" --neurons)
expect_run(2 "--neurons: not a number: abc" --neurons abc)
expect_run(2 "--neurons must lie in" --neurons -5)
expect_run(2 "--neurons must lie in" --neurons 1e19)
expect_run(2 "--dt must be positive" --dt 0)
expect_run(2 "--delay must be >= 0" --delay -1)
expect_run(2 "--dur must be >= 0" --dur -1)
expect_run(2 "--record-every must lie in" --record-every 0)
expect_run(2 "--record-per-morphology must lie in" --record-per-morphology 4294967296)
expect_run(2 "more than 10^12 steps" --dt 1e-300)
expect_run(2 "unknown option --neuron" --neuron 5)
expect_run(2 "unknown option --neuron" --neuron)
# An option is no value: --out took --hh for its folder (and the run went on, passive).
expect_run(2 "--out needs a value, not the option --hh" --out --hh --morphologies "${WORK}/none")
expect_run(2 "--morphologies needs a value, not the option --no-plot" --morphologies --no-plot)
expect_run(2 "--tstop needs a value, not the option --dt" --tstop --dt 0.1)
expect_run(2 "--tstop 1 is not a whole number of --dt 0.4 steps (2.5)" --tstop 1 --dt 0.4)
expect_run(2 "--tstop 10 is not a whole number of --dt 30 steps" --tstop 10 --dt 30)
expect_run(2 "--amp-min 0.5 exceeds --amp-max 0.1 (its default)" --amp-min 0.5)
expect_run(2 "--amp-min 2 exceeds --amp-max 1" --amp-min 2 --amp-max 1)

file(MAKE_DIRECTORY "${WORK}/cells")
# A three-point soma and a dendrite of zero length: read fine, cannot be discretised.
file(WRITE "${WORK}/cells/zero_length.swc" "1 1 0 0 0 5 -1\n2 1 0 -5 0 5 1\n3 1 0 5 0 5 1\n4 3 0 5 0 1 3\n5 3 0 5 0 1 4\n")
expect_run(1 "zero_length.swc: hines::discretize" --morphologies "${WORK}/cells" --neurons 2 --tstop 1 --no-plot
           --out "${WORK}/out")

# A whole number of steps to rounding only: half a step off is not whole at 10^9 steps either (the
# tolerance was 1e-9 x the step count: 0.5 steps passed from 5 x 10^8 steps on, and the message
# printed 10 digits, "1000000000"); 7e8 / 0.7, one rounding off 10^9, is whole (exit status 1: the
# options pass, the folder is missing).
expect_run(2 "--tstop 1000000000.5 is not a whole number of --dt 1 steps (1000000000.5)"
           --tstop 1000000000.5 --dt 1 --morphologies "${WORK}/none" --out "${WORK}/half_step_out")
expect_run(1 "morphology folder ${WORK}/none does not exist"
           --tstop 700000000 --dt 0.7 --morphologies "${WORK}/none" --out "${WORK}/rounded_steps_out")
# The setup line gives dt and the end time to every digit (%g printed 0.123457 and 0.246913).
file(WRITE "${WORK}/small/cell.swc" "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n3 3 0 15 0 1 2\n")
expect_run(0 "dt 0.1234567 ms, 2 steps to 0.2469134 ms" --morphologies "${WORK}/small" --neurons 1 --tstop 0.2469134
           --dt 0.1234567 --no-plot --out "${WORK}/precise_out")

# An output that cannot be written fails before the run, not after it: traces.csv is a folder
# here (unwritable to root too). Before, the whole simulation ran and then "could not write".
file(MAKE_DIRECTORY "${WORK}/blocked/traces.csv")
execute_process(COMMAND "${EXE}" --morphologies "${WORK}/small" --neurons 2 --tstop 1 --no-plot --out "${WORK}/blocked"
                RESULT_VARIABLE code OUTPUT_VARIABLE output ERROR_VARIABLE errors)
skip_without_gpu("${code}" "${output}${errors}")
string(FIND "${output}${errors}" "cannot write ${WORK}/blocked/traces.csv" named)
string(FIND "${output}${errors}" "wall time" ran)
if(NOT code EQUAL 1 OR named EQUAL -1 OR NOT ran EQUAL -1)
  message(FATAL_ERROR "tridiag-neurons --out ${WORK}/blocked (traces.csv a folder): exit status ${code} (expected 1), "
                      "expected 'cannot write ${WORK}/blocked/traces.csv' and no run in:\n${output}${errors}")
endif()
message("ok: unwritable traces.csv -> ${code}, before the run")

# The setup line describes the neurons simulated: with one neuron of a folder of two cells (3 and
# 5 rows), the largest cell is the 3-row one. Before, it was the folder's largest (5), simulated
# or not.
file(WRITE "${WORK}/two/a_soma.swc" "1 1 0 0 0 5 -1\n")
file(WRITE "${WORK}/two/b_small.swc" "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n3 3 0 15 0 1 2\n")
expect_run(0 "1 neurons of 2 morphologies (${WORK}/two), 3 matrix rows in all (largest cell 3)"
           --morphologies "${WORK}/two" --neurons 1 --tstop 0.1 --no-plot --out "${WORK}/two_out")

# A morphology whose file name has a comma or a quote: traces.csv's header quotes the column
# name (RFC 4180), so the header has as many fields as the rows. Before, 'a,b' split the name in
# two columns (3 header fields, 2 per row).
file(WRITE "${WORK}/comma/a,b\"c.swc" "1 1 0 0 0 5 -1\n2 3 0 5 0 1 1\n")
expect_run(0 "wrote" --morphologies "${WORK}/comma" --neurons 1 --tstop 0.05 --no-plot --out "${WORK}/comma_out")
file(STRINGS "${WORK}/comma_out/traces.csv" comma_lines)
list(GET comma_lines 0 comma_header)
if(NOT comma_header STREQUAL "t_ms,\"a,b\"\"c_n0_0.1nA\"")
  message(FATAL_ERROR "traces.csv header '${comma_header}', expected 't_ms,\"a,b\"\"c_n0_0.1nA\"'")
endif()
message("ok: quoted column name ${comma_header}")

# --hh on a cell whose root is not a soma: the message names the file. Before, the library's
# check named it "morphology 0", its index among the files.
file(WRITE "${WORK}/no_soma/dendrite_only.swc" "1 3 0 0 0 1 -1\n2 3 0 10 0 1 1\n")
expect_run(1 "dendrite_only.swc: --hh" --morphologies "${WORK}/no_soma" --hh --neurons 1 --tstop 0.1 --no-plot
           --out "${WORK}/no_soma_out")

# An earlier run's traces.png is removed when the run starts: with --no-plot (or a plot that
# fails) it stood beside the new traces.csv as if it plotted it.
file(WRITE "${WORK}/stale_out/traces.png" "an earlier run's plot")
expect_run(0 "wrote" --morphologies "${WORK}/small" --neurons 1 --tstop 0.05 --no-plot --out "${WORK}/stale_out")
if(EXISTS "${WORK}/stale_out/traces.png")
  message(FATAL_ERROR "--no-plot left an earlier run's ${WORK}/stale_out/traces.png beside the new traces.csv")
endif()
message("ok: an earlier run's traces.png removed")

# --kokkos-help prints Kokkos' options and simulates nothing. Before, the run followed: here a
# one-neuron run that wrote traces.csv; without options, the default 10,000 neurons for 100 ms.
execute_process(COMMAND "${EXE}" --kokkos-help --morphologies "${WORK}/small" --neurons 1 --tstop 0.05 --no-plot
                        --out "${WORK}/kokkos_help_out"
                WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE code OUTPUT_VARIABLE output ERROR_VARIABLE errors)
skip_without_gpu("${code}" "${output}${errors}")
string(FIND "${output}${errors}" "--kokkos-help" listed)
string(FIND "${output}${errors}" "wall time" ran)
if(NOT code EQUAL 0 OR listed EQUAL -1 OR NOT ran EQUAL -1 OR EXISTS "${WORK}/kokkos_help_out/traces.csv")
  message(FATAL_ERROR "tridiag-neurons --kokkos-help: exit status ${code} (expected 0), expected Kokkos' options "
                      "and no run (no 'wall time', no ${WORK}/kokkos_help_out/traces.csv) in:\n${output}${errors}")
endif()
message("ok: --kokkos-help -> ${code}, nothing simulated")

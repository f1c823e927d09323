# skip_without_gpu(<exit status> <output>), for the tridiag-neurons test scripts: ends the script
# as skipped when the program exited with 77, as a CUDA build does on a machine without a usable
# GPU (tridiag_neurons.cpp). From CMake 3.29 the script exits with 77 too (the tests'
# SKIP_RETURN_CODE); an older CMake cannot, and the script stops on the program's message, which
# the tests' SKIP_REGULAR_EXPRESSION matches.
function(skip_without_gpu code output)
  if(code EQUAL 77)
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.29)
      message("${output}")
      cmake_language(EXIT 77)
    endif()
    message(FATAL_ERROR "${output}")
  endif()
endfunction()

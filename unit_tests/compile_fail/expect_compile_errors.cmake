# CTest script: builds TARGET in BUILD_DIR, which must fail, and checks that the compiler's output
# holds every message SOURCE marks with "// expect: <message>".
#   cmake -DBUILD_DIR=... -DTARGET=... -DSOURCE=... -P expect_compile_errors.cmake
file(STRINGS "${SOURCE}" marks REGEX "^// expect: ")
if(NOT marks)
  message(FATAL_ERROR "${SOURCE} marks no expected message")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BUILD_DIR}" --target "${TARGET}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(out "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled; every call in ${SOURCE} should have been rejected:\n${out}")
endif()
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}")
set(missing "")
foreach(mark IN LISTS marks)
  string(REPLACE "// expect: " "" expected "${mark}")
  string(FIND "${flat}" "${expected}" at)
  if(at EQUAL -1)
    string(APPEND missing "\n  ${expected}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "${TARGET} failed to compile, but these messages are missing:${missing}\n"
    "compiler output:\n${out}")
endif()
list(LENGTH marks count)
message(STATUS "${TARGET}: rejected, with all ${count} expected messages")

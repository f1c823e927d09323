# Whether the NEURON comparison can run here: sets TRIDIAG_NEURON_PYTHON_FOUND. Without the
# interpreter TRIDIAG_NEURON_PYTHON the tests are left out with a note, unless
# TRIDIAG_REQUIRE_NEURON (CI, scripts/setup.sh) makes that a configuration error: CI must not
# pass with the comparison missing. Included by CMakeLists.txt; run with `cmake -P` by the test
# tridiag.hines.neuron.checker.configure_requires_python.
if(EXISTS "${TRIDIAG_NEURON_PYTHON}")
  set(TRIDIAG_NEURON_PYTHON_FOUND TRUE)
elseif(TRIDIAG_REQUIRE_NEURON)
  message(FATAL_ERROR "tridiag: TRIDIAG_REQUIRE_NEURON is ON but there is no ${TRIDIAG_NEURON_PYTHON} "
                      "(TRIDIAG_NEURON_PYTHON) to run the NEURON comparison; scripts/install_packages.sh "
                      "installs python3-neuron")
else()
  message(STATUS "tridiag: no ${TRIDIAG_NEURON_PYTHON}: the NEURON comparison tests are not registered")
  set(TRIDIAG_NEURON_PYTHON_FOUND FALSE)
endif()

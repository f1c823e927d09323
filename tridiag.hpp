#pragma once
// Umbrella header: everything tridiag offers.

#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/core/version.hpp>
#include <tridiag/layouts/conversion.hpp>
#include <tridiag/layouts/layouts.hpp>
#include <tridiag/layouts/variable_batch.hpp>
#include <tridiag/layouts/view_adapters.hpp>
#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/algorithms/thomas/thomas_factorization.hpp>
#include <tridiag/algorithms/thomas/constant_coefficients.hpp>
#include <tridiag/algorithms/thomas/size_aware_solve.hpp>
#include <tridiag/algorithms/partitioned/partitioned_solve.hpp>
#include <tridiag/algorithms/cyclic/cyclic_solve.hpp>
#include <tridiag/algorithms/pivoting/pivoting_solve.hpp>
#include <tridiag/algorithms/periodic/periodic_solve.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/population.hpp>
#include <tridiag/algorithms/automatic_choice.hpp>
#include <tridiag/algorithms/solve.hpp>

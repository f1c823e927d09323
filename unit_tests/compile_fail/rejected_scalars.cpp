// Compiled only by the test tridiag.compile_fail.rejected_scalars, which expects this file NOT to
// compile and every message marked "expect:" below in the compiler's output: the solvers
// documented for real matrices (float or double) with a right-hand side of the same scalar or
// Kokkos::complex of it reject other scalars at compile time, with a message naming the solver.
// A call the static_asserts let through fails the test (its message is missing), as does a file
// that fails for another reason.

#include <tridiag/algorithms/cyclic/cyclic_solve.hpp>
#include <tridiag/algorithms/periodic/periodic_solve.hpp>
#include <tridiag/algorithms/pivoting/pivoting_solve.hpp>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;
using Layout = tridiag::layouts::Flat;
template <class Scalar>
using Matrix = tridiag::TridiagonalBatch<Scalar, Layout, Memory>;
template <class Scalar>
using Vector = tridiag::BatchVector<Scalar, Layout, Memory>;
using Complex = Kokkos::complex<double>;

}  // namespace

// External functions: compiled (and the solves instantiated) whether or not anything calls them.

// A complex matrix (its rhs of the same scalar).
// expect: cyclic::solve: the matrix scalar must be float or double
// expect: periodic::solve: the matrix scalar must be float or double
// expect: pivoting::solve: the matrix scalar must be float or double
void rejected_complex_matrix(const Matrix<Complex>& a, const Vector<Complex>& d, const Vector<Complex>& x) {
  tridiag::cyclic::solve(Space(), a, d, x);
  tridiag::periodic::solve(Space(), a, d, x);
  tridiag::pivoting::solve(Space(), a, d, x);
}

// A float matrix with a double right-hand side (neither float nor Kokkos::complex<float>).
// expect: cyclic::solve: the right-hand side must be the matrix scalar or Kokkos::complex of it
// expect: periodic::solve: the right-hand side must be the matrix scalar or Kokkos::complex of it
// expect: pivoting::solve: the right-hand side must be the matrix scalar or Kokkos::complex of it
void rejected_mixed_precision(const Matrix<float>& a, const Vector<double>& d, const Vector<double>& x) {
  tridiag::cyclic::solve(Space(), a, d, x);
  tridiag::periodic::solve(Space(), a, d, x);
  tridiag::pivoting::solve(Space(), a, d, x);
}

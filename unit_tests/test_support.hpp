#pragma once
// Shared test machinery: the Kokkos fixture (skips without a device), type lists over scalars x
// layouts x enabled execution spaces, random and structured batches built on the host, and
// error measures against the independent oracles in reference/.

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/layouts/layouts.hpp>

namespace tridiag::test {

bool kokkos_available();
const char* kokkos_unavailable_reason();

/// Base fixture of every test that touches Kokkos.
class KokkosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kokkos_available()) GTEST_SKIP() << kokkos_unavailable_reason();
  }
};

// ---- type lists ---------------------------------------------------------------------------
template <class... T>
struct list {};
template <class... L>
struct concat;
template <class... A>
struct concat<list<A...>> {
  using type = list<A...>;
};
template <class... A, class... B, class... Rest>
struct concat<list<A...>, list<B...>, Rest...> : concat<list<A..., B...>, Rest...> {};

/// One test configuration: scalar type, layout, execution space.
template <class S, class L, class E>
struct Config {
  using scalar = S;
  using layout = L;
  using exec = E;
  using memory = typename E::memory_space;
};

template <class S, class Layouts, class E>
struct layouts_for;
template <class S, class... L, class E>
struct layouts_for<S, list<L...>, E> {
  using type = list<Config<S, L, E>...>;
};
template <class Scalars, class Layouts, class Execs>
struct product;
template <class... S, class Layouts, class... E>
struct product<list<S...>, Layouts, list<E...>> {
  template <class One>
  struct per_scalar : concat<typename layouts_for<One, Layouts, E>::type...> {};
  using type = typename concat<typename per_scalar<S>::type...>::type;
};
template <class L>
struct to_gtest;
template <class... T>
struct to_gtest<list<T...>> {
  using type = ::testing::Types<T...>;
};

/// The execution spaces a test translation unit covers: one backend when the build compiles the
/// file once per backend (tridiag_add_unit_test PER_BACKEND), else every space Kokkos has.
#if defined(TRIDIAG_TEST_BACKEND_CUDA)
using ExecSpaces = list<Kokkos::Cuda>;
#elif defined(TRIDIAG_TEST_BACKEND_OPENMP)
using ExecSpaces = list<Kokkos::OpenMP>;
#elif defined(TRIDIAG_TEST_BACKEND_SERIAL)
using ExecSpaces = list<Kokkos::Serial>;
#else
using ExecSpaces = list<
#if defined(KOKKOS_ENABLE_CUDA)
    Kokkos::Cuda,
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    Kokkos::OpenMP,
#endif
    Kokkos::Serial>;
#endif

using AllLayouts = list<layouts::Flat, layouts::Interleaved, layouts::BlockInterleaved<8>,
                        layouts::BlockInterleaved<32>, layouts::UnifiedVector>;
using RealScalars = list<float, double>;

// ---- gtest naming -----------------------------------------------------------------------------
template <class T>
std::string scalar_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, Kokkos::complex<float>>) return "complex_float";
  else return "complex_double";
}
template <class L>
std::string layout_name() {
  std::string name = L::name();
  if constexpr (L::system_granularity > 1) name += std::to_string(L::system_granularity);
  return name;
}
struct ConfigNames {
  template <class C>
  static std::string GetName(int) {
    return scalar_name<typename C::scalar>() + "_" + layout_name<typename C::layout>() + "_" + C::exec::name();
  }
};

// ---- random numbers ---------------------------------------------------------------------------
/// Fresh seed per run unless TRIDIAG_TEST_SEED is set; the tests print it on failure.
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = []() -> std::uint64_t {
    if (const char* env = std::getenv("TRIDIAG_TEST_SEED")) return std::strtoull(env, nullptr, 10);
    return static_cast<std::uint64_t>(std::random_device{}()) << 32 ^ std::random_device{}();
  }();
  return seed;
}

/// Matrices the tests draw.
enum class MatrixKind {
  diagonally_dominant,  ///< |b| >= |a| + |c| + margin, random signs
  poisson,              ///< (-1, 2, -1): symmetric positive definite, cond ~ n^2
  non_dominant          ///< random entries in [-1, 1]: needs pivoting in general
};

/// A batch held on the host, flat: element (s, i) at s * n + i. Values of the real type R.
template <class R>
struct HostBatch {
  index_type systems = 0, rows = 0;
  std::vector<R> a, b, c, d;
  R& at(std::vector<R>& v, index_type s, index_type i) { return v[s * rows + i]; }
  std::vector<long double> system(const std::vector<R>& v, index_type s) const {
    return {v.begin() + s * rows, v.begin() + (s + 1) * rows};
  }
};

template <class R>
HostBatch<R> make_host_batch(index_type systems, index_type rows, MatrixKind kind, std::uint64_t seed) {
  HostBatch<R> h{systems, rows, {}, {}, {}, {}};
  const std::size_t total = static_cast<std::size_t>(systems * rows);
  h.a.resize(total);
  h.b.resize(total);
  h.c.resize(total);
  h.d.resize(total);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::size_t k = 0; k < total; ++k) {
    h.d[k] = R(u(gen));
    switch (kind) {
      case MatrixKind::diagonally_dominant: {
        const double a = u(gen), c = u(gen);
        const double margin = 0.5 + 0.5 * std::fabs(u(gen));
        h.a[k] = R(a);
        h.c[k] = R(c);
        h.b[k] = R((std::fabs(a) + std::fabs(c) + margin) * (u(gen) < 0 ? -1.0 : 1.0));
        break;
      }
      case MatrixKind::poisson:
        h.a[k] = R(-1);
        h.b[k] = R(2);
        h.c[k] = R(-1);
        break;
      case MatrixKind::non_dominant:
        h.a[k] = R(u(gen));
        h.b[k] = R(u(gen));
        h.c[k] = R(u(gen));
        break;
    }
  }
  return h;
}

/// Where a high-contrast diffusion line ends: open (rows 0 and n-1 have one neighbour, the matrix
/// is strictly dominant there) or closed into a ring (indices modulo n, for the periodic solver).
enum class DiffusionBoundary { open, ring };

/// Implicit diffusion through a high-contrast medium: rows (-k_i, m + k_i + k_{i+1}, -k_{i+1}) with
/// k log-uniform in 10^[-3, 3], right-hand sides in [-1, 1]; on a ring the indices are taken modulo
/// n. Symmetric positive definite and only weakly diagonally dominant (strictly in the end rows of
/// an open line, or everywhere by the mass m): PCR-based solvers lose backward stability on them,
/// and a ring with small m has a condition number up to ~1/m (docs/numerics.md). An open line draws
/// n + 1 conductances, a ring n, each followed by its right-hand sides: the same seed always gives
/// the same inputs.
template <class R>
HostBatch<R> make_high_contrast_diffusion(index_type systems, index_type rows, std::uint64_t seed,
                                          DiffusionBoundary boundary = DiffusionBoundary::open,
                                          double mass = 0.0) {
  HostBatch<R> h{systems, rows, {}, {}, {}, {}};
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const bool ring = boundary == DiffusionBoundary::ring;
  std::vector<double> k(static_cast<std::size_t>(ring ? rows : rows + 1));
  for (index_type s = 0; s < systems; ++s) {
    for (auto& v : k) v = std::pow(10.0, 3.0 * u(gen));
    for (index_type i = 0; i < rows; ++i) {
      const double left = k[static_cast<std::size_t>(i)];
      const double right = k[static_cast<std::size_t>(ring ? (i + 1) % rows : i + 1)];
      h.a.push_back(R(-left));
      h.b.push_back(R(mass + left + right));
      h.c.push_back(R(-right));
      h.d.push_back(R(u(gen)));
    }
  }
  return h;
}

/// Copies one host vector (flat) into a BatchVector of any layout / memory space.
template <class R, class Scalar, class Layout, class Memory>
void upload(const std::vector<R>& flat, const BatchVector<Scalar, Layout, Memory>& v) {
  auto host = create_host_copy(v);
  for (index_type s = 0; s < v.systems(); ++s)
    for (index_type i = 0; i < v.rows(); ++i) host(s, i) = Scalar(flat[s * v.rows() + i]);
  deep_copy(v, host);
}

/// Flat host copy of a BatchVector.
template <class Scalar, class Layout, class Memory>
std::vector<std::remove_const_t<Scalar>> download(const BatchVector<Scalar, Layout, Memory>& v) {
  auto host = create_host_copy(v);
  std::vector<std::remove_const_t<Scalar>> flat(static_cast<std::size_t>(v.systems() * v.rows()));
  for (index_type s = 0; s < v.systems(); ++s)
    for (index_type i = 0; i < v.rows(); ++i) flat[s * v.rows() + i] = host(s, i);
  return flat;
}

/// Fills the whole storage (padding included) with `value`: NaN to catch unwritten outputs, or a
/// sentinel to check that padding is never touched.
template <class Scalar, class Layout, class Memory>
void fill_storage(const BatchVector<Scalar, Layout, Memory>& v, Scalar value) {
  Kokkos::deep_copy(v.storage(), value);
}

/// Every storage element that belongs to no (system, row) of v (the padding of block layouts)
/// must still be NaN: fill_storage(v, NaN) before the run, this after it.
template <class Scalar, class Layout, class Memory>
void expect_padding_untouched(const BatchVector<Scalar, Layout, Memory>& v) {
  auto host = create_host_copy(v);
  const auto& map = v.mapping();
  std::vector<bool> real_element(static_cast<std::size_t>(map.required_span()), false);
  for (index_type s = 0; s < v.systems(); ++s)
    for (index_type i = 0; i < v.rows(); ++i) real_element[map.offset(s, i)] = true;
  for (std::size_t k = 0; k < real_element.size(); ++k)
    if (!real_element[k]) {
      ASSERT_TRUE(host.storage()(k) != host.storage()(k)) << "padding element " << k << " was written";
    }
}

template <class R>
R nan_of();

/// x and the per-system status of a solve, flat on the host.
template <class S>
struct SolvedBatch {
  std::vector<S> x;
  std::vector<int> status;
};

/// Runs `call`, which must throw tridiag::invalid_argument with `expected` in its message (the
/// overlap tests: the message names both vectors).
template <class Call>
void expect_invalid_argument(Call&& call, const std::string& expected) {
  try {
    call();
    ADD_FAILURE() << "accepted: " << expected;
  } catch (const tridiag::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

/// Largest team execution space E allows (2 for OpenMP on a 2-core machine, 1 for Serial).
template <class E>
int max_team_size() {
  using Policy = Kokkos::TeamPolicy<E>;
  return Policy(E(), 1, 1).team_size_max(KOKKOS_LAMBDA(const typename Policy::member_type&){},
                                         Kokkos::ParallelForTag());
}

/// A copy of host batch h (matrix and right-hand side) in C's layout and memory space.
template <class C>
auto upload_system(const HostBatch<typename C::scalar>& h) {
  auto sys = allocate_system<typename C::layout, typename C::scalar, typename C::memory>("t", h.systems, h.rows);
  upload(h.a, sys.matrix.lower);
  upload(h.b, sys.matrix.diag);
  upload(h.c, sys.matrix.upper);
  upload(h.d, sys.rhs);
  return sys;
}

/// Solves h in place, `solver(exec, matrix, rhs, x)` with x the right-hand side's own storage,
/// and returns x.
template <class C, class Solver>
std::vector<typename C::scalar> solve_in_place(const HostBatch<typename C::scalar>& h, const Solver& solver) {
  auto sys = upload_system<C>(h);
  typename C::exec exec;
  solver(exec, sys.matrix, sys.rhs, sys.rhs);
  exec.fence();
  return download(sys.rhs);
}

/// The common harness of the solver tests: uploads h into a fresh system of C's layout and memory
/// space, poisons x (padding included) with NaN and the status with -999, runs
/// solver(exec, matrix, rhs, x, status), then checks that the padding was not written and that
/// the matrix and right-hand side were not modified, and returns x and the status.
template <class C, class Solver>
SolvedBatch<typename C::scalar> solve_poisoned(const HostBatch<typename C::scalar>& h, const Solver& solver) {
  using S = typename C::scalar;
  using L = typename C::layout;
  using M = typename C::memory;
  auto sys = upload_system<C>(h);
  BatchVector<S, L, M> x("x", h.systems, h.rows);
  fill_storage(x, nan_of<S>());
  StatusView<M> status("status", h.systems);
  Kokkos::deep_copy(status, -999);
  typename C::exec exec;
  solver(exec, sys.matrix, sys.rhs, x, status);
  exec.fence();
  expect_padding_untouched(x);
  const auto bytes_equal = [](const std::vector<S>& u, const std::vector<S>& v) {
    return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), u.size() * sizeof(S)) == 0);
  };
  EXPECT_TRUE(bytes_equal(download(sys.matrix.lower), h.a)) << "lower diagonal modified";
  EXPECT_TRUE(bytes_equal(download(sys.matrix.diag), h.b)) << "diagonal modified";
  EXPECT_TRUE(bytes_equal(download(sys.matrix.upper), h.c)) << "upper diagonal modified";
  EXPECT_TRUE(bytes_equal(download(sys.rhs), h.d)) << "right-hand side modified";
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  return {download(x), std::vector<int>(st.data(), st.data() + st.extent(0))};
}

template <class R>
R nan_of() {
  return std::numeric_limits<R>::quiet_NaN();
}

/// Unit roundoff-scale epsilon of the real type underneath T.
template <class T>
long double eps_of() {
  return static_cast<long double>(std::numeric_limits<real_type_t<T>>::epsilon());
}

/// Backward error ||A x - d||_inf / (||A||_inf ||x||_inf + ||d||_inf) of one system, long double.
template <class R, class X>
long double backward_error(const HostBatch<R>& h, index_type s, const std::vector<X>& x) {
  const index_type n = h.rows;
  long double res = 0, anorm = 0, xnorm = 0, dnorm = 0;
  for (index_type i = 0; i < n; ++i) {
    const index_type k = s * n + i;
    const long double xi = static_cast<long double>(x[k]);
    long double r = static_cast<long double>(h.b[k]) * xi - static_cast<long double>(h.d[k]);
    long double row = std::fabs(static_cast<long double>(h.b[k]));
    if (i > 0) {
      r += static_cast<long double>(h.a[k]) * static_cast<long double>(x[k - 1]);
      row += std::fabs(static_cast<long double>(h.a[k]));
    }
    if (i + 1 < n) {
      r += static_cast<long double>(h.c[k]) * static_cast<long double>(x[k + 1]);
      row += std::fabs(static_cast<long double>(h.c[k]));
    }
    if (!(std::fabs(r) <= res)) res = std::fabs(r);  // NaN-propagating max
    anorm = std::max(anorm, row);
    xnorm = std::max(xnorm, std::fabs(xi));
    dnorm = std::max(dnorm, std::fabs(static_cast<long double>(h.d[k])));
  }
  const long double denom = anorm * xnorm + dnorm;
  return denom > 0 ? res / denom : res;
}

/// max_i |x_i - ref_i| / max_i |ref_i| (NaN if any x is NaN).
template <class X>
long double forward_error(const std::vector<X>& x, index_type offset, const std::vector<long double>& ref) {
  long double err = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const long double e = std::fabs(static_cast<long double>(x[offset + i]) - ref[i]);
    if (!(e <= err)) err = e;
    norm = std::max(norm, std::fabs(ref[i]));
  }
  return norm > 0 ? err / norm : err;
}

/// A real matrix with a complex right-hand side, solved once: h's matrix and h.d as the real
/// part, imag.d as the imaginary part. The real and imaginary parts of x are two real solves with
/// the same matrix, so each is checked against the oracle as a real batch (real_part(),
/// imaginary_part()).
template <class R>
struct ComplexSolved {
  HostBatch<R> real_part, imaginary_part;  ///< the two real problems x solves
  std::vector<R> re, im;                   ///< x, split
  std::vector<int> status;
};

/// Uploads h (matrix, real part of the rhs) and imag.d (imaginary part) into layout L of memory
/// M, poisons x with NaN, runs solver(matrix, d, x, status) and returns x split and the status.
template <class L, class M, class R, class Solver>
ComplexSolved<R> solve_complex_rhs(const HostBatch<R>& h, const HostBatch<R>& imag, const Solver& solver) {
  using Cx = Kokkos::complex<R>;
  const index_type systems = h.systems, n = h.rows;
  TridiagonalBatch<R, L, M> matrix("A", systems, n);
  upload(h.a, matrix.lower);
  upload(h.b, matrix.diag);
  upload(h.c, matrix.upper);
  BatchVector<Cx, L, M> d("d", systems, n), x("x", systems, n);
  std::vector<Cx> dc(static_cast<std::size_t>(systems * n));
  for (std::size_t k = 0; k < dc.size(); ++k) dc[k] = Cx(h.d[k], imag.d[k]);
  upload(dc, d);
  fill_storage(x, Cx(nan_of<R>(), nan_of<R>()));
  StatusView<M> status("status", systems);
  Kokkos::deep_copy(status, -999);  // a solver that writes no status fails the callers' checks
  solver(matrix, d, x, status);
  Kokkos::fence();
  ComplexSolved<R> r{h, h, {}, {}, {}};
  r.imaginary_part.d = imag.d;
  const auto xc = download(x);
  r.re.resize(xc.size());
  r.im.resize(xc.size());
  for (std::size_t k = 0; k < xc.size(); ++k) {
    r.re[k] = xc[k].real();
    r.im[k] = xc[k].imag();
  }
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  r.status.assign(st.data(), st.data() + st.extent(0));
  return r;
}

}  // namespace tridiag::test

// tridiag-demo: the main job of the README's setup command. Solves one batch of random
// diagonally dominant tridiagonal systems with every solver tridiag has, on every layout, on the
// default execution space, and prints one table row each: solver, layout, systems, size, time
// (median of 5 runs after a warm-up) and the largest relative error over every system of the
// batch against LAPACK: ?gtsv for the tridiagonal solvers, and for the periodic solver (which
// also reads the corners lower(s, 0) and upper(s, n - 1)) two ?gtsv solves combined by
// Sherman-Morrison on the host. x is NaN before every run, so a row a solver leaves unwritten
// fails its check.
//
// usage: tridiag-demo [--systems N] [--n N]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <lapacke.h>

#include <tridiag/tridiag.hpp>

namespace {

using tridiag::index_type;
using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

/// The batch on the host, flat (system s, row i at s * n + i), and its LAPACK solution.
template <class T>
struct Problem {
  index_type systems, n;
  std::vector<T> a, b, c, d, x_lapack;
  std::vector<index_type> sizes;  // for the variable-batch rows: n_s uniform in [n/2, n]
  std::vector<T> x_lapack_variable;
  std::vector<T> x_lapack_periodic;  // empty for n < 3 (no periodic rows then)
};

template <class T>
int gtsv(lapack_int n, T* dl, T* d, T* du, T* b) {
  if constexpr (std::is_same_v<T, float>) return LAPACKE_sgtsv(LAPACK_COL_MAJOR, n, 1, dl, d, du, b, n);
  else return LAPACKE_dgtsv(LAPACK_COL_MAJOR, n, 1, dl, d, du, b, n);
}

/// LAPACK solution of the first `rows` rows of system s.
template <class T>
void lapack_solve(const Problem<T>& p, index_type s, index_type rows, T* x) {
  if (rows == 0) return;
  std::vector<T> dl(rows), du(rows), diag(rows);
  for (index_type i = 0; i < rows; ++i) {
    diag[i] = p.b[s * p.n + i];
    if (i + 1 < rows) {
      dl[i] = p.a[s * p.n + i + 1];
      du[i] = p.c[s * p.n + i];
    }
    x[i] = p.d[s * p.n + i];
  }
  if (gtsv<T>(static_cast<lapack_int>(rows), dl.data(), diag.data(), du.data(), x) != 0) {
    std::fprintf(stderr, "LAPACK failed on system %lld\n", static_cast<long long>(s));
    std::exit(1);
  }
}

/// LAPACK solution of system s read as periodic (row 0 couples to row n - 1 through a(s, 0), row
/// n - 1 to row 0 through c(s, n - 1)), n >= 3: A = T + u v^T with u = (g, 0, ..., 0, c_{n-1}) and
/// v = (1, 0, ..., 0, a_0 / g), g = -b_0; T y = d and T z = u by ?gtsv, x = y - (v.y / (1 + v.z)) z.
template <class T>
void lapack_periodic_solve(const Problem<T>& p, index_type s, T* x) {
  const index_type n = p.n;
  const T* a = &p.a[s * n];
  const T* b = &p.b[s * n];
  const T* c = &p.c[s * n];
  const T g = -b[0], corner_low = a[0], corner_up = c[n - 1];
  std::vector<T> dl(n - 1), diag(n), du(n - 1), y(p.d.begin() + s * n, p.d.begin() + (s + 1) * n), z(n, T(0));
  auto load = [&] {
    for (index_type i = 0; i < n; ++i) diag[i] = b[i];
    diag[0] -= g;
    diag[n - 1] -= corner_low * corner_up / g;
    for (index_type i = 0; i + 1 < n; ++i) dl[i] = a[i + 1], du[i] = c[i];
  };
  z[0] = g;
  z[n - 1] = corner_up;
  for (T* v : {y.data(), z.data()}) {
    load();
    if (gtsv<T>(static_cast<lapack_int>(n), dl.data(), diag.data(), du.data(), v) != 0) {
      std::fprintf(stderr, "LAPACK failed on periodic system %lld\n", static_cast<long long>(s));
      std::exit(1);
    }
  }
  const T factor = (y[0] + corner_low / g * y[n - 1]) / (T(1) + z[0] + corner_low / g * z[n - 1]);
  for (index_type i = 0; i < n; ++i) x[i] = y[i] - factor * z[i];
}

template <class T>
Problem<T> make_problem(index_type systems, index_type n) {
  Problem<T> p{systems, n, {}, {}, {}, {}, {}, {}, {}};
  const std::size_t total = static_cast<std::size_t>(systems * n);
  p.a.resize(total), p.b.resize(total), p.c.resize(total), p.d.resize(total);
  std::mt19937_64 gen(20261123);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t k = 0; k < total; ++k) {
    p.a[k] = T(u(gen));
    p.c[k] = T(u(gen));
    p.b[k] = T(std::fabs(p.a[k]) + std::fabs(p.c[k]) + 0.5 + 0.5 * std::fabs(u(gen)));
    p.d[k] = T(u(gen));
  }
  std::uniform_int_distribution<index_type> size(n / 2, n);
  p.sizes.resize(systems);
  for (auto& m : p.sizes) m = size(gen);
  p.x_lapack.resize(total);
  p.x_lapack_variable.assign(total, T(0));
  if (n >= 3) p.x_lapack_periodic.resize(total);
  for (index_type s = 0; s < systems; ++s) {
    lapack_solve(p, s, n, &p.x_lapack[s * n]);
    lapack_solve(p, s, p.sizes[s], &p.x_lapack_variable[s * n]);
    if (n >= 3) lapack_periodic_solve(p, s, &p.x_lapack_periodic[s * n]);
  }
  return p;
}

/// max over systems of max_i |x_i - x_lapack_i| / max_i |x_lapack_i| (rows < rows_of(s) only).
template <class T, class Get>
double max_relative_error(const Problem<T>& p, const std::vector<T>& ref, Get rows_of, const std::vector<T>& x) {
  double worst = 0;
  for (index_type s = 0; s < p.systems; ++s) {
    double err = 0, norm = 0;
    for (index_type i = 0; i < rows_of(s); ++i) {
      const double e = std::fabs(double(x[s * p.n + i]) - double(ref[s * p.n + i]));
      err = (e > err || e != e) ? e : err;
      norm = std::max(norm, std::fabs(double(ref[s * p.n + i])));
    }
    const double rel = norm > 0 ? err / norm : err;
    worst = (rel > worst || rel != rel) ? rel : worst;
  }
  return worst;
}

/// Median wall time (ms) of `run` over 5 runs after one warm-up, fenced on both sides.
double median_ms(const std::function<void()>& run) {
  run();
  Exec().fence();
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    Exec().fence();
    const auto start = std::chrono::steady_clock::now();
    run();
    Exec().fence();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T, class V>
void upload(const std::vector<T>& flat, const V& v) {
  auto host = tridiag::create_host_copy(v);
  for (index_type s = 0; s < v.systems(); ++s)
    for (index_type i = 0; i < v.rows(); ++i) host(s, i) = flat[s * v.rows() + i];
  tridiag::deep_copy(v, host);
}
template <class V>
auto download(const V& v) {
  auto host = tridiag::create_host_copy(v);
  std::vector<typename V::value_type> flat(v.systems() * v.rows());
  for (index_type s = 0; s < v.systems(); ++s)
    for (index_type i = 0; i < v.rows(); ++i) flat[s * v.rows() + i] = host(s, i);
  return flat;
}

int wrong_results = 0;

void print_row(const std::string& solver, const std::string& layout, const char* precision, index_type systems,
               index_type n, double ms, double error, double bound) {
  const bool ok = error <= bound;
  if (!ok) ++wrong_results;
  std::printf("%-26s %-22s %-7s %9lld %7lld %11.3f %12.2e  %s\n", solver.c_str(), layout.c_str(), precision,
              static_cast<long long>(systems), static_cast<long long>(n), ms, error, ok ? "ok" : "WRONG");
}

template <class Layout>
std::string layout_label() {
  std::string label = Layout::name();
  if (Layout::system_granularity > 1) label += "<" + std::to_string(Layout::system_granularity) + ">";
  return label;
}

/// Every fixed-size solver on one layout: thomas::solve, then each algorithm of tridiag::solve
/// (the cyclic ones only where their team scratch holds a system), then periodic::solve.
template <class T, class Layout>
void run_fixed(const Problem<T>& p, const char* precision, double bound) {
  auto sys = tridiag::allocate_system<Layout, T, Memory>("demo", p.systems, p.n);
  upload(p.a, sys.matrix.lower), upload(p.b, sys.matrix.diag), upload(p.c, sys.matrix.upper), upload(p.d, sys.rhs);
  tridiag::BatchVector<T, Layout, Memory> x("x", p.systems, p.n);
  tridiag::StatusView<Memory> status("status", p.systems);
  const std::string layout = layout_label<Layout>();
  const auto all_rows = [&](index_type) { return p.n; };
  const auto run = [&](const std::string& solver, const std::vector<T>& reference, const std::function<void()>& solve) {
    Kokkos::deep_copy(x.storage(), std::numeric_limits<T>::quiet_NaN());
    const double ms = median_ms(solve);
    tridiag::check(status, "tridiag-demo");
    print_row(solver, layout, precision, p.systems, p.n, ms, max_relative_error(p, reference, all_rows, download(x)),
              bound);
  };
  {
    tridiag::thomas::Workspace<T, Layout, Memory> work("work", p.systems, p.n);
    run("thomas", p.x_lapack, [&] { tridiag::thomas::solve(Exec(), sys.matrix, sys.rhs, x, status, work); });
  }
  using tridiag::Algorithm;
  for (const Algorithm algorithm : {Algorithm::partitioned, Algorithm::cr, Algorithm::pcr, Algorithm::cr_pcr,
                                    Algorithm::pivoting, Algorithm::automatic}) {
    tridiag::SolveWorkspace<T, Layout, Memory> work;
    Algorithm used = algorithm;
    const auto solve = [&] { used = tridiag::solve(Exec(), sys.matrix, sys.rhs, x, status, {algorithm}, work); };
    std::string solver = std::string("solve(") + tridiag::name(algorithm) + ")";
    try {
      solve();  // a cyclic solver whose team scratch cannot hold a system says so here
    } catch (const tridiag::invalid_argument& e) {
      std::printf("%-26s %-22s %-7s skipped: %s\n", solver.c_str(), layout.c_str(), precision, e.what());
      continue;
    }
    if (algorithm == Algorithm::automatic) solver += " -> " + std::string(tridiag::name(used));
    run(solver, p.x_lapack, solve);
  }
  if (!p.x_lapack_periodic.empty()) {
    tridiag::periodic::Workspace<T, Layout, Memory> work("work", p.systems, p.n);
    run("periodic", p.x_lapack_periodic, [&] { tridiag::periodic::solve(Exec(), sys.matrix, sys.rhs, x, status, work); });
  }
}

/// The variable batch (sizes uniform in [n/2, n]) with CP, NCP on padded storage and NCP on
/// offset-indexed storage.
template <class T>
void run_variable(const Problem<T>& p, const char* precision, double bound) {
  using Layout = tridiag::layouts::Interleaved;
  auto rows_of = [&](index_type s) { return p.sizes[s]; };
  auto sizes = tridiag::layouts::make_sizes<Memory>(p.sizes);
  {  // NCP, padded
    auto sys = tridiag::allocate_system<Layout, T, Memory>("demo", p.systems, p.n);
    upload(p.a, sys.matrix.lower), upload(p.b, sys.matrix.diag), upload(p.c, sys.matrix.upper), upload(p.d, sys.rhs);
    tridiag::BatchVector<T, Layout, Memory> x("x", p.systems, p.n);
    tridiag::thomas::Workspace<T, Layout, Memory> work("work", p.systems, p.n);
    const double ms =
        median_ms([&] { tridiag::thomas::solve_padded(Exec(), sys.matrix, sys.rhs, x, sizes, {}, work); });
    print_row("thomas vbatch NCP", "interleaved padded", precision, p.systems, p.n, ms,
              max_relative_error(p, p.x_lapack_variable, rows_of, download(x)), bound);
    // CP: the same storage with identity padding rows, solved over all n rows.
    tridiag::layouts::pad_matrix(Exec(), sys.matrix, sys.rhs, sizes);
    const double ms_cp = median_ms([&] { tridiag::thomas::solve(Exec(), sys.matrix, sys.rhs, x, {}, work); });
    print_row("thomas vbatch CP", "interleaved padded", precision, p.systems, p.n, ms_cp,
              max_relative_error(p, p.x_lapack_variable, rows_of, download(x)), bound);
  }
  {  // NCP, offset-indexed (no padding)
    auto offsets = tridiag::layouts::make_offsets<Memory>(p.sizes);
    using Ragged = tridiag::layouts::RaggedVector<T, Memory>;
    Ragged a("a", offsets), b("b", offsets), c("c", offsets), d("d", offsets), x("x", offsets);
    auto fill = [&](const std::vector<T>& flat, const Ragged& v) {
      auto host = Kokkos::create_mirror_view(v.storage());
      index_type k = 0;
      for (index_type s = 0; s < p.systems; ++s)
        for (index_type i = 0; i < p.sizes[s]; ++i) host(k++) = flat[s * p.n + i];
      Kokkos::deep_copy(v.storage(), host);
    };
    fill(p.a, a), fill(p.b, b), fill(p.c, c), fill(p.d, d);
    const double ms = median_ms([&] { tridiag::thomas::solve_ragged(Exec(), a, b, c, d, x); });
    auto xs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x.storage());
    std::vector<T> padded(p.systems * p.n, T(0));
    index_type k = 0;
    for (index_type s = 0; s < p.systems; ++s)
      for (index_type i = 0; i < p.sizes[s]; ++i) padded[s * p.n + i] = xs(k++);
    print_row("thomas vbatch NCP", "offset-indexed", precision, p.systems, p.n, ms,
              max_relative_error(p, p.x_lapack_variable, rows_of, padded), bound);
  }
}

template <class T>
void run_all(index_type systems, index_type n, const char* precision) {
  const auto p = make_problem<T>(systems, n);
  // Diagonally dominant with margin >= 0.5: cond_inf < 11, so both solvers agree to ~n eps.
  const double bound = 100.0 * (n + 1) * std::numeric_limits<T>::epsilon();
  run_fixed<T, tridiag::layouts::Interleaved>(p, precision, bound);
  run_fixed<T, tridiag::layouts::BlockInterleaved<32>>(p, precision, bound);
  run_fixed<T, tridiag::layouts::BlockInterleaved<8>>(p, precision, bound);
  run_fixed<T, tridiag::layouts::Flat>(p, precision, bound);
  run_fixed<T, tridiag::layouts::UnifiedVector>(p, precision, bound);
  run_variable<T>(p, precision, bound);
}

index_type parse(int& k, int argc, char** argv) {
  if (k + 1 >= argc) {
    std::fprintf(stderr, "tridiag-demo: %s needs a value\n", argv[k]);
    std::exit(2);
  }
  const long long v = std::atoll(argv[++k]);
  if (v <= 0) {
    std::fprintf(stderr, "tridiag-demo: %s must be positive, got '%s'\n", argv[k - 1], argv[k]);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  index_type systems = 20000, n = 256;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--systems") systems = parse(k, argc, argv);
    else if (arg == "--n") n = parse(k, argc, argv);
    else if (arg == "--help" || arg == "-h") {
      std::printf("usage: tridiag-demo [--systems N] [--n N]\n");
      return 0;
    } else if (arg.rfind("--kokkos", 0) != 0) {
      std::fprintf(stderr, "tridiag-demo: unknown option '%s' (try --help)\n", arg.c_str());
      return 2;
    }
  }
  if (const std::string missing = tridiag::missing_device_reason(); !missing.empty()) {
    std::fprintf(stderr, "tridiag-demo: %s: nothing run\n", missing.c_str());
    return 77;  // the test counts it as skipped
  }
  Kokkos::initialize(argc, argv);
  {
    std::printf("%s, concurrency %d\n", tridiag::configuration_string().c_str(),
                tridiag::compat::concurrency(Exec()));
    std::printf("Random diagonally dominant systems; error = max over systems of ||x - x_lapack||_inf / "
                "||x_lapack||_inf\n\n");
    std::printf("%-26s %-22s %-7s %9s %7s %11s %12s  %s\n", "solver", "layout", "prec", "systems", "size",
                "time [ms]", "max error", "check");
    run_all<double>(systems, n, "double");
    run_all<float>(systems, n, "float");
  }
  Kokkos::finalize();
  if (wrong_results) std::printf("\n%d result(s) WRONG\n", wrong_results);
  return wrong_results ? 1 : 0;
}

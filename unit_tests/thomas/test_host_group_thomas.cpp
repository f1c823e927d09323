// thomas::solve through the host group kernel (algorithms/thomas/host_group_thomas.hpp: one thread
// solves a group of W systems in lockstep) on the layouts it serves and on Flat (one system per
// thread): bitwise equal to SerialThomas run system by system on the host, status codes included;
// batches whose system count is not a multiple of W (a last partial group, padding systems of
// BlockInterleaved storage never written); breakdowns inside a group leave the other systems of the
// group exact; in-place solves; and the adjacency the kernel assumes matches each layout's mapping.
// On a GPU backend the same checks hold for the one-thread-per-system kernel, against SerialThomas
// run one system per thread on the GPU (nvcc's FMA contraction makes the host's bits differ).

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <tridiag/algorithms/thomas/host_group_thomas.hpp>
#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>

#include "reference/reference_thomas.hpp"
#include "thomas/thomas_checks.hpp"

namespace tridiag::test {
namespace {

using GroupLayouts = list<layouts::BlockInterleaved<8>, layouts::BlockInterleaved<32>, layouts::Interleaved,
                          layouts::Flat, layouts::UnifiedVector>;

template <class C>
class ThomasHostGroup : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, GroupLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasHostGroup, Configs, ConfigNames);

/// Systems per group the host kernel uses for C's layout (1 where it keeps one system per thread).
template <class C>
constexpr index_type group_width() {
  constexpr int w = thomas::impl::HostGroup<typename C::layout, typename C::scalar>::width;
  return w > 0 ? w : 1;
}

/// Row accessor of one system of a flat host vector (annotated like the kernels' accessors, since
/// SerialThomas::invoke is a host-device function).
template <class S>
struct HostRows {
  S* p;
  KOKKOS_INLINE_FUNCTION S& operator()(index_type i) const { return p[i]; }
};

/// The sequential reference: SerialThomas::invoke system by system on the host (flat storage).
template <class S, class V>
SolvedBatch<V> serial_reference(const HostBatch<S>& h, const std::vector<V>& d) {
  const index_type n = h.rows;
  SolvedBatch<V> r{std::vector<V>(static_cast<std::size_t>(h.systems * n)), std::vector<int>(h.systems)};
  std::vector<S> a = h.a, b = h.b, c = h.c, g(static_cast<std::size_t>(std::max<index_type>(n, 1)));
  std::vector<V> dd = d;
  for (index_type s = 0; s < h.systems; ++s)
    r.status[s] = thomas::SerialThomas::invoke(n, HostRows<S>{a.data() + s * n}, HostRows<S>{b.data() + s * n},
                                               HostRows<S>{c.data() + s * n}, HostRows<V>{dd.data() + s * n},
                                               HostRows<V>{r.x.data() + s * n}, HostRows<S>{g.data()});
  return r;
}

/// SerialThomas::invoke, one system per thread, flat storage: the sequential reference on a GPU,
/// where the kernels are compiled by nvcc (which contracts a * b + c into FMAs: the host reference
/// differs from the GPU's results in the last bits).
template <class S, class V, class M>
struct SequentialSystems {
  index_type n;
  BatchVector<S, layouts::Flat, M> a, b, c, g;
  BatchVector<V, layouts::Flat, M> d, x;
  Kokkos::View<int*, M> status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    status(s) = thomas::SerialThomas::invoke(n, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(d, s),
                                             rows_of(x, s), rows_of(g, s));
  }
};

/// The sequential reference for C's execution space: on the host, serial_reference; on a GPU the
/// same algorithm run there (SequentialSystems), so that "bitwise equal" compares like with like.
template <class C, class V>
SolvedBatch<V> reference_for(const HostBatch<typename C::scalar>& h, const std::vector<V>& d) {
  using S = typename C::scalar;
  using M = typename C::memory;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible) {
    return serial_reference(h, d);
  } else {
    const index_type n = h.rows;
    BatchVector<S, layouts::Flat, M> a("a", h.systems, n), b("b", h.systems, n), c("c", h.systems, n),
        g("g", h.systems, n);
    BatchVector<V, layouts::Flat, M> dd("d", h.systems, n), x("x", h.systems, n);
    upload(h.a, a);
    upload(h.b, b);
    upload(h.c, c);
    upload(d, dd);
    Kokkos::View<int*, M> status("status", h.systems);
    Kokkos::parallel_for("tridiag::test::sequential_systems",
                         Kokkos::RangePolicy<typename C::exec, Kokkos::IndexType<index_type>>(0, h.systems),
                         SequentialSystems<S, V, M>{n, a, b, c, g, dd, x, status});
    Kokkos::fence();
    const auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
    return {download(x), std::vector<int>(st.data(), st.data() + st.extent(0))};
  }
}

template <class M>
std::vector<int> host_status(const StatusView<M>& status) {
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  return std::vector<int>(st.data(), st.data() + st.extent(0));
}

template <class V>
bool same_bits(const std::vector<V>& u, const std::vector<V>& v) {
  return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), u.size() * sizeof(V)) == 0);
}

template <class C>
SolvedBatch<typename C::scalar> solve_batch(const HostBatch<typename C::scalar>& h) {
  return solve_poisoned<C>(h, [](const auto& exec, const auto& matrix, const auto& rhs, const auto& x,
                                 const auto& status) { thomas::solve(exec, matrix, rhs, x, status); });
}

/// Expects r to be bitwise the sequential reference's x and status, naming the first difference.
template <class C, class S>
void expect_bitwise_reference(const HostBatch<S>& h, const SolvedBatch<S>& r, const std::string& what) {
  const auto ref = reference_for<C>(h, h.d);
  ASSERT_EQ(r.status, ref.status) << what;
  for (std::size_t k = 0; k < ref.x.size(); ++k)
    ASSERT_EQ(std::memcmp(&r.x[k], &ref.x[k], sizeof(S)), 0)
        << what << ": system " << k / h.rows << " row " << k % h.rows << ": " << r.x[k] << " vs sequential "
        << ref.x[k];
}

TYPED_TEST(ThomasHostGroup, BitwiseEqualToSequentialThomasForEveryGroupShape) {
  using S = typename TypeParam::scalar;
  constexpr index_type w = group_width<TypeParam>();
  std::set<index_type> counts = {0, 1, 7, 8, 9, 100};
  for (index_type extra : {w - 1, w, w + 1, 2 * w + 3}) counts.insert(std::max<index_type>(extra, 0));
  for (index_type n : {1, 2, 3, 64, 513}) {
    for (index_type systems : counts) {
      const auto what = std::to_string(systems) + " systems x " + std::to_string(n) + " rows (group of " +
                        std::to_string(w) + ")";
      const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant,
                                        test_seed() + 7919 * n + systems);
      const auto r = solve_batch<TypeParam>(h);
      for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0) << what << ": system " << s;
      expect_bitwise_reference<TypeParam>(h, r, what);
      if (systems <= 9 || n <= 3) expect_matches_oracle(h, r.x, what);
      for (index_type s = 0; s < systems; ++s) {  // the plain std::vector Thomas, to a few roundoffs
        const auto cut = [&](const std::vector<S>& v) {
          return std::vector<S>(v.begin() + s * n, v.begin() + (s + 1) * n);
        };
        const auto ref = reference_thomas(cut(h.a), cut(h.b), cut(h.c), cut(h.d));
        ASSERT_TRUE(forward_error(r.x, s * n, std::vector<long double>(ref.begin(), ref.end())) <=
                    8.0L * (n + 1) * eps_of<S>())
            << what << ": system " << s << " differs from the reference Thomas";
      }
      if (this->HasFailure()) return;
    }
  }
}

/// A batch of 3W + 5 systems: breakdowns in the first group (one kind per lane), a whole second
/// group failing, one failure in the middle of the third group, and one in the last (partial)
/// group. `broken` gets the failed systems, sorted.
template <class S>
HostBatch<S> broken_batch(index_type w, index_type n, std::uint64_t seed, std::vector<index_type>& broken) {
  const index_type systems = 3 * w + 5;
  auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, seed);
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  const index_type last = n - 1, mid = n / 2, second = std::min<index_type>(1, last);
  broken.clear();
  h.at(h.b, 1, 0) = 0;                                          // zero pivot at row 1
  h.at(h.d, 2, mid) = nan;                                      // NaN rhs: -(mid + 1)
  h.at(h.a, 3, last) = h.at(h.b, 3, last) = h.at(h.c, 3, last) = 0;  // zero last row: n
  h.at(h.b, 4, 0) = inf;                                        // infinite pivot at row 1
  h.at(h.a, 5, second) = 0;                                     // subnormal pivot at row second + 1
  h.at(h.b, 5, second) = std::numeric_limits<S>::denorm_min();
  h.at(h.d, 6, last) = -inf;                                    // infinite rhs at the last row: -n
  broken = {1, 2, 3, 4, 5, 6};
  if (n > 1) {
    h.at(h.a, 7, 1) = nan;                                      // NaN sub-diagonal: pivot at row 2
    broken.push_back(7);
  }
  for (index_type s = w; s < 2 * w; ++s) {                      // a whole group: NaN rhs at row 1
    h.at(h.d, s, 0) = nan;
    broken.push_back(s);
  }
  const index_type lone = 2 * w + w / 2;                        // alone in its group: zero last row
  h.at(h.a, lone, last) = h.at(h.b, lone, last) = h.at(h.c, lone, last) = 0;
  broken.push_back(lone);
  h.at(h.b, systems - 1, 0) = 0;                                // in the last, partial group
  broken.push_back(systems - 1);
  std::sort(broken.begin(), broken.end());
  broken.erase(std::unique(broken.begin(), broken.end()), broken.end());
  return h;
}

TYPED_TEST(ThomasHostGroup, BreakdownsInAGroupLeaveTheirNeighboursExact) {
  using S = typename TypeParam::scalar;
  constexpr index_type w = std::max<index_type>(group_width<TypeParam>(), 8);
  for (index_type n : {1, 2, 3, 12, 64}) {
    const std::string what = std::to_string(n) + " rows";
    std::vector<index_type> broken;
    const auto h = broken_batch<S>(w, n, test_seed() + n, broken);
    auto clean_h = make_host_batch<S>(h.systems, n, MatrixKind::diagonally_dominant, test_seed() + n);
    const auto clean = solve_batch<TypeParam>(clean_h);
    const auto r = solve_batch<TypeParam>(h);
    expect_bitwise_reference<TypeParam>(h, r, what);
    // The codes themselves (the reference is SerialThomas: check it did what the brief says).
    EXPECT_EQ(r.status[1], 1) << what;
    EXPECT_EQ(r.status[2], -static_cast<int>(n / 2 + 1)) << what;
    EXPECT_EQ(r.status[3], static_cast<int>(n)) << what;
    EXPECT_EQ(r.status[4], 1) << what;
    EXPECT_EQ(r.status[5], static_cast<int>(std::min<index_type>(1, n - 1) + 1)) << what;
    EXPECT_EQ(r.status[6], -static_cast<int>(n)) << what;
    if (n > 1) EXPECT_EQ(r.status[7], 2) << what;
    for (index_type s = w; s < 2 * w; ++s) EXPECT_EQ(r.status[s], -1) << what << ": system " << s;
    EXPECT_EQ(r.status[2 * w + w / 2], static_cast<int>(n)) << what;
    EXPECT_EQ(r.status[h.systems - 1], 1) << what;
    for (index_type s = 0; s < h.systems; ++s) {
      const bool failed = std::binary_search(broken.begin(), broken.end(), s);
      for (index_type i = 0; i < n; ++i) {
        const S v = r.x[s * n + i];
        if (failed) {
          ASSERT_TRUE(std::isnan(v)) << what << ": failed system " << s << " row " << i << " is " << v;
        } else {
          ASSERT_EQ(r.status[s], 0) << what << ": system " << s;
          ASSERT_EQ(std::memcmp(&v, &clean.x[s * n + i], sizeof(S)), 0)
              << what << ": neighbour " << s << " row " << i << " changed by the failures around it";
        }
      }
    }
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(ThomasHostGroup, InPlaceGivesTheSameBitsAndCodes) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  constexpr index_type w = std::max<index_type>(group_width<TypeParam>(), 8);
  for (index_type n : {1, 5, 64}) {
    std::vector<index_type> broken;
    const auto h = broken_batch<S>(w, n, test_seed() + 3 * n, broken);
    const auto out_of_place = solve_batch<TypeParam>(h);
    auto sys = allocate_system<L, S, M>("t", h.systems, n);
    upload(h.a, sys.matrix.lower);
    upload(h.b, sys.matrix.diag);
    upload(h.c, sys.matrix.upper);
    upload(h.d, sys.rhs);
    StatusView<M> status("status", h.systems);
    typename TypeParam::exec exec;
    thomas::solve(exec, sys.matrix, sys.rhs, sys.rhs, status);
    exec.fence();
    EXPECT_EQ(host_status(status), out_of_place.status) << n << " rows";
    EXPECT_TRUE(same_bits(download(sys.rhs), out_of_place.x)) << n << " rows: in place differs";
  }
}

TYPED_TEST(ThomasHostGroup, ComplexRightHandSideBitwiseEqualToSequential) {
  using R = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using Cx = Kokkos::complex<R>;
  const index_type w = group_width<TypeParam>(), systems = 2 * w + 3, n = 37;
  const auto h = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto h_im = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed() + 1);
  std::vector<Cx> dc(static_cast<std::size_t>(systems * n));
  for (std::size_t k = 0; k < dc.size(); ++k) dc[k] = Cx(h.d[k], h_im.d[k]);
  dc[static_cast<std::size_t>(n + 4)] = Cx(R(0), std::numeric_limits<R>::quiet_NaN());  // system 1 fails: -5
  TridiagonalBatch<R, L, M> matrix("A", systems, n);
  upload(h.a, matrix.lower);
  upload(h.b, matrix.diag);
  upload(h.c, matrix.upper);
  BatchVector<Cx, L, M> d("d", systems, n), x("x", systems, n);
  upload(dc, d);
  fill_storage(x, Cx(nan_of<R>(), nan_of<R>()));
  StatusView<M> status("status", systems);
  typename TypeParam::exec exec;
  thomas::solve(exec, matrix, d, x, status);
  exec.fence();
  const auto ref = reference_for<TypeParam>(h, dc);
  EXPECT_EQ(host_status(status), ref.status);
  EXPECT_EQ(ref.status[1], -5);
  EXPECT_TRUE(same_bits(download(x), ref.x));
}

TYPED_TEST(ThomasHostGroup, PaddingSystemsAreNeverWritten) {
  // The padding systems of BlockInterleaved storage are given solvable values (b = d = 1) and x a
  // sentinel: a lane that solved one would write a number, a lane that failed on one NaN.
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  constexpr index_type w = group_width<TypeParam>();
  for (index_type systems : {index_type(1), index_type(7), w + 1, 2 * w - 1, index_type(100)}) {
    for (index_type n : {1, 5}) {
      const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed() + systems);
      auto sys = allocate_system<L, S, M>("t", systems, n);
      fill_storage(sys.matrix.lower, S(1));
      fill_storage(sys.matrix.diag, S(1));
      fill_storage(sys.matrix.upper, S(1));
      fill_storage(sys.rhs, S(1));
      upload(h.a, sys.matrix.lower);
      upload(h.b, sys.matrix.diag);
      upload(h.c, sys.matrix.upper);
      upload(h.d, sys.rhs);
      BatchVector<S, L, M> x("x", systems, n);
      const S sentinel = S(42);
      fill_storage(x, sentinel);
      StatusView<M> status("status", systems);
      typename TypeParam::exec exec;
      thomas::solve(exec, sys.matrix, sys.rhs, x, status);
      exec.fence();
      auto host = create_host_copy(x);
      std::vector<bool> real(static_cast<std::size_t>(x.mapping().required_span()), false);
      for (index_type s = 0; s < systems; ++s)
        for (index_type i = 0; i < n; ++i) real[x.mapping().offset(s, i)] = true;
      for (std::size_t k = 0; k < real.size(); ++k)
        if (!real[k])
          ASSERT_EQ(host.storage()(k), sentinel) << systems << " systems x " << n << ": padding element " << k
                                                 << " was written";
      expect_bitwise_reference<TypeParam>(h, SolvedBatch<S>{download(x), host_status(status)},
                               std::to_string(systems) + " systems x " + std::to_string(n));
    }
  }
}

TYPED_TEST(ThomasHostGroup, LongSystemsBeyondTheScratchLimitAreSolvedAlike) {
  // Interleaved groups span 256 bytes of a row: above 65,536 rows a group's c' exceeds
  // impl::host_group_scratch_limit and thomas::solve keeps one system per thread instead.
  using S = typename TypeParam::scalar;
  if constexpr (std::is_same_v<typename TypeParam::layout, layouts::Interleaved>) {
    constexpr index_type w = group_width<TypeParam>();
    for (index_type n : {index_type(60000), index_type(70000)}) {
      const bool grouped = static_cast<std::size_t>(w * n) * sizeof(S) <= thomas::impl::host_group_scratch_limit;
      ASSERT_EQ(grouped, n == 60000) << "the limit moved: adjust this test";
      auto h = make_host_batch<S>(w + 3, n, MatrixKind::diagonally_dominant, test_seed() + n);
      h.at(h.d, 1, n / 3) = std::numeric_limits<S>::quiet_NaN();  // one failure in the full group
      h.at(h.b, w + 1, 7) = 0;                                      // and one in the partial group
      h.at(h.a, w + 1, 7) = 0;
      const auto r = solve_batch<TypeParam>(h);
      EXPECT_EQ(r.status[1], -static_cast<int>(n / 3 + 1));
      EXPECT_EQ(r.status[w + 1], 8);
      expect_bitwise_reference<TypeParam>(h, r, std::to_string(n) + " rows");
    }
  }
}

// ---- the layout property the kernel relies on -------------------------------------------------
TYPED_TEST(ThomasHostGroup, AdjacentGroupsMatchTheLayoutMapping) {
  using L = typename TypeParam::layout;
  using Group = thomas::impl::HostGroup<L, typename TypeParam::scalar>;
  if constexpr (Group::width > 0 && Group::adjacent) {
    // v(s0 + k, i) is (&v(s0, i))[k] for every full group; groups never straddle a tile, so the
    // padding systems of the last tile are only ever in the last, partial group (solved one system
    // at a time).
    for (index_type systems : {1, 8, 33, 100, 257})
      for (index_type rows : {1, 3, 17}) {
        const L map(systems, rows);
        for (index_type s0 = 0; s0 + Group::width <= systems; s0 += Group::width)
          for (index_type i = 0; i < rows; ++i)
            for (index_type k = 0; k < Group::width; ++k)
              ASSERT_EQ(map.offset(s0 + k, i), map.offset(s0, i) + k)
                  << L::name() << ": system " << s0 + k << " row " << i << " is not adjacent to its group";
      }
  }
}

}  // namespace
}  // namespace tridiag::test

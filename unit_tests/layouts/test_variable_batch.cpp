// Variable batches: offsets and sizes, padded <-> offset-indexed round trips, identity padding.

#include <climits>
#include <limits>
#include <utility>
#include <vector>

#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/layouts/variable_batch.hpp>

#include "test_support.hpp"
#include "unreserved_mapping.hpp"

namespace tridiag::test {
namespace {

template <class C>
class VariableBatch : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Interleaved, layouts::BlockInterleaved<8>, layouts::Flat>,
                                 ExecSpaces>::type>::type;
TYPED_TEST_SUITE(VariableBatch, Configs, ConfigNames);

TYPED_TEST(VariableBatch, PadAndUnpadRoundTrip) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  const std::vector<index_type> sizes = {5, 0, 1, 9, 3, 9, 2};
  const index_type nmax = 9, systems = static_cast<index_type>(sizes.size());
  auto offsets = layouts::make_offsets<M>(sizes);
  layouts::RaggedVector<S, M> ragged("ragged", offsets), back("back", offsets);
  auto host = Kokkos::create_mirror_view(ragged.storage());
  for (std::size_t k = 0; k < host.extent(0); ++k) host(k) = S(k + 1);
  Kokkos::deep_copy(ragged.storage(), host);
  BatchVector<S, typename TypeParam::layout, M> padded("padded", systems, nmax);
  fill_storage(padded, nan_of<S>());
  layouts::pad(exec, ragged, padded, S(-1));
  const auto flat = download(padded);
  index_type k = 0;
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < nmax; ++i)
      EXPECT_EQ(flat[s * nmax + i], i < sizes[s] ? S(++k) : S(-1)) << "system " << s << " row " << i;
  expect_padding_untouched(padded);
  Kokkos::deep_copy(back.storage(), nan_of<S>());
  layouts::unpad(exec, padded, back);
  auto back_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.storage());
  for (std::size_t j = 0; j < back_host.extent(0); ++j) EXPECT_EQ(back_host(j), S(j + 1));
}

TYPED_TEST(VariableBatch, RaggedRowsAndOffsets) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  auto offsets = layouts::make_offsets<M>({4, 0, 2});
  auto host_offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  EXPECT_EQ(host_offsets(0), 0);
  EXPECT_EQ(host_offsets(1), 4);
  EXPECT_EQ(host_offsets(2), 4);
  EXPECT_EQ(host_offsets(3), 6);
  layouts::RaggedVector<S, M> v("v", offsets);
  EXPECT_EQ(v.systems(), 3);
  EXPECT_EQ(static_cast<index_type>(v.storage().extent(0)), 6);
  auto sizes = layouts::sizes_of(typename TypeParam::exec(), v);
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sizes);
  EXPECT_EQ(hs(0), 4);
  EXPECT_EQ(hs(1), 0);
  EXPECT_EQ(hs(2), 2);
}

TYPED_TEST(VariableBatch, BadSizesAreRejectedWithTheirValues) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  try {
    layouts::make_offsets<M>({3, -2});
    FAIL() << "negative size accepted";
  } catch (const tridiag::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("-2"), std::string::npos) << e.what();
  }
  auto offsets = layouts::make_offsets<M>({3, 12});
  layouts::RaggedVector<S, M> ragged("r", offsets);
  BatchVector<S, typename TypeParam::layout, M> too_short("p", 2, 10);
  EXPECT_THROW(layouts::pad(typename TypeParam::exec(), ragged, too_short), tridiag::invalid_argument);
  Kokkos::View<S*, M> small("small", 5);
  EXPECT_THROW((layouts::RaggedVector<S, M>(small, offsets)), tridiag::invalid_argument);
}

// Offsets that decrease made a negative size (offsets {0, 10, 5}: rows(1) = -5) and the ragged
// solvers read out of bounds with status 0; make_offsets' running sum could overflow.
TYPED_TEST(VariableBatch, OffsetsMustStartAtZeroOrAboveAndNeverDecrease) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  const auto offsets_of = [](std::vector<index_type> values) {
    Kokkos::View<index_type*, Kokkos::HostSpace> host("offsets", values.size());
    for (std::size_t k = 0; k < values.size(); ++k) host(k) = values[k];
    return Kokkos::create_mirror_view_and_copy(M(), host);
  };
  const Kokkos::View<S*, M> storage("storage", 12);
  for (const auto& bad : {std::vector<index_type>{0, 10, 5}, {-1, 3}, {2, 1, 1}}) {
    const auto offsets = offsets_of(bad);
    EXPECT_THROW((layouts::RaggedVector<S, M>("allocated", offsets)), tridiag::invalid_argument) << bad[1];
    EXPECT_THROW((layouts::RaggedVector<S, M>(storage, offsets)), tridiag::invalid_argument) << bad[1];
  }
  EXPECT_NO_THROW((layouts::RaggedVector<S, M>(storage, offsets_of({2, 2, 7}))));  // may start past 0
  const index_type big = std::numeric_limits<index_type>::max() / 8;
  EXPECT_THROW(layouts::make_offsets<M>({big, big}), tridiag::invalid_argument);
  EXPECT_THROW(layouts::make_offsets<M>({big / 2 + 1, big / 2 + 1}), tridiag::invalid_argument);
}

// A padded batch whose sizes View holds a negative size: only the largest size was checked, so
// solve_padded returned status 0 and left that system's x unwritten.
TYPED_TEST(VariableBatch, NegativeSizesOfAPaddedBatchAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const typename TypeParam::exec exec;
  Kokkos::View<index_type*, Kokkos::HostSpace> host("sizes", 2);
  host(0) = 4;
  host(1) = -3;
  const auto sizes = Kokkos::create_mirror_view_and_copy(M(), host);
  auto sys = allocate_system<L, S, M>("padded", 2, 4);
  fill_storage(sys.matrix.diag, S(2));
  BatchVector<S, L, M> x("x", 2, 4);
  EXPECT_THROW(thomas::solve_padded(exec, sys.matrix, sys.rhs, x, sizes), tridiag::invalid_argument);
  EXPECT_THROW(layouts::pad_matrix(exec, sys.matrix, sys.rhs, sizes), tridiag::invalid_argument);
}

// A group width near the index limit overflowed the group count (written at index -1 on the
// host, then a crash in pack); the plan now says that the storage overflows.
TEST(SizeGroupedPlanLimits, AGroupWidthNearTheIndexLimitIsRejectedCleanly) {
  if (!kokkos_available()) GTEST_SKIP() << kokkos_unavailable_reason();
  const index_type most = std::numeric_limits<index_type>::max();
  EXPECT_THROW(layouts::SizeGroupedPlan<Kokkos::HostSpace>({3, 1, 2}, most), tridiag::invalid_argument);
  const layouts::SizeGroupedPlan<Kokkos::HostSpace> wide({3, 1, 2}, index_type(1) << 40);
  EXPECT_EQ(wide.groups(), 1);
  EXPECT_EQ(wide.total_rows(), 6);
  // Sizes whose sum overflows: rejected by the span check, now before anything is summed (the sum
  // came first, signed overflow, which only a sanitizer build shows).
  const index_type huge = index_type(1) << 62;
  EXPECT_THROW(layouts::SizeGroupedPlan<Kokkos::HostSpace>({huge, huge}, 1), tridiag::invalid_argument);
}

// The solvers' overlap checks (impl::shares_elements) see the elements a variable-batch vector
// addresses, from data() on: offsets(systems) scalars of a RaggedVector (read once when it is made,
// whatever its storage's extent), the plan's span of a GroupedVector.
TYPED_TEST(VariableBatch, OverlapChecksSeeTheElementsAVectorAddresses) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  using tridiag::impl::shares_elements;
  using Ragged = layouts::RaggedVector<S, M>;
  auto offsets = layouts::make_offsets<M>({4, 0, 2});
  const Kokkos::View<S*, M> storage("storage", 13);
  const auto range = [&](index_type from, index_type to) {
    return Kokkos::View<S*, M>(storage, std::make_pair(std::size_t(from), std::size_t(to)));
  };
  const Ragged first(range(0, 13), offsets), second(range(6, 12), offsets), shifted(range(5, 11), offsets);
  EXPECT_EQ(first.required_span(), 6);  // not the storage's 13
  const layouts::RaggedVector<const S, M> read_only(first);
  EXPECT_EQ(read_only.required_span(), 6);
  EXPECT_FALSE(shares_elements(first, second));
  EXPECT_TRUE(shares_elements(first, shifted));
  EXPECT_TRUE(shares_elements(second, shifted));
  EXPECT_TRUE(shares_elements(first, first));
  EXPECT_TRUE(shares_elements(second, range(11, 12)));  // a plain View too
  EXPECT_FALSE(shares_elements(second, range(12, 13)));
  EXPECT_FALSE(shares_elements(first, Ragged()));  // nothing allocated
  using Grouped = layouts::GroupedVector<S, M>;
  const layouts::SizeGroupedPlan<M> plan({3, 1, 2}, 2);  // groups {3, 2}, {1}: 6 + 2 scalars
  ASSERT_EQ(plan.required_span(), 8);
  const Kokkos::View<S*, M> both("both", 17);
  const Grouped low(Kokkos::View<S*, M>(both, std::make_pair(std::size_t(0), std::size_t(17))), plan);
  const Grouped high(Kokkos::View<S*, M>(both, std::make_pair(std::size_t(8), std::size_t(16))), plan);
  const Grouped off_by_one(Kokkos::View<S*, M>(both, std::make_pair(std::size_t(7), std::size_t(15))), plan);
  EXPECT_EQ(low.required_span(), 8);
  EXPECT_FALSE(shares_elements(low, high));
  EXPECT_TRUE(shares_elements(low, off_by_one));
  EXPECT_TRUE(shares_elements(high, off_by_one));
}

template <class C>
class VariableBatchLongSystem : public KokkosTest {};
// with_offsets_of wraps storage with an existing vector's offsets (the solvers' ragged
// workspaces): the same offsets View, systems and span, no second offsets check; storage
// shorter than the span is rejected.
TYPED_TEST(VariableBatch, WithOffsetsOfSharesTheShapeOfAnotherVector) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  const layouts::RaggedVector<const S, M> shape(layouts::RaggedVector<S, M>("shape", layouts::make_offsets<M>({4, 0, 2})));
  using Vector = layouts::RaggedVector<S, M>;
  const typename Vector::storage_type storage("storage", 7);
  const auto v = Vector::with_offsets_of(storage, shape);
  EXPECT_EQ(v.offsets().data(), shape.offsets().data());
  EXPECT_EQ(v.systems(), 3);
  EXPECT_EQ(v.required_span(), 6);
  EXPECT_EQ(v.data(), storage.data());
  EXPECT_NO_THROW(layouts::require_same_offsets("test", shape, std::pair{"v", v}));
  expect_invalid_argument([&] { Vector::with_offsets_of(typename Vector::storage_type("short", 5), shape); },
                          "storage holds 5 scalars, offsets need 6");
}

#if defined(TRIDIAG_TEST_BACKEND_CUDA)
// Holds a CUDA stream back until the host releases it (or about a second has passed), then
// writes a size that the padded batch cannot hold.
struct WriteSizeAfterRelease {
  Kokkos::View<index_type*, Kokkos::CudaSpace> sizes;
  Kokkos::View<int, Kokkos::CudaHostPinnedSpace> release;
  index_type size;
  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
#if defined(__CUDA_ARCH__)
    const long long start = clock64();
    while (*static_cast<volatile int*>(release.data()) == 0 && clock64() - start < (1LL << 31)) {
    }
#endif
    sizes(1) = size;
  }
};

// The size check of solve_padded and pad_matrix runs on the caller's instance, so it reads the
// sizes that instance wrote just before the call. It ran on the memory space's default instance,
// which does not wait for a non-blocking stream: the size written there was not seen, and the
// call went on (the solve then read 5 rows of a 4-row batch).
TEST(VariableBatchCuda, PaddedSizesAreCheckedOnTheCallersInstance) {
  if (!kokkos_available()) GTEST_SKIP() << kokkos_unavailable_reason();
  using M = Kokkos::CudaSpace;
  using L = layouts::Interleaved;
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  {
    const Kokkos::Cuda exec(stream);
    auto sys = allocate_system<L, double, M>("padded", 2, 4);
    fill_storage(sys.matrix.diag, 2.0);
    BatchVector<double, L, M> x("x", 2, 4);
    const Kokkos::View<index_type*, M> sizes("sizes", 2);
    const Kokkos::View<int, Kokkos::CudaHostPinnedSpace> release("release");
    Kokkos::deep_copy(sizes, 4);
    // A first call of each, so that no first-use allocation (which may synchronize the device)
    // falls inside the calls below.
    thomas::solve_padded(exec, sys.matrix, sys.rhs, x, sizes);
    layouts::pad_matrix(exec, sys.matrix, sys.rhs, sizes);
    Kokkos::fence();
    const auto rejects_size_written_on_exec = [&](const auto& call) {
      Kokkos::deep_copy(sizes, 4);
      release() = 0;
      Kokkos::parallel_for("write_size_after_release", Kokkos::RangePolicy<Kokkos::Cuda>(exec, 0, 1),
                           WriteSizeAfterRelease{sizes, release, 5});
      bool rejected = false;
      try {
        call();
      } catch (const tridiag::invalid_argument&) {
        rejected = true;
      }
      release() = 1;
      exec.fence();
      return rejected;
    };
    EXPECT_TRUE(rejects_size_written_on_exec([&] { thomas::solve_padded(exec, sys.matrix, sys.rhs, x, sizes); }));
    EXPECT_TRUE(rejects_size_written_on_exec([&] { layouts::pad_matrix(exec, sys.matrix, sys.rhs, sizes); }));
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}
#endif

using LongSystemConfigs = to_gtest<product<list<float>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(VariableBatchLongSystem, LongSystemConfigs, ConfigNames);

// The status check of the ragged solvers (status codes are int row numbers): a ragged batch of
// more than INT_MAX rows in all is accepted while its longest system has at most INT_MAX rows
// (here INT_MAX and 2), and rejected when one has more (1 and INT_MAX + 1), with a status only.
// Storage mapped read-only without reserve, never touched. Device spaces skip.
TYPED_TEST(VariableBatchLongSystem, StatusCheckOfRaggedBatchesLooksAtTheLongestSystem) {
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible) {
    GTEST_SKIP() << "host execution spaces only";
  } else {
    const index_type total = index_type(INT_MAX) + 2;
    const UnreservedMapping mapping(static_cast<std::size_t>(total) * sizeof(float), Access::read_only);
    if (mapping.data<float>() == nullptr) GTEST_SKIP() << "cannot map 8 GiB";
    const typename layouts::RaggedVector<float, M>::storage_type storage(mapping.data<float>(), total);
    const StatusView<M> status("status", 2);
    const auto check = [&](std::vector<index_type> sizes, const StatusView<M>& given) {
      const layouts::RaggedVector<float, M> ragged(storage, layouts::make_offsets<M>(sizes));
      layouts::impl::check_ragged_status("check", E(), given, ragged);
    };
    EXPECT_NO_THROW(check({INT_MAX, 2}, status));
    expect_invalid_argument([&] { check({1, index_type(INT_MAX) + 1}, status); }, "cannot name their rows");
    EXPECT_NO_THROW(check({1, index_type(INT_MAX) + 1}, {}));
  }
}

}  // namespace
}  // namespace tridiag::test

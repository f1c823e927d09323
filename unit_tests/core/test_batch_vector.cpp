// BatchVector and TridiagonalBatch: construction, wrapping, checks on bad extents.

#include <limits>
#include <utility>

#include <tridiag/core/tridiagonal_batch.hpp>

#include "test_support.hpp"

namespace tridiag::test {
namespace {

class BatchVectorTest : public KokkosTest {};

TEST_F(BatchVectorTest, AllocatesPaddedStorage) {
  BatchVector<double, layouts::BlockInterleaved<32>, Kokkos::HostSpace> v("v", 33, 10);
  EXPECT_EQ(v.systems(), 33);
  EXPECT_EQ(v.rows(), 10);
  EXPECT_EQ(static_cast<index_type>(v.storage().extent(0)), 64 * 10);
  EXPECT_EQ(v.label(), "v");
}

TEST_F(BatchVectorTest, WrapsStorageThatIsLargeEnough) {
  Kokkos::View<double*, Kokkos::HostSpace> storage("s", 64 * 10);
  BatchVector<double, layouts::BlockInterleaved<32>, Kokkos::HostSpace> v(storage, {33, 10});
  v(32, 9) = 3;
  EXPECT_EQ(storage(32 % 32 + 9 * 32 + 32 * 10), 3);
}

TEST_F(BatchVectorTest, RejectsStorageThatDoesNotCoverThePadding) {
  // 33 systems need 64 stored systems with BlockSize 32: storage for 33 x 10 is too small.
  Kokkos::View<double*, Kokkos::HostSpace> storage("user_storage", 33 * 10);
  try {
    BatchVector<double, layouts::BlockInterleaved<32>, Kokkos::HostSpace> v(storage, {33, 10});
    FAIL() << "accepted";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("330 scalars"), std::string::npos) << what;
    EXPECT_NE(what.find("64 stored systems"), std::string::npos) << what;
    EXPECT_NE(what.find("640"), std::string::npos) << what;
  }
}

TEST_F(BatchVectorTest, RejectsNegativeAndOverflowingExtents) {
  using V = BatchVector<double, layouts::Flat, Kokkos::HostSpace>;
  EXPECT_THROW(V("v", -1, 10), invalid_argument);
  EXPECT_THROW(V("v", 10, -3), invalid_argument);
  const index_type huge = std::numeric_limits<index_type>::max() / 4;
  try {
    V("v", huge, 1000);
    FAIL() << "accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("overflows"), std::string::npos) << e.what();
  }
  // Rounding the systems up to whole tiles overflowed next to the limit: the span came out
  // negative and a storage of 10 scalars was accepted.
  using B = BatchVector<double, layouts::BlockInterleaved<32>, Kokkos::HostSpace>;
  const Kokkos::View<double*, Kokkos::HostSpace> small("small", 10);
  const index_type most = std::numeric_limits<index_type>::max();
  EXPECT_THROW(B(small, layouts::BlockInterleaved<32>(most - 5, 1)), invalid_argument);
  EXPECT_THROW(B(small, layouts::BlockInterleaved<32>(most / 8 - 5, 1)), invalid_argument);
}

// A UnifiedVector's width and component were never checked: component 3 of width 1 addressed past
// the storage, width 0 put every element at one address, a negative width gave negative offsets.
TEST_F(BatchVectorTest, UnifiedVectorWidthAndComponentAreChecked) {
  using U = layouts::UnifiedVector;
  using V = BatchVector<double, U, Kokkos::HostSpace>;
  const Kokkos::View<double*, Kokkos::HostSpace> storage("storage", 3 * 2 * 4);
  EXPECT_NO_THROW(V(storage, U(3, 2, 4, 3)));
  EXPECT_NO_THROW(V(storage, U(3, 2, 1, 0)));
  for (const auto& [width, component] : {std::pair<int, int>{1, 3}, {0, 0}, {-4, 0}, {4, 7}, {4, -1}, {4, 4}}) {
    EXPECT_THROW(V(storage, U(3, 2, width, component)), invalid_argument) << width << ", " << component;
    EXPECT_THROW(V("allocated", U(3, 2, width, component)), invalid_argument) << width << ", " << component;
  }
}

// deep_copy of a component of a packed Unified-Vector system copied the whole packed allocation:
// all four vectors. Staging each vector of a system on the host and copying it back lost the
// earlier ones; a.rhs = b.rhs overwrote a's matrix. Now only the component is copied, across
// memory spaces, between components and to and from a lone vector.
TEST_F(BatchVectorTest, DeepCopyOfAPackedUnifiedVectorCopiesOneComponent) {
  using U = layouts::UnifiedVector;
  using M = Kokkos::DefaultExecutionSpace::memory_space;
  using Vector = BatchVector<double, U, M>;
  const index_type systems = 5, rows = 3;
  const auto value = [](int component, index_type s, index_type i) { return 100.0 * (component + 1) + 10.0 * s + i; };
  const auto stage = [&](const Vector& v, int component) {  // fill through a host copy, copy back
    auto h = create_host_copy(v);
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < rows; ++i) h(s, i) = value(component, s, i);
    deep_copy(v, h);
  };
  const auto expect_values = [&](const Vector& v, int component, const char* what) {
    const auto h = create_host_copy(v);
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < rows; ++i)
        EXPECT_EQ(h(s, i), value(component, s, i)) << what << ": system " << s << " row " << i;
  };
  auto a = allocate_system<U, double, M>("a", systems, rows);
  auto b = allocate_system<U, double, M>("b", systems, rows);
  const Vector* const va[] = {&a.matrix.lower, &a.matrix.diag, &a.matrix.upper, &a.rhs};
  const Vector* const vb[] = {&b.matrix.lower, &b.matrix.diag, &b.matrix.upper, &b.rhs};
  for (int c = 0; c < 4; ++c) {
    stage(*va[c], c);
    stage(*vb[c], 3 - c);
  }
  for (int c = 0; c < 4; ++c) {
    expect_values(*va[c], c, "a staged on the host");
    expect_values(*vb[c], 3 - c, "b staged on the host");
  }
  deep_copy(a.rhs, b.rhs);  // b.rhs holds component 0's values
  expect_values(a.rhs, 0, "a.rhs = b.rhs");
  for (int c = 0; c < 3; ++c) expect_values(*va[c], c, "a's matrix after a.rhs = b.rhs");
  deep_copy(a.matrix.diag, b.matrix.lower);  // another component
  expect_values(a.matrix.diag, 3, "a.diag = b.lower");
  expect_values(a.matrix.lower, 0, "a.lower after a.diag = b.lower");
  deep_copy(b.rhs, b.matrix.diag);  // two components of one allocation
  expect_values(b.rhs, 2, "b.rhs = b.diag");
  expect_values(b.matrix.diag, 2, "b.diag after b.rhs = b.diag");
  expect_values(b.matrix.upper, 1, "b.upper after b.rhs = b.diag");
  const Vector lone("lone", systems, rows);  // width 1
  deep_copy(lone, a.matrix.upper);
  expect_values(lone, 2, "lone = a.upper");
  deep_copy(a.matrix.upper, b.matrix.lower);
  deep_copy(b.matrix.lower, lone);
  expect_values(b.matrix.lower, 2, "b.lower = lone");
  expect_values(a.matrix.upper, 3, "a.upper = old b.lower");
  deep_copy(a.rhs, a.rhs);  // itself: nothing to do
  expect_values(a.rhs, 0, "a.rhs = a.rhs");
  // A vector over the same storage that overlaps a component without being it.
  const Vector overlapping(a.rhs.storage(), U(systems, rows, 1, 0));
  EXPECT_THROW(deep_copy(overlapping, a.rhs), invalid_argument);
}

// deep_copy of two vectors over one storage that overlap without being the same vector (one
// scalar apart; any layout but a packed UnifiedVector, whose path already checked) reached
// Kokkos::deep_copy, which threw std::runtime_error ("deep_copy of overlapping views") instead of
// the tridiag::invalid_argument deep_copy documents.
TEST_F(BatchVectorTest, DeepCopyOfOverlappingVectorsThrowsInvalidArgument) {
  using M = Kokkos::DefaultExecutionSpace::memory_space;
  using V = BatchVector<double, layouts::Flat, M>;
  const Kokkos::View<double*, M> storage("storage", 7);
  const V first(Kokkos::View<double*, M>(storage, std::make_pair(0, 6)), layouts::Flat(2, 3));
  const V shifted(Kokkos::View<double*, M>(storage, std::make_pair(1, 7)), layouts::Flat(2, 3));
  expect_invalid_argument([&] { deep_copy(shifted, first); }, "the destination shares storage with the source");
  expect_invalid_argument([&] { deep_copy(first, shifted); }, "the destination shares storage with the source");
  EXPECT_NO_THROW(deep_copy(first, first));  // itself: nothing to do
}

// deep_copy between scalar types across memory spaces (host double to device float and back):
// Kokkos::deep_copy converts scalars only where one execution space reaches both Views, and threw
// std::runtime_error for host double to CUDA float. A host build runs the same copies within the
// host space.
TEST_F(BatchVectorTest, DeepCopyConvertsScalarsAcrossMemorySpaces) {
  using M = Kokkos::DefaultExecutionSpace::memory_space;
  using L = layouts::BlockInterleaved<32>;
  const index_type systems = 33, rows = 5;
  BatchVector<double, L, Kokkos::HostSpace> host("host", systems, rows), back("back", systems, rows);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < rows; ++i) {
      host(s, i) = 0.5 + static_cast<double>(s * rows + i);  // exact in float
      back(s, i) = std::numeric_limits<double>::quiet_NaN();
    }
  const BatchVector<float, L, M> device("device", systems, rows);
  deep_copy(device, host);  // double -> float, host -> device
  deep_copy(back, device);  // float -> double, device -> host
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < rows; ++i) ASSERT_EQ(back(s, i), host(s, i)) << "system " << s << " row " << i;
}

TEST_F(BatchVectorTest, MatrixDiagonalsMustAgree) {
  using V = BatchVector<float, layouts::Interleaved, Kokkos::HostSpace>;
  V a("a", 4, 5), b("b", 4, 5), c_wrong("c", 4, 6);
  EXPECT_NO_THROW((TridiagonalBatch<float, layouts::Interleaved, Kokkos::HostSpace>(a, b, b)));
  EXPECT_THROW((TridiagonalBatch<float, layouts::Interleaved, Kokkos::HostSpace>(a, b, c_wrong)), invalid_argument);
}

TEST_F(BatchVectorTest, ConstViewsOfMutableVectors) {
  BatchVector<double, layouts::Flat, Kokkos::HostSpace> v("v", 2, 2);
  v(1, 1) = 4;
  BatchVector<const double, layouts::Flat, Kokkos::HostSpace> cv = v;
  EXPECT_EQ(cv(1, 1), 4);
}

/// rows_of through a shared mapping addresses the same element as v(s, i), on every layout.
template <class Layout>
void expect_mapped_rows_match(index_type systems, index_type rows) {
  using V = BatchVector<double, Layout, Kokkos::HostSpace>;
  V v("v", systems, rows);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < rows; ++i) v(s, i) = static_cast<double>(1000 * s + i);
  const BatchVector<const double, Layout, Kokkos::HostSpace> cv = v;
  const auto map = v.mapping();
  for (index_type s = 0; s < systems; ++s) {
    const auto r = rows_of(v, s, map);
    const auto cr = rows_of(cv, s, map);
    for (index_type i = 0; i < rows; ++i) {
      EXPECT_EQ(&r(i), &v(s, i)) << Layout::name() << " system " << s << " row " << i;
      EXPECT_EQ(cr(i), 1000.0 * s + i);
    }
  }
}

TEST_F(BatchVectorTest, RowsThroughASharedMappingAreTheVectorsRows) {
  expect_mapped_rows_match<layouts::Flat>(5, 7);
  expect_mapped_rows_match<layouts::Interleaved>(5, 7);
  expect_mapped_rows_match<layouts::BlockInterleaved<4>>(5, 7);  // a partial last block
  expect_mapped_rows_match<layouts::BlockInterleaved<32>>(33, 3);
  expect_mapped_rows_match<layouts::UnifiedVector>(5, 7);
}

TEST_F(BatchVectorTest, PackedUnifiedVectorsKeepTheirOwnMappingThroughASharedOne) {
  // The upper diagonal packed in a unified allocation, addressed with a lone vector's mapping of
  // the same shape: its own width and component must still be used.
  using L = layouts::UnifiedVector;
  using V = BatchVector<double, L, Kokkos::HostSpace>;
  const index_type systems = 3, rows = 4;
  const typename V::storage_type packed_storage("packed", L(systems, rows, L::packed_width).required_span());
  const V upper(packed_storage, L(systems, rows, L::packed_width, L::upper));
  const V lone("lone", systems, rows);
  for (index_type s = 0; s < systems; ++s) {
    const auto r = rows_of(upper, s, lone.mapping());
    for (index_type i = 0; i < rows; ++i) EXPECT_EQ(&r(i), &upper(s, i)) << "system " << s << " row " << i;
  }
}

}  // namespace
}  // namespace tridiag::test

#pragma once
// The memory partitioned::solve needs beyond its inputs, in one buffer: the reduced batches of
// every level of a split solve (split_solve.hpp), or the chunk coefficients of the team kernel when
// they live in a global workspace (host spaces, ChunkStorage::workspace). A solve given no
// workspace allocates one buffer per call; a time loop passes one sized by
// partitioned::workspace_bytes and the solve allocates nothing. On the H100 the allocation and
// free cost more than the whole solve of a few long systems (1 x 10^6 rows, double: 0.48 ms per
// solve with the three allocations it made before, 0.15 ms without; docs/performance.md, "Long
// systems: where the time goes").

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tridiag/core/errors.hpp>

namespace tridiag::partitioned {

/// A buffer of bytes in MemorySpace for partitioned::solve (see partitioned::workspace_bytes).
/// Default-constructed: empty, and the solve allocates what it needs itself.
template <class MemorySpace>
class Workspace {
 public:
  using storage_type = Kokkos::View<unsigned char*, MemorySpace>;

  Workspace() = default;
  /// Allocates `bytes` bytes, uninitialised (the solve writes every byte it reads).
  Workspace(const std::string& label, std::size_t bytes)
      : storage_(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), bytes) {}
  /// Wraps existing storage (any alignment: the solve aligns what it carves out of it).
  explicit Workspace(const storage_type& storage) : storage_(storage) {}

  std::size_t bytes() const { return storage_.extent(0); }
  /// False for a default-constructed (empty) workspace.
  bool allocated() const { return storage_.data() != nullptr; }
  const storage_type& storage() const { return storage_; }
  unsigned char* data() const { return storage_.data(); }

 private:
  storage_type storage_;
};

namespace impl {

/// Hands out consecutive pieces of a workspace, each aligned to `alignment` bytes. Built with no
/// workspace it only counts: bytes_needed() is then what the same sequence of take() calls needs
/// from a buffer of any alignment.
class WorkspaceCarver {
 public:
  static constexpr std::size_t alignment = 128;  ///< a GPU cache line: pieces start coalesced

  WorkspaceCarver() = default;  // counting
  template <class MemorySpace>
  explicit WorkspaceCarver(const Workspace<MemorySpace>& w)
      : base_(reinterpret_cast<std::uintptr_t>(w.data())), size_(w.bytes()), counting_(false) {
    next_ = align_up(base_);
  }

  /// The next `count` values of T (not constructed: the solve writes them before reading).
  template <class T>
  T* take(std::size_t count) {
    static_assert(alignof(T) <= alignment, "WorkspaceCarver: a type aligned beyond a cache line");
    const std::uintptr_t piece = align_up(next_);
    next_ = piece + count * sizeof(T);
    if (!counting_)
      require(next_ <= base_ + size_, "partitioned::solve", "workspace of ", size_,
              " bytes is too small (partitioned::workspace_bytes)");
    return reinterpret_cast<T*>(piece);
  }

  /// Counting: the bytes a buffer needs for the pieces taken so far, at its worst alignment.
  std::size_t bytes_needed() const { return next_ == 0 ? 0 : static_cast<std::size_t>(next_) + alignment - 1; }
  /// Carving: where the pieces taken so far end (the start of the rest of the buffer).
  std::size_t offset() const { return next_ > base_ + size_ ? size_ : static_cast<std::size_t>(next_ - base_); }

 private:
  static std::uintptr_t align_up(std::uintptr_t p) { return (p + alignment - 1) / alignment * alignment; }
  std::uintptr_t base_ = 0, next_ = 0;
  std::size_t size_ = 0;
  bool counting_ = true;
};

/// The part of w after the first `offset` bytes (empty when nothing is left).
template <class MemorySpace>
Workspace<MemorySpace> workspace_rest(const Workspace<MemorySpace>& w, std::size_t offset) {
  if (!w.allocated() || offset >= w.bytes()) return {};
  return Workspace<MemorySpace>(Kokkos::subview(w.storage(), std::make_pair(offset, w.bytes())));
}

}  // namespace impl
}  // namespace tridiag::partitioned

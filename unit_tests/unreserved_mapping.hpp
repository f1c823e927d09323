#pragma once
// Host memory for tests of very large batches: an anonymous mapping without reserve, so that only
// the pages a test touches cost memory (the checks that reject or reroute such batches read a
// few rows at most).

#include <sys/mman.h>

#include <cstddef>

namespace tridiag::test {

/// `bytes` of zero-filled host memory, unmapped on destruction; data() is nullptr when the system
/// refuses the mapping (the test should then skip).
class UnreservedMapping {
 public:
  explicit UnreservedMapping(std::size_t bytes) : bytes_(bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : p;
  }
  ~UnreservedMapping() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  UnreservedMapping(const UnreservedMapping&) = delete;
  UnreservedMapping& operator=(const UnreservedMapping&) = delete;

  template <class T>
  T* data() const {
    return static_cast<T*>(data_);
  }

 private:
  std::size_t bytes_;
  void* data_;
};

}  // namespace tridiag::test

#pragma once
// All batch layouts. A layout is a small copyable mapping type with
//   systems, rows                      logical extents of the batch,
//   offset(s, i)                       storage offset of row i of system s (host and device),
//   stored_systems(), required_span()  padding rule and storage size,
//   name(), system_granularity         for messages, benchmarks and checks.
// Algorithms are written once against BatchVector (core/batch_vector.hpp), which combines a
// layout with a Kokkos::View holding the storage.

#include <tridiag/layouts/block_interleaved.hpp>
#include <tridiag/layouts/flat.hpp>
#include <tridiag/layouts/interleaved.hpp>
#include <tridiag/layouts/unified_vector.hpp>

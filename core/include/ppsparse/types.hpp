#pragma once
/// @file
/// Index types and default spaces shared by every format and kernel.
#include <cstdint>
#include <limits>

#include <ppsparse/kokkos_compat.hpp>

namespace ppsparse {

/// Column (and block-column) indices are 32-bit: halves index traffic, and no
/// problem this library targets has more than 2^31-1 rows on one device.
using ordinal_t = std::int32_t;
/// Row offsets are 64-bit so that matrices with more than 2^31 entries are valid.
using offset_t = std::int64_t;

/// The largest row or column count one matrix may have.
constexpr ordinal_t max_ordinal = std::numeric_limits<ordinal_t>::max();

/// Kokkos' default execution space and its memory space: where the library's instantiations run.
using DefaultExecSpace = Kokkos::DefaultExecutionSpace;
using DefaultMemSpace = Kokkos::DefaultExecutionSpace::memory_space;
/// Host memory: where readers, generators and setups build their arrays.
using HostSpace = Kokkos::HostSpace;

}  // namespace ppsparse

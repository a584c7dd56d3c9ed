#pragma once
/// @file
/// Device-to-device copy bandwidth, measured in the same run as the kernels it judges:
/// the ceiling every memory-bound kernel's GB/s is divided by.
#include <cstddef>

#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse {

/// The device-to-device copy bandwidth measured in this run: the reference every kernel's
/// achieved bandwidth is quoted against.
struct CopyBandwidth {
  double gbs = 0.0;         ///< (bytes read + bytes written) / median time, in 1e9 B/s
  size_t buffer_bytes = 0;  ///< size of each of the two buffers
  int repetitions = 0;
};

/// Default buffer size: far larger than any last-level cache (1 GiB on GPUs, 256 MiB on CPUs).
template <class ExecSpace>
size_t default_copy_buffer_bytes() {
  return compat::is_gpu_space<ExecSpace>() ? (size_t{1} << 30) : (size_t{256} << 20);
}

/// Copies a buffer of buffer_bytes (0: a size well past the last-level cache) device to
/// device `repetitions` times and reports the median bandwidth, counting bytes read and written.
/// Compiled for the default execution space (core/src/util/copy_bandwidth.cpp).
template <class ExecSpace = DefaultExecSpace>
CopyBandwidth measure_copy_bandwidth(size_t buffer_bytes = 0, int repetitions = 15);

}  // namespace ppsparse

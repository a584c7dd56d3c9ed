#pragma once
/// @file
/// Minimum device-memory traffic of one MCPI sweep (all colours), the model every report
/// divides by time: O values (and their scales, in a reduced format) and block column
/// indices once, block row pointers once, D and R once, dQ read once and written once.
#include <cstddef>

#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi {

/// Bytes one MCPI sweep must move at least, by array: the minimum-traffic model of the solver.
struct SweepTraffic {
  double o_values, o_indices, o_row_ptr, d, r, dq_read, dq_write;
  double total() const { return o_values + o_indices + o_row_ptr + d + r + dq_read + dq_write; }
  /// Floating-point operations of one sweep (see sweep_traffic).
  double flops = 0;
};

/// o_format: O's stored format; lu_fp32: D's LU factors read in FP32 (OStorage::lu_fp32).
inline SweepTraffic sweep_traffic(ordinal_t n, int nb, offset_t nnzb, OFormat o_format = OFormat::fp32,
                                  bool lu_fp32 = false) {
  const double nb2 = static_cast<double>(nb) * nb;
  SweepTraffic t{};
  t.o_values = o_format_bytes(o_format, n, nnzb, nb);
  t.o_indices = static_cast<double>(nnzb) * sizeof(ordinal_t);
  t.o_row_ptr = (static_cast<double>(n) + 1) * sizeof(offset_t);
  t.d = static_cast<double>(n) * nb2 * (lu_fp32 ? sizeof(float) : sizeof(double));
  t.r = static_cast<double>(n) * nb * sizeof(double);
  t.dq_read = static_cast<double>(n) * nb * sizeof(float);
  t.dq_write = static_cast<double>(n) * nb * sizeof(float);
  /// SpMV: 2 flops per O entry; substitution with LU factors: 2 nb^2 - nb per block row; r = R - q: nb.
  t.flops = 2.0 * static_cast<double>(nnzb) * nb2 + static_cast<double>(n) * (2.0 * nb2);
  return t;
}

}  // namespace ppsparse::mcpi

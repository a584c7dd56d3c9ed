#pragma once
/// @file
/// O in int8 with one power-of-two scale per column of each block (o_formats.def's int8). SU2
/// scales the rows of a block; a column's scale is one multiply of the dQ value that the column
/// meets, where a row's is one per entry (mcpi/o_format.hpp).
#include <cstdint>

#include <ppsparse/mcpi/detail/o_codec.hpp>

namespace ppsparse::mcpi::detail {

/// The scale exponent of a column of a block whose largest magnitude is m: the smallest e with
/// m / 2^e <= 127.
KOKKOS_INLINE_FUNCTION int int8_scale_exp(const float m) {
  if (!(m > 0.0f)) return 0;
  int e = binary_exponent(m) - 6;  // m / 2^e in [64, 128)
  if (m * exp2_int(clamp_scale_exp(-e)) > 127.0f) ++e;
  return clamp_scale_exp(e);
}

/// round(x / 2^e) to nearest, ties to even, clamped to [-127, 127].
KOKKOS_INLINE_FUNCTION std::int8_t encode_int8(const float x, const int e) {
  // x 2^-e is exact unless it underflows; scaled by two steps so that e = -126 .. 127 all work.
  const float half_scale = exp2_int(clamp_scale_exp(-e / 2));
  const float y = (x * half_scale) * exp2_int(clamp_scale_exp(-e - (-e / 2)));
  // Round to nearest even with the FP32 magic number 1.5 * 2^23 (|y| <= 127.5 here).
  const float magic = 12582912.0f;
  float r = (y + magic) - magic;
  if (r > 127.0f) r = 127.0f;
  if (r < -127.0f) r = -127.0f;
  if (!(r == r)) r = 0.0f;  // a NaN entry (the conversion reports its block): no value to round
  return static_cast<std::int8_t>(r);
}
KOKKOS_INLINE_FUNCTION float decode_int8(const std::int8_t q, const int e) {
  return static_cast<float>(q) * exp2_int(e);
}

/// The int8 codec: entry x stored as round(x / 2^e), e the column of the block's.
struct ScaledInt8Codec {
  using stored = std::int8_t;
  static constexpr bool plain = false;
  static constexpr OScale scale = OScale::per_column_of_block;
  KOKKOS_INLINE_FUNCTION static int scale_exp(const float m) { return int8_scale_exp(m); }
  KOKKOS_INLINE_FUNCTION static stored encode(const float x, const int e) { return encode_int8(x, e); }
  KOKKOS_INLINE_FUNCTION static float decode(const stored v, const int e) { return decode_int8(v, e); }
  KOKKOS_INLINE_FUNCTION static bool out_of_range(stored) { return false; }  // clamped to +-127
};

}  // namespace ppsparse::mcpi::detail

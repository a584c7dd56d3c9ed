#pragma once
/// @file
/// O in IEEE half with one power-of-two scale per block row (o_formats.def's fp16).
#include <cstdint>

#include <ppsparse/mcpi/detail/o_codec.hpp>

namespace ppsparse::mcpi::detail {

/// The scale exponent of a block row whose largest magnitude is m: m / 2^e in [2^14, 2^15).
KOKKOS_INLINE_FUNCTION int fp16_scale_exp(const float m) {
  return m > 0.0f ? clamp_scale_exp(binary_exponent(m) - 14) : 0;
}

/// FP32 -> IEEE half bits, round to nearest, ties to even, for |x| < 65520 (the scaled
/// entries); subnormal halves are produced, values below 2^-25 become (signed) zero.
KOKKOS_INLINE_FUNCTION std::uint16_t encode_half(const float x) {
  const std::uint32_t u = float_bits(x);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7fffffffu;
  std::uint32_t h;
  if (a >= 0x38800000u) {  // >= 2^-14: a normal half; rebias the exponent by 127 - 15
    const std::uint32_t r = a - 0x38000000u;
    h = (r + 0x0fffu + ((r >> 13) & 1u)) >> 13;
  } else if (a > 0x33000000u) {  // (2^-25, 2^-14): a subnormal half, value mh 2^-24
    const int e = static_cast<int>(a >> 23);
    const std::uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const int shift = 126 - e;  // 14 .. 24
    h = (m + ((1u << (shift - 1)) - 1u) + ((m >> shift) & 1u)) >> shift;
  } else {
    h = 0;  // at most 2^-25: rounds to zero (2^-25 itself is a tie, to the even 0)
  }
  return static_cast<std::uint16_t>(sign | h);
}

/// IEEE half bits -> FP32 (finite halves, subnormals included): the half's exponent and
/// mantissa moved into FP32's fields read as 2^-112 times the value, which one multiply
/// restores exactly.
KOKKOS_INLINE_FUNCTION float decode_half(const std::uint16_t h) {
  const std::uint32_t u =
      (static_cast<std::uint32_t>(h & 0x8000u) << 16) | (static_cast<std::uint32_t>(h & 0x7fffu) << 13);
  return bits_float(u) * exp2_int(112);
}

/// The fp16 codec: entry x stored as the half of x / 2^e, e the block row's.
struct ScaledFp16Codec {
  using stored = std::uint16_t;
  static constexpr bool plain = false;
  static constexpr OScale scale = OScale::per_block_row;
  KOKKOS_INLINE_FUNCTION static int scale_exp(const float m) { return fp16_scale_exp(m); }
  KOKKOS_INLINE_FUNCTION static stored encode(const float x, const int e) { return encode_half(x * exp2_int(-e)); }
  KOKKOS_INLINE_FUNCTION static float decode(const stored v, const int e) { return decode_half(v) * exp2_int(e); }
  KOKKOS_INLINE_FUNCTION static bool out_of_range(stored) { return false; }  // scaled below 2^15
};

}  // namespace ppsparse::mcpi::detail

#pragma once
/// @file
/// Bit-level encoding and decoding of the reduced O formats (mcpi/o_format.hpp), written once
/// for the host and every device (the portable kernels, the CUDA and HIP kernels, the host
/// reference): integer operations on the FP32 bit pattern, so that every backend rounds alike.
#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

namespace ppsparse::mcpi::detail {

KOKKOS_INLINE_FUNCTION std::uint32_t float_bits(const float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
KOKKOS_INLINE_FUNCTION float bits_float(const std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

/// 2^e as an FP32 for e in [-126, 127] (exact).
KOKKOS_INLINE_FUNCTION float exp2_int(const int e) { return bits_float(static_cast<std::uint32_t>(e + 127) << 23); }

/// The smallest and largest stored scale exponent.
constexpr int kMinScaleExp = -126;
constexpr int kMaxScaleExp = 127;

KOKKOS_INLINE_FUNCTION int clamp_scale_exp(const int e) {
  return e < kMinScaleExp ? kMinScaleExp : e > kMaxScaleExp ? kMaxScaleExp : e;
}

/// The unbiased binary exponent E of a finite m > 0 with m in [2^E, 2^(E+1)) (subnormals: -127).
KOKKOS_INLINE_FUNCTION int binary_exponent(const float m) {
  return static_cast<int>((float_bits(m) >> 23) & 0xff) - 127;
}

// ---- bf16 ----

/// FP32 -> BF16 bits, round to nearest, ties to even (finite inputs).
KOKKOS_INLINE_FUNCTION std::uint16_t encode_bf16(const float x) {
  const std::uint32_t u = float_bits(x);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
KOKKOS_INLINE_FUNCTION float decode_bf16(const std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

// ---- fp16 with a power-of-two scale ----

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

// ---- int8 with a power-of-two scale per row of each block ----

/// The scale exponent of a row of a block whose largest magnitude is m: the smallest e with
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

}  // namespace ppsparse::mcpi::detail

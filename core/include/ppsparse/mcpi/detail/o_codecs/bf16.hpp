#pragma once
/// @file
/// O in BF16 (o_formats.def's bf16): the FP32 entry rounded to nearest, ties to even, to 8
/// significant bits; no scales.
#include <cstdint>

#include <ppsparse/mcpi/detail/o_codec.hpp>

namespace ppsparse::mcpi::detail {

/// FP32 -> BF16 bits, round to nearest, ties to even (finite inputs).
KOKKOS_INLINE_FUNCTION std::uint16_t encode_bf16(const float x) {
  const std::uint32_t u = float_bits(x);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
KOKKOS_INLINE_FUNCTION float decode_bf16(const std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

/// The bf16 codec.
struct Bf16Codec {
  using stored = std::uint16_t;
  static constexpr bool plain = false;
  static constexpr OScale scale = OScale::none;
  KOKKOS_INLINE_FUNCTION static int scale_exp(float) { return 0; }
  KOKKOS_INLINE_FUNCTION static stored encode(const float x, int) { return encode_bf16(x); }
  KOKKOS_INLINE_FUNCTION static float decode(const stored v, int) { return decode_bf16(v); }
  /// A finite entry that rounds past FP32's largest is as unusable as an Inf.
  KOKKOS_INLINE_FUNCTION static bool out_of_range(const stored v) { return (v & 0x7f80u) == 0x7f80u; }
};

}  // namespace ppsparse::mcpi::detail

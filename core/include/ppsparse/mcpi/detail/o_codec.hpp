#pragma once
/// @file
/// The codecs of O's storage formats (mcpi/o_formats.def), written once for the host and every
/// device (the portable kernels, the CUDA and HIP kernels, the host reference): integer
/// operations on the FP32 bit pattern, so that every backend rounds alike. This file holds what
/// they share and the codec concept; each format's codec is its own file under o_codecs/.
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

/// Where a format keeps its power-of-two scales 2^e, stored as signed 8-bit exponents e.
enum class OScale {
  none,                 ///< no scales: an entry is its value
  per_block_row,        ///< one e per block row (all its blocks): scale(row)
  per_column_of_block,  ///< one e per column j of each block slot p: scale(p * nb + j)
};

// A codec (o_codecs/<id>.hpp) is a struct with
//   using stored = ...;                       the type of one stored entry
//   static constexpr bool plain;              true: O is kept in the solver's OScalar as given
//                                             (no stored copy, no scales; fp32 only)
//   static constexpr OScale scale;            where the scales sit
//   static int scale_exp(float m);            e for a scale group whose largest magnitude is m
//   static stored encode(float x, int e);     x / 2^e rounded into the stored type
//   static float decode(stored v, int e);     the FP32 value (exact)
//   static bool out_of_range(stored v);       a finite x whose encoding is no finite value
// each function KOKKOS_INLINE_FUNCTION; e is 0 where scale is none.

}  // namespace ppsparse::mcpi::detail

// The codecs, one per line of mcpi/o_formats.def.
#include <ppsparse/mcpi/detail/o_codecs/fp32.hpp>
#include <ppsparse/mcpi/detail/o_codecs/bf16.hpp>
#include <ppsparse/mcpi/detail/o_codecs/fp16.hpp>
#include <ppsparse/mcpi/detail/o_codecs/int8.hpp>

#include <ppsparse/mcpi/o_format.hpp>

namespace ppsparse::mcpi::detail {

/// The codec of format F (its line of o_formats.def).
template <OFormat F>
struct CodecOf;
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary) \
  template <>                                      \
  struct CodecOf<OFormat::id> {                    \
    using type = codec;                            \
  };
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
template <OFormat F>
using codec_t = typename CodecOf<F>::type;

/// Calls f(Codec{}) with the codec of `format`: the one switch over the formats that code
/// written once for every codec needs.
template <class F>
void with_codec(const OFormat format, F&& f) {
  switch (format) {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary) \
  case OFormat::id:                                \
    return f(codec{});
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
  }
}

}  // namespace ppsparse::mcpi::detail

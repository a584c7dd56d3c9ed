#pragma once
/// @file
/// O as given (o_formats.def's fp32): the solver's OScalar, FP32 by default; no stored copy.
#include <cstdint>

#include <ppsparse/mcpi/detail/o_codec.hpp>

namespace ppsparse::mcpi::detail {

/// The fp32 codec: the plain format, read from the solver's O itself.
struct Fp32Codec {
  using stored = float;
  static constexpr bool plain = true;
  static constexpr OScale scale = OScale::none;
  KOKKOS_INLINE_FUNCTION static int scale_exp(float) { return 0; }
  KOKKOS_INLINE_FUNCTION static stored encode(const float x, int) { return x; }
  KOKKOS_INLINE_FUNCTION static float decode(const stored v, int) { return v; }
  KOKKOS_INLINE_FUNCTION static bool out_of_range(stored) { return false; }
};

}  // namespace ppsparse::mcpi::detail

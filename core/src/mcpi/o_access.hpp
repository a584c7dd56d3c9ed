#pragma once
/// @file
/// How the portable kernels and the operator read O in each storage format (mcpi/o_format.hpp):
/// an accessor maps (block row, entry index, block slot, row within the block) to the entry's
/// value, decoded to FP32 for the reduced formats. The entry index is slot * nb^2 + j * nb + i
/// for entry (i, j) of the block in slot `slot` of block row `row`.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <ppsparse/mcpi/detail/o_codec.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

template <class MemSpace, class T>
using RandomAccessView = Kokkos::View<const T*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

/// O stored as is (FP32 or FP64).
template <class MemSpace, class OS>
struct PlainO {
  using value_type = OS;
  RandomAccessView<MemSpace, OS> values;
  KOKKOS_INLINE_FUNCTION OS operator()(ordinal_t, size_t idx, offset_t, int) const { return values(idx); }
};

/// O in BF16.
template <class MemSpace>
struct Bf16O {
  using value_type = float;
  RandomAccessView<MemSpace, std::uint16_t> bits;
  KOKKOS_INLINE_FUNCTION float operator()(ordinal_t, size_t idx, offset_t, int) const {
    return detail::decode_bf16(bits(idx));
  }
};

/// O in FP16 with one scale exponent per block row.
template <class MemSpace>
struct Fp16O {
  using value_type = float;
  RandomAccessView<MemSpace, std::uint16_t> bits;
  RandomAccessView<MemSpace, std::int8_t> scale_exp;  ///< per block row
  KOKKOS_INLINE_FUNCTION float operator()(ordinal_t row, size_t idx, offset_t, int) const {
    return detail::decode_half(bits(idx)) * detail::exp2_int(scale_exp(row));
  }
};

/// O in int8 with one scale exponent per row of each block.
template <class MemSpace>
struct Int8O {
  using value_type = float;
  RandomAccessView<MemSpace, std::int8_t> q;
  RandomAccessView<MemSpace, std::int8_t> scale_exp;  ///< slot * nb + i
  int nb = 1;
  KOKKOS_INLINE_FUNCTION float operator()(ordinal_t, size_t idx, offset_t slot, int i) const {
    return detail::decode_int8(q(idx), scale_exp(static_cast<size_t>(slot) * nb + i));
  }
};

}  // namespace ppsparse::mcpi::impl

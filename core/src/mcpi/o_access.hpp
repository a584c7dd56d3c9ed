#pragma once
/// @file
/// How the portable kernels and the operator read O in each storage format (mcpi/o_formats.def):
/// an accessor maps (block row, entry index, block slot, column within the block) to the entry's
/// value, decoded to FP32 by the format's codec. The entry index is slot * nb^2 + j * nb + i
/// for entry (i, j) of the block in slot `slot` of block row `row`.
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <ppsparse/mcpi/detail/o_codec.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

template <class MemSpace, class T>
using RandomAccessView = Kokkos::View<const T*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

/// O stored as is (FP32 or FP64): the plain format.
template <class MemSpace, class OS>
struct PlainO {
  using value_type = OS;
  static constexpr bool scaled_by_column = false;
  RandomAccessView<MemSpace, OS> values;
  KOKKOS_INLINE_FUNCTION OS operator()(ordinal_t, size_t idx, offset_t, int) const { return values(idx); }
};

/// O stored by a codec (o_codec.hpp), with its scale exponents where the codec has them.
template <class MemSpace, class Codec>
struct CodedO {
  using value_type = float;
  /// Whether an entry's scale is its block column's: a kernel whose lanes own columns then
  /// multiplies the column's dQ value by column_scale once per block and reads unscaled entries.
  static constexpr bool scaled_by_column = Codec::scale == detail::OScale::per_column_of_block;
  RandomAccessView<MemSpace, typename Codec::stored> values;
  RandomAccessView<MemSpace, std::int8_t> scale_exp;  ///< by block row, or by slot * nb + j
  int nb = 1;
  KOKKOS_INLINE_FUNCTION float operator()(ordinal_t row, size_t idx, offset_t slot, int j) const {
    if constexpr (Codec::scale == detail::OScale::per_block_row)
      return Codec::decode(values(idx), scale_exp(row));
    else if constexpr (Codec::scale == detail::OScale::per_column_of_block)
      return Codec::decode(values(idx), scale_exp(static_cast<size_t>(slot) * nb + j));
    else
      return Codec::decode(values(idx), 0);
  }
  /// For scaled_by_column: the entry without its column's scale, and that scale (2^e), whose
  /// product is operator()'s value (such a codec's decode(v, e) is decode(v, 0) 2^e, exactly).
  KOKKOS_INLINE_FUNCTION float unscaled(size_t idx) const { return Codec::decode(values(idx), 0); }
  KOKKOS_INLINE_FUNCTION float column_scale(offset_t slot, int j) const {
    return detail::exp2_int(scale_exp(static_cast<size_t>(slot) * nb + j));
  }
};

}  // namespace ppsparse::mcpi::impl

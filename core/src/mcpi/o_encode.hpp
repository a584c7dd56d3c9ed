#pragma once
/// @file
/// Conversion of O into a coded storage format (mcpi/o_formats.def) on the device, block row
/// by block row in colour order: from the user's array (update) or from the FP32 slots of an
/// assembly in place (factor). The rounding is the format's codec's (mcpi/detail/o_codecs/).
#include <cfloat>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/detail/o_codec.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/types.hpp>

#include "o_access.hpp"

namespace ppsparse::mcpi::impl {

/// Entry e (j * nb + i) of the block in slot p, from O's plain slots (FP32 for the encoder,
/// which takes it as FP32), in the view's own precision.
template <class V>
struct SlotValues {
  V O;
  int nb2;
  KOKKOS_INLINE_FUNCTION typename V::non_const_value_type operator()(const offset_t p, const int e) const {
    return O(static_cast<size_t>(p) * nb2 + e);
  }
};

/// Entry e (j * nb + i) of the block in slot p of O stored by Codec, decoded by its accessor
/// (o_access.hpp): a coded level read as FP32 values, as the multigrid's Galerkin sums read the
/// level above. ia, the colour-ordered block CSR of n rows, finds a slot's block row (by
/// bisection) for a codec with a scale per block row.
template <class MemSpace, class Codec>
struct CodedSlotValues {
  CodedO<MemSpace, Codec> o;
  Kokkos::View<const offset_t*, MemSpace> ia;
  ordinal_t n = 0;
  KOKKOS_INLINE_FUNCTION float operator()(const offset_t p, const int e) const {
    ordinal_t row = 0;
    if constexpr (Codec::scale == detail::OScale::per_block_row) {
      ordinal_t hi = n;  // the row with ia(row) <= p < ia(row + 1)
      while (hi - row > 1) {
        const ordinal_t mid = row + (hi - row) / 2;
        if (ia(mid) <= p)
          row = mid;
        else
          hi = mid;
      }
    }
    return o(row, static_cast<size_t>(p) * o.nb * o.nb + static_cast<size_t>(e), p, e / o.nb);
  }
};

/// The source that reads O stored by Codec: its FP32 values for the plain format, else its
/// coded entries. The multigrid reads every level's O through one of these (one per line of
/// o_formats.def).
template <class MemSpace, class Codec>
using StoredValues = std::conditional_t<Codec::plain, SlotValues<Kokkos::View<const float*, MemSpace>>,
                                        CodedSlotValues<MemSpace, Codec>>;

/// Entry e (j * nb + i) of the block in slot p, from the user's array of blocks in user order
/// (slot_to_user: slot -> the user's block), each block column- or row-major.
template <class U, class S2U>
struct UserValues {
  U u;
  S2U slot_to_user;
  int nb;
  bool row_major;
  KOKKOS_INLINE_FUNCTION float operator()(const offset_t p, const int e) const {
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    const int j = e / nb, i = e - j * nb;
    return static_cast<float>(u(static_cast<size_t>(slot_to_user(p)) * nb2 + (row_major ? i * nb + j : e)));
  }
};

/// Writes O's blocks by Codec (a coded format's, mcpi/detail/o_codecs/) from `src` for the
/// colour-ordered block CSR ia (n rows): the stored entries into `stored` and, where the codec
/// has scales, their exponents into scale_exp (by block row, or by slot * nb + j for column j). The smallest
/// slot holding a NaN or Inf (after rounding to FP32), or a finite entry the codec cannot hold,
/// goes to first_bad by atomic min. Asynchronous on exec.
template <class Codec, class ExecSpace, class Source, class IA, class Stored, class Scale, class Bad>
void encode_o(const ExecSpace& exec, const Source& src, const IA& ia, const ordinal_t n, const int nb,
              const Stored& stored, const Scale& scale_exp, const Bad& first_bad) {
  if (n == 0) return;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int nb2 = nb * nb;
  const bool gpu = compat::is_gpu_space<ExecSpace>();
  const Policy policy(exec, static_cast<int>(n), gpu ? 64 : 1);
  // |x| if finite, else records the slot and gives 0.
  const auto magnitude = [=] KOKKOS_FUNCTION(const float x, const offset_t p) {
    const float a = x < 0 ? -x : x;
    if (!(a <= FLT_MAX)) {
      Kokkos::atomic_fetch_min(&first_bad(), static_cast<long long>(p));
      return 0.0f;
    }
    return a;
  };
  // Entry (slot p, entry t = j * nb + i) of value x stored with exponent e.
  const auto put_value = [=] KOKKOS_FUNCTION(const offset_t p, const int t, const float x, const int e) {
    const typename Codec::stored v = Codec::encode(x, e);
    if (Codec::out_of_range(v)) Kokkos::atomic_fetch_min(&first_bad(), static_cast<long long>(p));
    stored(static_cast<size_t>(p) * nb2 + t) = v;
  };
  const auto put = [=] KOKKOS_FUNCTION(const offset_t p, const int t, const int e) { put_value(p, t, src(p, t), e); };
  if constexpr (Codec::scale == detail::OScale::none) {
    Kokkos::parallel_for(
        "ppsparse::mcpi::encode_o", policy, KOKKOS_LAMBDA(const Member& m) {
          const ordinal_t r = m.league_rank();
          const offset_t k0 = ia(r);
          const int len = static_cast<int>(ia(r + 1) - k0) * nb2;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) {
            // Each entry read once: a source may be a sum (the multigrid's Galerkin sums).
            const offset_t p = k0 + t / nb2;
            const float x = src(p, t % nb2);
            magnitude(x, p);
            put_value(p, t % nb2, x, 0);
          });
        });
  } else if constexpr (Codec::scale == detail::OScale::per_block_row) {
    Kokkos::parallel_for(
        "ppsparse::mcpi::encode_o_row_scaled", policy, KOKKOS_LAMBDA(const Member& m) {
          const ordinal_t r = m.league_rank();
          const offset_t k0 = ia(r);
          const int len = static_cast<int>(ia(r + 1) - k0) * nb2;
          float mx = 0.0f;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, len),
              [&](const int t, float& acc) {
                const float a = magnitude(src(k0 + t / nb2, t % nb2), k0 + t / nb2);
                acc = a > acc ? a : acc;
              },
              Kokkos::Max<float>(mx));
          const int e = Codec::scale_exp(mx);
          Kokkos::single(Kokkos::PerTeam(m), [&]() { scale_exp(r) = static_cast<std::int8_t>(e); });
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, len), [&](const int t) { put(k0 + t / nb2, t % nb2, e); });
        });
  } else {
    Kokkos::parallel_for(
        "ppsparse::mcpi::encode_o_block_column_scaled", policy, KOKKOS_LAMBDA(const Member& m) {
          const ordinal_t r = m.league_rank();
          const offset_t k0 = ia(r);
          const int columns = static_cast<int>(ia(r + 1) - k0) * nb;  // (slot, j) pairs
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, columns), [&](const int t) {
            const offset_t p = k0 + t / nb;
            const int j = t % nb;
            float mx = 0.0f;
            // Small blocks keep the column's values in registers (a fixed-size, unrolled array),
            // so that a source that sums (the multigrid's Galerkin sums) is read once per entry.
            constexpr int cached = 8;
            float x[cached];
            if (nb <= cached) {
              for (int i = 0; i < cached; ++i)
                if (i < nb) {
                  x[i] = src(p, j * nb + i);
                  const float a = magnitude(x[i], p);
                  mx = a > mx ? a : mx;
                }
            } else {
              for (int i = 0; i < nb; ++i) {
                const float a = magnitude(src(p, j * nb + i), p);
                mx = a > mx ? a : mx;
              }
            }
            const int e = Codec::scale_exp(mx);
            scale_exp(static_cast<size_t>(p) * nb + j) = static_cast<std::int8_t>(e);
            if (nb <= cached) {
              for (int i = 0; i < cached; ++i)
                if (i < nb) put_value(p, j * nb + i, x[i], e);
            } else {
              for (int i = 0; i < nb; ++i) put(p, j * nb + i, e);
            }
          });
        });
  }
}

}  // namespace ppsparse::mcpi::impl

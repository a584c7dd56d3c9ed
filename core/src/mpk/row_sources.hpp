#pragma once
// Row sources of the matrix power kernels (private to core/src/mpk): a block of rows, a row's
// stored entries in CSR or SELL-C, and the products of one or two rows over the vector lanes.
#include <cstdint>
#include <type_traits>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>

#include "../backend/team_copy.hpp"
#include "../sparse/kernel_common.hpp"

namespace ppsparse::mpk::detail {

struct Block {
  ordinal_t row_begin;
  ordinal_t row_end;
  ordinal_t group;
  int power;          // 1..p
  ordinal_t segment;  // the dependency segment holding the rows (persistent kernel)
  ordinal_t dep_lo;   // segments [dep_lo, dep_hi] hold every row of y_{power-1} the rows read
  ordinal_t dep_hi;
};

// A thread's share of a row: sum over k = first, first + stride, ... < end of
// values(k) * x_at(cols(k)). Batch 0 is spmv's strided_dot (8 entries at a time, then a
// scalar tail). Batch U > 0 loads U entries before any of their gathers, then gathers all U,
// so a row of up to U entries has all its loads in flight at once (strided_dot takes a row
// shorter than 8 through its scalar tail). Past the row's end an entry is 0 at safe_col, the
// row itself, whose y_{k-1} is computed before the row's block runs (a block's dependencies
// include its own rows); on an H100 that was faster than skipping those gathers under a
// predicate. The blocked and persistent kernels finish every row of a block before the next
// block, so their time per block is this latency; one SpMV over the whole matrix hides it
// behind other warps' loads.
template <int Batch, class Scalar, class Cols, class Vals, class XAt>
KOKKOS_FORCEINLINE_FUNCTION Scalar row_dot(offset_t k, const offset_t end, const offset_t stride, const Cols& cols,
                                           const Vals& values, const XAt& x_at, const ordinal_t safe_col) {
  if constexpr (Batch == 0) {
    return sparse::strided_dot<Scalar>(k, end, stride, cols, values, x_at);
  } else {
    Scalar sum = 0;
    for (; k < end; k += Batch * stride) {
      ordinal_t c[Batch];
      Scalar v[Batch];
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) {
        const offset_t e = k + u * stride;
        c[u] = e < end ? cols(e) : safe_col;
        v[u] = e < end ? values(e) : Scalar(0);
      }
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) sum += v[u] * x_at(c[u]);
    }
    return sum;
  }
}

// Two rows at once (the pipelined kernel's rows in flight): row_dot of rows 0 and 1, Batch
// entries of each at a time, all 2 Batch gathers issued before any product, so that one
// thread has both rows' gathers in flight together instead of one row's after the other's.
// The columns are read first and the values only at their products: the gathered 2 Batch
// values, not the stored ones as well, hold registers while the gathers are in flight (the
// kernel's register bound leaves 64 per thread). Batch 0: two strided_dots.
template <int Batch, class Scalar, class Cols0, class Cols1, class Vals, class XAt>
KOKKOS_FORCEINLINE_FUNCTION void row_dot_pair(offset_t k0, const offset_t end0, offset_t k1, const offset_t end1,
                                              const offset_t stride, const Cols0& cols0, const Cols1& cols1,
                                              const Vals& values, const XAt& x_at, const ordinal_t safe0,
                                              const ordinal_t safe1, Scalar& sum0, Scalar& sum1) {
  if constexpr (Batch == 0) {
    sum0 = sparse::strided_dot<Scalar>(k0, end0, stride, cols0, values, x_at);
    sum1 = sparse::strided_dot<Scalar>(k1, end1, stride, cols1, values, x_at);
  } else {
    sum0 = 0;
    sum1 = 0;
    for (; k0 < end0 || k1 < end1; k0 += Batch * stride, k1 += Batch * stride) {
      Scalar g[2 * Batch];
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) {
        const offset_t e0 = k0 + u * stride, e1 = k1 + u * stride;
        g[u] = x_at(e0 < end0 ? cols0(e0) : safe0);
        g[Batch + u] = x_at(e1 < end1 ? cols1(e1) : safe1);
      }
      PPSPARSE_UNROLL
      for (int u = 0; u < Batch; ++u) {
        const offset_t e0 = k0 + u * stride, e1 = k1 + u * stride;
        if (e0 < end0) sum0 += values(e0) * g[u];
        if (e1 < end1) sum1 += values(e1) * g[Batch + u];
      }
    }
  }
}

// A row's stored entries: begin, begin + step, ... < end, where step is the format's
// (Rows::entry_step: 1 for CSR, C for SELL-C).
struct RowSpan {
  offset_t begin;
  offset_t end;
};

template <class T, class MemSpace>
using RandomAccessView = Kokkos::View<const T*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

// Where the pipelined kernel reads a block's stored entries (row_dot's cols and values) once
// they are in team scratch: entry e of the block is at scratch[e - base]. They get there by
// ppsparse::backend::team_copy_start before the first power (row pairs), or by KeepInScratch at it.
template <class T>
struct ScratchEntries {
  T* data;
  offset_t base;
  KOKKOS_FORCEINLINE_FUNCTION T operator()(const offset_t e) const { return data[e - base]; }
};

// The first power of a block with one row per thread: entry e read from memory (source) and
// kept at scratch[e - base] as read. The lane that writes an entry is the one that reads it
// later (a row's thread and lanes are the same at every power), so no barrier orders the two.
template <class Source, class T>
struct KeepInScratch {
  Source source;
  T* data;
  offset_t base;
  KOKKOS_FORCEINLINE_FUNCTION T operator()(const offset_t e) const {
    const T v = source(e);
    data[e - base] = v;
    return v;
  }
};

// y_{k_in} row r of `rows` (CsrRows or SellRows), its stored entries at `s` read through
// `vals` and `index` (entry -> stored value): the row's entries split over the rows' vector
// lanes, each lane taking Batch at a time (row_dot), and reduced over the lanes.
template <class Member, class Rows, class X, class Vals, class Index>
KOKKOS_INLINE_FUNCTION auto span_product(const Member& team, const Rows& rows, const ordinal_t r, const RowSpan s,
                                         const X& y, const int k_in, const Vals& vals, const Index& index) {
  using Scalar = typename Rows::scalar_type;
  const offset_t step = rows.entry_step();
  const auto cols = rows.columns(index, r);
  Scalar sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, rows.lanes),
      [&](const int lane, Scalar& part) {
        part += row_dot<Rows::batch, Scalar>(
            s.begin + static_cast<offset_t>(lane) * step, s.end, static_cast<offset_t>(rows.lanes) * step, cols, vals,
            [&](const ordinal_t c) { return y(c, k_in); }, r);
      },
      sum);
  return sum;
}

// Rows r0 and r1 of `rows` at once (row_dot_pair), for launches of one vector lane per row.
template <class Rows, class X, class Vals, class Index, class Scalar>
KOKKOS_INLINE_FUNCTION void pair_product(const Rows& rows, const ordinal_t r0, const RowSpan s0, const ordinal_t r1,
                                         const RowSpan s1, const X& y, const int k_in, const Vals& vals,
                                         const Index& index, Scalar& sum0, Scalar& sum1) {
  row_dot_pair<Rows::batch, Scalar>(
      s0.begin, s0.end, s1.begin, s1.end, rows.entry_step(), rows.columns(index, r0), rows.columns(index, r1), vals,
      [&](const ordinal_t c) { return y(c, k_in); }, r0, r1, sum0, sum1);
}

// Rows of a CSR matrix: the `lanes` vector lanes of a team thread take entries lane,
// lane + lanes, ... of the row, Batch at a time (row_dot; Batch 0 is spmv's strided_dot,
// shared with the SpMV kernels).
template <class Scalar, class MemSpace, int Batch>
struct CsrRows {
  using scalar_type = Scalar;
  static constexpr int batch = Batch;
  RandomAccessView<offset_t, MemSpace> row_ptr;
  RandomAccessView<ordinal_t, MemSpace> col_idx;
  RandomAccessView<Scalar, MemSpace> values;
  int lanes;  // the vector length of the launch

  using StoredIndex = ordinal_t;  // what the matrix stores per entry besides its value
  KOKKOS_INLINE_FUNCTION const auto& stored_values() const { return values; }
  KOKKOS_INLINE_FUNCTION const auto& stored_index() const { return col_idx; }
  // The stored entries of rows [row_begin, row_end): [first, last).
  KOKKOS_INLINE_FUNCTION void entry_range(const ordinal_t row_begin, const ordinal_t row_end, offset_t& first,
                                          offset_t& last) const {
    first = row_ptr(row_begin);
    last = row_ptr(row_end);
  }

  KOKKOS_INLINE_FUNCTION RowSpan span(const ordinal_t r) const { return {row_ptr(r), row_ptr(r + 1)}; }
  KOKKOS_INLINE_FUNCTION offset_t entry_step() const { return 1; }
  // Entry -> column of row r, from the stored index (CSR stores the columns themselves).
  template <class Index>
  KOKKOS_INLINE_FUNCTION const Index& columns(const Index& index, ordinal_t) const {
    return index;
  }

  template <class Member, class X>
  KOKKOS_INLINE_FUNCTION Scalar product(const Member& team, const ordinal_t r, const X& y, const int k_in) const {
    return span_product(team, *this, r, span(r), y, k_in, values, col_idx);
  }
};

// Rows of a SELL-C-1 matrix (sorted position = row): entry j of row r is at
// chunk_ptr[r / C] + j C + r % C, so the C rows of a chunk, each read by W/C lanes, make one
// coalesced access of W consecutive entries per step. Compressed: the column of entry k is
// r + col_offset[k] (2 bytes per entry instead of 4; col_idx is not read).
template <class Scalar, class MemSpace, bool Compressed, int Batch>
struct SellRows {
  using scalar_type = Scalar;
  static constexpr int batch = Batch;
  RandomAccessView<offset_t, MemSpace> chunk_ptr;
  RandomAccessView<ordinal_t, MemSpace> row_len;
  RandomAccessView<ordinal_t, MemSpace> col_idx;
  RandomAccessView<std::int16_t, MemSpace> col_offset;
  RandomAccessView<Scalar, MemSpace> values;
  int C;
  int lanes;  // the vector length of the launch

  using StoredIndex = std::conditional_t<Compressed, std::int16_t, ordinal_t>;
  KOKKOS_INLINE_FUNCTION const auto& stored_values() const { return values; }
  KOKKOS_INLINE_FUNCTION const auto& stored_index() const {
    if constexpr (Compressed)
      return col_offset;
    else
      return col_idx;
  }
  // The stored entries of rows [row_begin, row_end), whole chunks: [first, last).
  KOKKOS_INLINE_FUNCTION void entry_range(const ordinal_t row_begin, const ordinal_t row_end, offset_t& first,
                                          offset_t& last) const {
    first = chunk_ptr(row_begin / C);
    last = chunk_ptr((row_end + C - 1) / C);
  }

  KOKKOS_INLINE_FUNCTION RowSpan span(const ordinal_t r) const {
    const offset_t base = chunk_ptr(r / C) + r % C;
    return {base, base + static_cast<offset_t>(row_len(r)) * C};
  }
  KOKKOS_INLINE_FUNCTION offset_t entry_step() const { return C; }
  // Entry -> column of row r, from the stored index (16-bit offsets from the row, or columns).
  template <class Index>
  KOKKOS_INLINE_FUNCTION auto columns(const Index& index, const ordinal_t r) const {
    return sparse::SellColumns<Compressed, Index, Index>{index, index, r};
  }

  template <class Member, class X>
  KOKKOS_INLINE_FUNCTION Scalar product(const Member& team, const ordinal_t r, const X& y, const int k_in) const {
    return span_product(team, *this, r, span(r), y, k_in, values, stored_index());
  }
};

template <class Member, class Rows, class YIn, class YOut>
KOKKOS_INLINE_FUNCTION void compute_block(const Member& team, const Rows& rows, const Block& b, const YIn& y_in,
                                          const YOut& y_out) {
  const int k = b.power;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b.row_begin, b.row_end), [&](const ordinal_t r) {
    const auto s = rows.product(team, r, y_in, k - 1);
    Kokkos::single(Kokkos::PerThread(team), [&]() { y_out(r, k) = s; });
  });
}

}  // namespace ppsparse::mpk::detail

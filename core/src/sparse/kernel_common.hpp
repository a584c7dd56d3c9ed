#pragma once
// The low layer of the sparse kernel families (private to the library): what the SpMV kernels
// (core/src/spmv) and the matrix power kernels (core/src/mpk) share, so that neither includes
// the other's internals.
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::sparse {

// x as the kernels read it: const and random access, so that GPUs load it through the
// read-only (texture) cache path (__ldg on CUDA).
template <class Scalar, class MemSpace>
using RandomAccessVector = Kokkos::View<const Scalar*, MemSpace, Kokkos::MemoryTraits<Kokkos::RandomAccess>>;

// y(i) = alpha*sum + beta*y(i); with beta == 0, y(i) is not read (NaN in y must not survive).
template <class Scalar, class YView>
KOKKOS_FORCEINLINE_FUNCTION void store_row(const YView& y, const ordinal_t i, const Scalar alpha, const Scalar beta,
                                           const Scalar sum) {
  if (beta == Scalar(0))
    y(i) = alpha * sum;
  else
    y(i) = alpha * sum + beta * y(i);
}

// Entries a thread keeps in flight: the loads of kUnroll entries (index and value) are
// issued before any of their x gathers, so that each thread has several independent memory
// requests outstanding. A GPU needs tens of kilobytes in flight per SM to reach its DRAM
// bandwidth; one 12-byte entry per thread at a time is not enough (docs/perf/kernel_choices.md,
// "SpMV unroll").
constexpr int kUnroll = 8;

// The column of stored entry k of a SELL row at (original) index `row`: row + col_offset(k)
// from 16-bit offsets when Compressed, else col_idx(k). ColIdx and ColOffset are arrays
// indexed by k (views, or ppsparse::backend::ReadOnceArray for streaming loads).
template <bool Compressed, class ColIdx, class ColOffset>
struct SellColumns {
  ColIdx col_idx;
  ColOffset col_offset;
  ordinal_t row;
  KOKKOS_FORCEINLINE_FUNCTION ordinal_t operator()(const offset_t k) const {
    if constexpr (Compressed)
      return row + col_offset(k);
    else
      return col_idx(k);
  }
};

// sum over k = first, first + stride, ... < end of values(k) * x_at(col_idx(k)), kUnroll
// entries at a time, then the rest one by one: on short rows a scalar tail is cheaper than a
// predicated partial group (docs/perf/kernel_choices.md, "SpMV scalar tail").
template <class Scalar, class ColIdx, class Values, class XAt>
KOKKOS_FORCEINLINE_FUNCTION Scalar strided_dot(offset_t k, const offset_t end, const offset_t stride,
                                               const ColIdx& col_idx, const Values& values, const XAt& x_at) {
  Scalar sum = 0;
  for (; k + (kUnroll - 1) * stride < end; k += kUnroll * stride) {
    ordinal_t c[kUnroll];
    Scalar v[kUnroll];
    PPSPARSE_UNROLL
    for (int u = 0; u < kUnroll; ++u) {
      c[u] = col_idx(k + u * stride);
      v[u] = values(k + u * stride);
    }
    PPSPARSE_UNROLL
    for (int u = 0; u < kUnroll; ++u) sum += v[u] * x_at(c[u]);
  }
  for (; k < end; k += stride) sum += values(k) * x_at(col_idx(k));
  return sum;
}

// Row i of A times x, reduced over the `lanes` vector lanes of the calling team thread
// (lanes = the vector length of the launch); x_at(c) reads x[c] (a view, or a scratch
// window of it). Every lane gets the sum.
template <class Scalar, class Member, class RowPtr, class ColIdx, class Values, class XAt>
KOKKOS_FORCEINLINE_FUNCTION Scalar row_dot_vector(const Member& member, const int lanes, const RowPtr& row_ptr,
                                                  const ColIdx& col_idx, const Values& values, const XAt& x_at,
                                                  const ordinal_t i) {
  const offset_t begin = row_ptr(i), end = row_ptr(i + 1);
  Scalar sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(member, lanes),
      [&](const int lane, Scalar& s) { s += strided_dot<Scalar>(begin + lane, end, lanes, col_idx, values, x_at); },
      sum);
  return sum;
}

template <class Scalar, class MemSpace>
struct ScaleFunctor {
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar beta;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i);
  }
};

// y = beta*y (y = 0 when beta == 0): the whole product when alpha == 0.
template <class ExecSpace, class Scalar, class MemSpace>
void scale_vector(const ExecSpace& space, const Scalar beta, const Kokkos::View<Scalar*, MemSpace>& y) {
  if (y.extent(0) == 0) return;
  Kokkos::parallel_for(
      "ppsparse::spmv_scale_y",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, static_cast<ordinal_t>(y.extent(0))),
      ScaleFunctor<Scalar, MemSpace>{y, beta});
}

inline bool is_power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

inline int next_power_of_two(double v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p *= 2;
  return p;
}

}  // namespace ppsparse::sparse

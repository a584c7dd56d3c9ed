#pragma once
// Pieces every SpMV kernel of core/src/spmv shares (private to the library).
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv::detail {

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

// Row i of A times x, reduced over the vector lanes of the calling team thread; x_at(c)
// reads x[c] (a view, or a scratch window of it). Every lane gets the sum.
template <class Scalar, class Member, class RowPtr, class ColIdx, class Values, class XAt>
KOKKOS_FORCEINLINE_FUNCTION Scalar row_dot_vector(const Member& member, const RowPtr& row_ptr, const ColIdx& col_idx,
                                                  const Values& values, const XAt& x_at, const ordinal_t i) {
  const offset_t begin = row_ptr(i);
  Scalar sum = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(member, row_ptr(i + 1) - begin),
      [&](const offset_t j, Scalar& s) {
        const offset_t k = begin + j;
        s += values(k) * x_at(col_idx(k));
      },
      sum);
  return sum;
}

template <class Scalar, class MemSpace>
struct ScaleFunctor {
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar beta;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i); }
};

// y = beta*y (y = 0 when beta == 0): the whole product when alpha == 0.
template <class ExecSpace, class Scalar, class MemSpace>
void scale_vector(const ExecSpace& space, const Scalar beta, const Kokkos::View<Scalar*, MemSpace>& y) {
  if (y.extent(0) == 0) return;
  Kokkos::parallel_for("ppsparse::spmv_scale_y",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(
                           space, 0, static_cast<ordinal_t>(y.extent(0))),
                       ScaleFunctor<Scalar, MemSpace>{y, beta});
}

inline bool is_power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

inline int next_power_of_two(double v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p *= 2;
  return p;
}

}  // namespace ppsparse::spmv::detail

#include <ppsparse/spmv/hyb.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include <ppsparse/formats/convert.hpp>
#include <ppsparse/spmv/sell_spmv.hpp>

#include "../util/to_device.hpp"
#include "kernel_common.hpp"

namespace ppsparse::spmv {

ordinal_t hyb_auto_row_max(ordinal_t nrows, offset_t nnz) {
  const double mean = nrows > 0 ? static_cast<double>(nnz) / nrows : 0.0;
  return static_cast<ordinal_t>(std::max(32.0, std::ceil(4.0 * mean)));
}

namespace {

// y[rows[i]] += alpha * t[i]: tail rows are distinct, so no two threads write one entry.
template <class Scalar, class MemSpace>
struct AddTail {
  Kokkos::View<const ordinal_t*, MemSpace> rows;
  Kokkos::View<const Scalar*, MemSpace> t;
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { y(rows(i)) += alpha * t(i); }
};

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
HybMatrix<Scalar, MemSpace> make_hyb(const ExecSpace& space, const CsrMatrix<Scalar, HostSpace>& a, int C,
                                     ordinal_t sigma, ordinal_t row_max, const int index_bits) {
  if (row_max < 1) throw InvalidArgument("hyb setup: row_max = " + std::to_string(row_max) + " must be >= 1");
  if (index_bits != 0 && index_bits != 16 && index_bits != 32)
    throw InvalidArgument("hyb setup: index_bits = " + std::to_string(index_bits) + " must be 0, 16 or 32");
  check_csr_extents("hyb setup", a);
  // Split: each row keeps its first row_max entries; the rest of a long row goes to the tail.
  offset_t head_nnz = 0, tail_nnz = 0;
  std::vector<ordinal_t> tail_rows;
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    const offset_t len = a.row_ptr(i + 1) - a.row_ptr(i);
    head_nnz += std::min<offset_t>(len, row_max);
    if (len > row_max) {
      tail_nnz += len - row_max;
      tail_rows.push_back(i);
    }
  }
  CsrMatrix<Scalar, HostSpace> head(a.nrows, a.ncols, head_nnz, "hyb.head");
  CsrMatrix<Scalar, HostSpace> tail(static_cast<ordinal_t>(tail_rows.size()), a.ncols, tail_nnz, "hyb.tail");
  offset_t h = 0, t = 0;
  ordinal_t tr = 0;
  for (ordinal_t i = 0; i < a.nrows; ++i) {
    const offset_t b = a.row_ptr(i), e = a.row_ptr(i + 1);
    const offset_t cut = std::min<offset_t>(e, b + row_max);
    for (offset_t k = b; k < cut; ++k, ++h) {
      head.col_idx(h) = a.col_idx(k);
      head.values(h) = a.values(k);
    }
    head.row_ptr(i + 1) = h;
    if (e > cut) {
      for (offset_t k = cut; k < e; ++k, ++t) {
        tail.col_idx(t) = a.col_idx(k);
        tail.values(t) = a.values(k);
      }
      tail.row_ptr(++tr) = t;
    }
  }
  HybMatrix<Scalar, MemSpace> m;
  m.row_max = row_max;
  auto sell = csr_to_sell(head, C, sigma);
  sell_apply_index_bits(sell, index_bits, "hyb setup", "index_bits");
  m.sell = copy_to<MemSpace>(sell);
  m.tail = make_row_tail<ExecSpace, Scalar, MemSpace>(space, tail, tail_rows);
  return m;
}

template <class ExecSpace, class Scalar, class MemSpace>
void hyb_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha, const HybMatrix<Scalar, MemSpace>& a,
              const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
              const nondeduced_t<Vector<Scalar, MemSpace>>& y, const MatrixLoads loads) {
  check_vectors("hyb_spmv", a.nrows(), a.ncols(), x, y);
  sell_spmv(space, alpha, a.sell, x, beta, y, loads);
  add_row_tail(space, alpha, a.tail, x, y, loads);
}

template <class ExecSpace, class Scalar, class MemSpace>
RowTail<Scalar, MemSpace> make_row_tail(const ExecSpace& space, const CsrMatrix<Scalar, HostSpace>& matrix,
                                        const std::vector<ordinal_t>& rows) {
  if (rows.size() != static_cast<size_t>(matrix.nrows))
    throw std::logic_error("make_row_tail: one original row per tail row expected");
  RowTail<Scalar, MemSpace> t;
  t.matrix = copy_to<MemSpace>(matrix);
  t.rows = util::to_device<ordinal_t, MemSpace>(rows, "tail.rows");
  t.plan = make_csr_v2_plan(space, t.matrix);
  t.y = Kokkos::View<Scalar*, MemSpace>("tail.y", rows.size());
  space.fence();
  return t;
}

template <class ExecSpace, class Scalar, class MemSpace>
void add_row_tail(const ExecSpace& space, nondeduced_t<Scalar> alpha, const RowTail<Scalar, MemSpace>& tail,
                  const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, const nondeduced_t<Vector<Scalar, MemSpace>>& y,
                  const MatrixLoads loads) {
  if (tail.nrows() == 0 || alpha == Scalar(0)) return;
  csr_v2(space, Scalar(1), tail.matrix, tail.plan, x, Scalar(0), tail.y, loads);
  Kokkos::parallel_for("ppsparse::add_row_tail",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, tail.nrows()),
                       AddTail<Scalar, MemSpace>{tail.rows, tail.y, y, alpha});
}

#define PPSPARSE_INSTANTIATE_HYB(S)                                                                                \
  template HybMatrix<S, DefaultMemSpace> make_hyb<DefaultExecSpace, S, DefaultMemSpace>(                           \
      const DefaultExecSpace&, const CsrMatrix<S, HostSpace>&, int, ordinal_t, ordinal_t, int);                    \
  template void hyb_spmv<DefaultExecSpace, S, DefaultMemSpace>(                                                    \
      const DefaultExecSpace&, S, const HybMatrix<S, DefaultMemSpace>&, const ConstVector<S, DefaultMemSpace>&, S, \
      const Vector<S, DefaultMemSpace>&, MatrixLoads);                                                             \
  template RowTail<S, DefaultMemSpace> make_row_tail<DefaultExecSpace, S, DefaultMemSpace>(                        \
      const DefaultExecSpace&, const CsrMatrix<S, HostSpace>&, const std::vector<ordinal_t>&);                     \
  template void add_row_tail<DefaultExecSpace, S, DefaultMemSpace>(                                                \
      const DefaultExecSpace&, S, const RowTail<S, DefaultMemSpace>&, const ConstVector<S, DefaultMemSpace>&,      \
      const Vector<S, DefaultMemSpace>&, MatrixLoads);

PPSPARSE_INSTANTIATE_HYB(float)
PPSPARSE_INSTANTIATE_HYB(double)

}  // namespace ppsparse::spmv

#include <ppsparse/spmv/csr_v1.hpp>

#include "kernel_common.hpp"
#include "spmv_kernel.hpp"

namespace ppsparse::spmv {
namespace {

template <class Scalar, class MemSpace>
struct CsrV1Functor {
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const Scalar*, MemSpace> values;
  Kokkos::View<const Scalar*, MemSpace> x;  // plain loads: the baseline has no read-only path
  Kokkos::View<Scalar*, MemSpace> y;
  Scalar alpha, beta;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    Scalar sum = 0;
    const offset_t end = row_ptr(i + 1);
    for (offset_t k = row_ptr(i); k < end; ++k) sum += values(k) * x(col_idx(k));
    detail::store_row(y, i, alpha, beta, sum);
  }
};

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void csr_v1(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
            const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
            const nondeduced_t<Vector<Scalar, MemSpace>>& y) {
  check_csr_extents("csr_v1", a);
  check_vectors("csr_v1", a.nrows, a.ncols, x, y);
  if (a.nrows == 0) return;
  if (alpha == Scalar(0)) return detail::scale_vector(space, beta, y);
  Kokkos::parallel_for("ppsparse::csr_v1",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, a.nrows),
                       CsrV1Functor<Scalar, MemSpace>{a.row_ptr, a.col_idx, a.values, x, y, alpha, beta});
}

#define PPSPARSE_INSTANTIATE_CSR_V1(S)                                                                             \
  template void csr_v1<DefaultExecSpace, S, DefaultMemSpace>(                                                      \
      const DefaultExecSpace&, S, const CsrMatrix<S, DefaultMemSpace>&, const ConstVector<S, DefaultMemSpace>&, S, \
      const Vector<S, DefaultMemSpace>&);

PPSPARSE_INSTANTIATE_CSR_V1(float)
PPSPARSE_INSTANTIATE_CSR_V1(double)

namespace detail {
namespace {
template <class ExecSpace, class Scalar, class MemSpace>
class CsrV1Kernel final : public SpmvKernel<ExecSpace, Scalar, MemSpace> {
 public:
  void apply(const ExecSpace& space, Scalar alpha, const CsrMatrix<Scalar, MemSpace>& a,
             const ConstVector<Scalar, MemSpace>& x, Scalar beta, const Vector<Scalar, MemSpace>& y) override {
    csr_v1(space, alpha, a, x, beta, y);
  }
};
}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
SpmvKernelPtr<ExecSpace, Scalar, MemSpace> make_spmv_kernel_csr_v1(
    const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>&) {
  return std::make_unique<CsrV1Kernel<ExecSpace, Scalar, MemSpace>>();
}
PPSPARSE_INSTANTIATE_SPMV_KERNEL(csr_v1)

const std::vector<SpmvOptionKey>& option_keys_csr_v1() {
  static const std::vector<SpmvOptionKey> keys;  // no options
  return keys;
}
}  // namespace detail

}  // namespace ppsparse::spmv

// The assembled matrix in ELLPACK (Reguly and Giles 2012 compare it with CSR and the LMA): every
// row padded to the widest, value-major (entry k of row i at k*n + i, so that a warp's rows read
// consecutive words), converted from CSR on the device at setup. A padding entry is the row's
// own column with value 0.
#include "poisson_kernel.hpp"

namespace ppsparse::fem::detail {
namespace {

template <class Mem>
struct WidestRow {
  Kokkos::View<const offset_t*, Mem> row_ptr;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, ordinal_t& w) const {
    const auto len = static_cast<ordinal_t>(row_ptr(i + 1) - row_ptr(i));
    if (len > w) w = len;
  }
};

template <class Scalar, class Mem>
struct EllFromCsr {
  Kokkos::View<const offset_t*, Mem> row_ptr;
  Kokkos::View<const ordinal_t*, Mem> col_idx;
  Kokkos::View<const Scalar*, Mem> values;
  Kokkos::View<ordinal_t*, Mem> cols;
  Kokkos::View<Scalar*, Mem> vals;
  ordinal_t n, width;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    const offset_t b = row_ptr(i), len = row_ptr(i + 1) - b;
    for (ordinal_t k = 0; k < width; ++k) {
      const size_t at = static_cast<size_t>(k) * n + i;
      cols(at) = k < len ? col_idx(b + k) : i;
      vals(at) = k < len ? values(b + k) : Scalar(0);
    }
  }
};

template <class Scalar, class Mem>
struct EllProduct {
  Kokkos::View<const ordinal_t*, Mem> cols;
  Kokkos::View<const Scalar*, Mem> vals;
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> x;
  Kokkos::View<Scalar*, Mem> y;
  ordinal_t n, width;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    Scalar sum = 0;
    for (ordinal_t k = 0; k < width; ++k) {
      const size_t at = static_cast<size_t>(k) * n + i;
      sum += vals(at) * x(cols(at));
    }
    y(i) = sum;
  }
};

template <class ExecSpace, class Scalar>
class EllKernel final : public PoissonKernel<ExecSpace, Scalar> {
 public:
  using Mem = typename ExecSpace::memory_space;
  EllKernel(const ExecSpace& space, const PoissonSystem<Scalar, Mem>& s) : n_(s.nnodes) {
    ordinal_t width = 0;
    Kokkos::parallel_reduce("ppsparse::fem_ell_width",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, n_),
                            WidestRow<Mem>{s.A.row_ptr}, Kokkos::Max<ordinal_t>(width));
    width_ = width;
    cols_ = Kokkos::View<ordinal_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem.ell.cols"),
                                          static_cast<size_t>(width_) * n_);
    vals_ = Kokkos::View<Scalar*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem.ell.values"),
                                       static_cast<size_t>(width_) * n_);
    Kokkos::parallel_for("ppsparse::fem_ell_convert",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, n_),
                         EllFromCsr<Scalar, Mem>{s.A.row_ptr, s.A.col_idx, s.A.values, cols_, vals_, n_, width_});
    stored_ = static_cast<double>(s.A.nnz());
  }
  void apply(const ExecSpace& space, const Kokkos::View<const Scalar*, Mem>& x,
             const Kokkos::View<Scalar*, Mem>& y) override {
    Kokkos::parallel_for("ppsparse::fem_ell",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, n_),
                         EllProduct<Scalar, Mem>{cols_, vals_, x, y, n_, width_});
  }
  FemTraffic traffic() const override {
    FemTraffic t;
    t.matrix_bytes = static_cast<double>(width_) * n_ * (sizeof(Scalar) + sizeof(ordinal_t));
    t.vector_bytes = 2.0 * n_ * sizeof(Scalar);
    t.model = "ELLPACK: width x rows values and column indices, padding included; x read and y written once";
    return t;
  }
  std::string parameters() const override {
    return "width " + std::to_string(width_) + ", " +
           std::to_string(static_cast<int>(100.0 * stored_ / (static_cast<double>(width_) * n_) + 0.5)) +
           " % of the slots hold entries";
  }

 private:
  ordinal_t n_ = 0, width_ = 0;
  double stored_ = 0;
  Kokkos::View<ordinal_t*, Mem> cols_;
  Kokkos::View<Scalar*, Mem> vals_;
};

}  // namespace

template <class ExecSpace, class Scalar>
std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> make_poisson_kernel_ell(
    const ExecSpace& space, const PoissonSystem<Scalar, typename ExecSpace::memory_space>& system) {
  return std::make_unique<EllKernel<ExecSpace, Scalar>>(space, system);
}
PPSPARSE_INSTANTIATE_POISSON_KERNEL(ell)

}  // namespace ppsparse::fem::detail

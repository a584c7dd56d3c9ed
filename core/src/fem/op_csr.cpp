// The assembled matrix (the global matrix approach) through the library's SpMV, algorithm auto.
#include <ppsparse/spmv/spmv.hpp>

#include "poisson_kernel.hpp"

namespace ppsparse::fem::detail {
namespace {

template <class ExecSpace, class Scalar>
class CsrKernel final : public PoissonKernel<ExecSpace, Scalar> {
 public:
  using Mem = typename ExecSpace::memory_space;
  CsrKernel(const ExecSpace& space, const PoissonSystem<Scalar, Mem>& s)
      : op_(spmv::SpmvAlgorithm::automatic, s.A, spmv::SpmvOptions{}, space) {}
  void apply(const ExecSpace&, const Kokkos::View<const Scalar*, Mem>& x,
             const Kokkos::View<Scalar*, Mem>& y) override {
    op_.apply(Scalar(1), x, Scalar(0), y);
  }
  FemTraffic traffic() const override {
    const spmv::SpmvTraffic t = op_.traffic(false);
    FemTraffic f;
    f.vector_bytes = static_cast<double>(op_.nrows() + op_.ncols()) * sizeof(Scalar);
    f.matrix_bytes = t.kernel_bytes - f.vector_bytes;
    f.model =
        "the SpMV algorithm's storage (CSR: values and column indices per entry, row pointers); x read and y "
        "written once";
    return f;
  }
  std::string parameters() const override { return op_.describe(); }

 private:
  mutable spmv::SpmvOperator<ExecSpace, Scalar, Mem> op_;
};

}  // namespace

template <class ExecSpace, class Scalar>
std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> make_poisson_kernel_csr(
    const ExecSpace& space, const PoissonSystem<Scalar, typename ExecSpace::memory_space>& system) {
  return std::make_unique<CsrKernel<ExecSpace, Scalar>>(space, system);
}
PPSPARSE_INSTANTIATE_POISSON_KERNEL(csr)

}  // namespace ppsparse::fem::detail

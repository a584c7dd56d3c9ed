// The local matrix approach (Reguly and Giles 2012): y = sum_e P_e^T K_e P_e x, one thread per
// element, the products scattered into y with atomic adds.
#include "lma_product.hpp"

namespace ppsparse::fem::detail {
namespace {

template <class ExecSpace, class Scalar>
class LmaAtomicKernel final : public PoissonKernel<ExecSpace, Scalar> {
 public:
  using Mem = typename ExecSpace::memory_space;
  LmaAtomicKernel(const ExecSpace&, const PoissonSystem<Scalar, Mem>& s)
      : m_(s.m),
        nnodes_(s.nnodes),
        nelements_(s.nelements),
        elem_nodes_(s.elem_nodes),
        local_(s.local),
        dirichlet_(s.dirichlet) {}
  void apply(const ExecSpace& space, const Kokkos::View<const Scalar*, Mem>& x,
             const Kokkos::View<Scalar*, Mem>& y) override {
    dirichlet_start(space, dirichlet_, x, y);
    const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>> elements(space, 0, nelements_);
    const size_t stride = static_cast<size_t>(nelements_);
    if (m_ == 4)
      Kokkos::parallel_for("ppsparse::fem_lma_atomic_p1", elements,
                           LmaProduct<Scalar, Mem, 4, true>{elem_nodes_, local_, x, y, stride, 0});
    else
      Kokkos::parallel_for("ppsparse::fem_lma_atomic_p2", elements,
                           LmaProduct<Scalar, Mem, 10, true>{elem_nodes_, local_, x, y, stride, 0});
  }
  FemTraffic traffic() const override {
    return elementwise_traffic(lma_matrix_bytes(nelements_, m_, sizeof(Scalar)), nnodes_, sizeof(Scalar),
                               "LMA: m x m values and m node ids per element");
  }

 private:
  int m_;
  ordinal_t nnodes_, nelements_;
  Kokkos::View<const ordinal_t*, Mem> elem_nodes_;  // the system's views, shared
  Kokkos::View<const Scalar*, Mem> local_;
  Kokkos::View<const char*, Mem> dirichlet_;
};

}  // namespace

template <class ExecSpace, class Scalar>
std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> make_poisson_kernel_lma_atomic(
    const ExecSpace& space, const PoissonSystem<Scalar, typename ExecSpace::memory_space>& system) {
  return std::make_unique<LmaAtomicKernel<ExecSpace, Scalar>>(space, system);
}
PPSPARSE_INSTANTIATE_POISSON_KERNEL(lma_atomic)

}  // namespace ppsparse::fem::detail

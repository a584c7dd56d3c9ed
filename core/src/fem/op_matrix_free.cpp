// The matrix-free element operator: each element's matrix recomputed from its four vertices
// inside the product (tet_element.hpp), so that only the node lists, the vertex
// coordinates and the vectors move; one thread per element, the products scattered into y with
// atomics (op_matrix_free_blocked.cpp gathers them per block of elements first).
#include "tet_element.hpp"

namespace ppsparse::fem::detail {
namespace {

template <class Scalar, class Mem, int M>
struct MatrixFreeProduct {
  Kokkos::View<const ordinal_t*, Mem> elem_nodes;
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> coords;
  Kokkos::View<const char*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> dirichlet;
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> reference;
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> x;
  Kokkos::View<Scalar*, Mem> y;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t e) const {
    ordinal_t node[M];
    Scalar xe[M], ye[M], p[4][3];
    bool fixed[M];
    for (int j = 0; j < M; ++j) {
      node[j] = elem_nodes(static_cast<size_t>(e) * M + j);
      fixed[j] = dirichlet(node[j]) != 0;
      xe[j] = fixed[j] ? Scalar(0) : x(node[j]);
    }
    for (int v = 0; v < 4; ++v)
      for (int r = 0; r < 3; ++r) p[v][r] = coords(3 * static_cast<size_t>(node[v]) + r);
    element_product<Scalar, M>(p, xe, reference, ye);
    for (int i = 0; i < M; ++i)
      if (!fixed[i]) Kokkos::atomic_add(&y(node[i]), ye[i]);
  }
};

template <class ExecSpace, class Scalar>
class MatrixFreeKernel final : public PoissonKernel<ExecSpace, Scalar> {
 public:
  using Mem = typename ExecSpace::memory_space;
  MatrixFreeKernel(const ExecSpace&, const PoissonSystem<Scalar, Mem>& s)
      : m_(s.m),
        nnodes_(s.nnodes),
        nelements_(s.nelements),
        nvertices_(s.nvertices),
        elem_nodes_(s.elem_nodes),
        coords_(s.coords),
        dirichlet_(s.dirichlet),
        reference_(s.reference) {}
  void apply(const ExecSpace& space, const Kokkos::View<const Scalar*, Mem>& x,
             const Kokkos::View<Scalar*, Mem>& y) override {
    dirichlet_start(space, dirichlet_, x, y);
    const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>> elements(space, 0, nelements_);
    if (m_ == 4)
      Kokkos::parallel_for("ppsparse::fem_matrix_free_p1", elements,
                           MatrixFreeProduct<Scalar, Mem, 4>{elem_nodes_, coords_, dirichlet_, reference_, x, y});
    else
      Kokkos::parallel_for("ppsparse::fem_matrix_free_p2", elements,
                           MatrixFreeProduct<Scalar, Mem, 10>{elem_nodes_, coords_, dirichlet_, reference_, x, y});
  }
  FemTraffic traffic() const override {
    const double bytes = static_cast<double>(nelements_) * m_ * sizeof(ordinal_t) +
                         3.0 * static_cast<double>(nvertices_) * sizeof(Scalar);
    return elementwise_traffic(bytes, nnodes_, sizeof(Scalar),
                               "matrix-free: m node ids per element, 3 coordinates per vertex");
  }

 private:
  int m_;
  ordinal_t nnodes_, nelements_, nvertices_;
  Kokkos::View<const ordinal_t*, Mem> elem_nodes_;
  Kokkos::View<const Scalar*, Mem> coords_;
  Kokkos::View<const char*, Mem> dirichlet_;
  Kokkos::View<const Scalar*, Mem> reference_;
};

}  // namespace

template <class ExecSpace, class Scalar>
std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> make_poisson_kernel_matrix_free(
    const ExecSpace& space, const PoissonSystem<Scalar, typename ExecSpace::memory_space>& system) {
  return std::make_unique<MatrixFreeKernel<ExecSpace, Scalar>>(space, system);
}
PPSPARSE_INSTANTIATE_POISSON_KERNEL(matrix_free)

}  // namespace ppsparse::fem::detail

// The matrix-free element operator: each element's matrix recomputed from its four vertices
// inside the product, so that only the node lists, the vertex coordinates and the vectors
// move. P1: K_ij = vol * grad(lambda_i) . grad(lambda_j), from the gradients of the barycentric
// coordinates (the rows of J^-1). P2: K_ij = |det J| * sum_ab C_ab R_ijab with C = J^-1 J^-T and
// the reference integrals R (PoissonSystem::reference). Products scattered with atomics.
#include "poisson_kernel.hpp"

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
    Scalar xe[M];
    bool fixed[M];
    for (int j = 0; j < M; ++j) {
      node[j] = elem_nodes(static_cast<size_t>(e) * M + j);
      fixed[j] = dirichlet(node[j]) != 0;
      xe[j] = fixed[j] ? Scalar(0) : x(node[j]);
    }
    Scalar p[4][3];
    for (int v = 0; v < 4; ++v)
      for (int r = 0; r < 3; ++r) p[v][r] = coords(3 * static_cast<size_t>(node[v]) + r);
    Scalar d[3][3];  // J's columns x1 - x0, x2 - x0, x3 - x0
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) d[c][r] = p[c + 1][r] - p[0][r];
    // grad lambda_{k+1} = (d_{k+1} x d_{k+2}) / det, cyclically: the rows of J^-1.
    Scalar g[4][3];
    for (int k = 0; k < 3; ++k) {
      const Scalar* a = d[(k + 1) % 3];
      const Scalar* b = d[(k + 2) % 3];
      g[k + 1][0] = a[1] * b[2] - a[2] * b[1];
      g[k + 1][1] = a[2] * b[0] - a[0] * b[2];
      g[k + 1][2] = a[0] * b[1] - a[1] * b[0];
    }
    const Scalar det = d[0][0] * g[1][0] + d[0][1] * g[1][1] + d[0][2] * g[1][2];
    const Scalar inv = Scalar(1) / det;
    for (int k = 1; k < 4; ++k)
      for (int r = 0; r < 3; ++r) g[k][r] *= inv;
    for (int r = 0; r < 3; ++r) g[0][r] = -(g[1][r] + g[2][r] + g[3][r]);
    const Scalar jacobian = det < 0 ? -det : det;
    Scalar ye[M];
    if constexpr (M == 4) {
      Scalar s[3] = {0, 0, 0};  // sum_j x_j grad lambda_j
      for (int j = 0; j < 4; ++j)
        for (int r = 0; r < 3; ++r) s[r] += xe[j] * g[j][r];
      const Scalar vol = jacobian / Scalar(6);
      for (int i = 0; i < 4; ++i) ye[i] = vol * (g[i][0] * s[0] + g[i][1] * s[1] + g[i][2] * s[2]);
    } else {
      Scalar C[3][3];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          C[a][b] = g[a + 1][0] * g[b + 1][0] + g[a + 1][1] * g[b + 1][1] + g[a + 1][2] * g[b + 1][2];
      for (int i = 0; i < M; ++i) {
        Scalar sum = 0;
        for (int j = 0; j < M; ++j) {
          const size_t at = static_cast<size_t>(i * M + j) * 9;
          Scalar k = 0;
          for (int ab = 0; ab < 9; ++ab) k += C[ab / 3][ab % 3] * reference(at + ab);
          sum += k * xe[j];
        }
        ye[i] = jacobian * sum;
      }
    }
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

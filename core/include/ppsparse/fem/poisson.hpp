#pragma once
/// @file
/// The finite element Poisson problem -div(grad u) = 1 on a tetrahedral mesh, u = 0 on the
/// Dirichlet boundary, in P1 or P2 (fem/tet_space.hpp). Its matrix is applied by interchangeable
/// operators (fem/operators.def) and solved by Jacobi-preconditioned conjugate gradients.
///
///   fem::TetSpace space = fem::make_tet_space(mesh, 1);
///   auto system = fem::make_poisson_system<double>(space);            // assembled, on the device
///   fem::PoissonOperator<> op(fem::PoissonOperatorKind::matrix_free, system);
///   op.apply(x, y);                                                   // y = A x
///   fem::CgResult r = fem::solve_cg(op, system.diagonal, system.rhs, u, 1e-8, 1000);  // A u = b
///
/// Storage, as Reguly and Giles (2012) compare it inside CG (docs/references.md):
/// - the global matrix approach (GMA): A assembled, in CSR (or converted to ELLPACK);
/// - the local matrix approach (LMA): each element's m x m matrix as computed, value-major
///   (entry (i, j) of element e at (i*m + j)*nelements + e, as ELLPACK stores a row), applied as
///   y = sum_e P_e^T K_e P_e x: a gather, the local products and a scatter;
/// - matrix-free: K_e recomputed from the element's vertices inside the product.
/// The Dirichlet nodes' rows and columns are those of the identity in A, zero in the local
/// matrices (the operators then copy x into y there).
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/fem/tet_space.hpp>
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::fem {

/// The problem on MemSpace: what every operator reads, assembled on the host from a TetSpace.
template <class Scalar, class MemSpace = DefaultMemSpace>
struct PoissonSystem {
  int order = 1;
  int m = 4;  ///< nodes per element (4 or 10)
  ordinal_t nnodes = 0, nelements = 0, nvertices = 0;
  Kokkos::View<ordinal_t*, MemSpace> elem_nodes;  ///< nelements * m, element-major (e*m + i)
  Kokkos::View<Scalar*, MemSpace> coords;         ///< 3 * nvertices
  Kokkos::View<Scalar*, MemSpace> local;          ///< m*m*nelements, value-major (see above)
  CsrMatrix<Scalar, MemSpace> A;                  ///< assembled, sorted columns
  Kokkos::View<char*, MemSpace> dirichlet;        ///< per node
  Kokkos::View<Scalar*, MemSpace> diagonal;       ///< A's diagonal (Jacobi)
  Kokkos::View<Scalar*, MemSpace> rhs;            ///< b_i = integral of the basis function i; 0 at Dirichlet nodes
  Kokkos::View<Scalar*, MemSpace> reference;      ///< 4*m*3: the reference gradients d phi_i / d xi_a at the
                                                  ///< 4-point rule's points (weights 1/24), at (q*m + i)*3 + a
  std::vector<ordinal_t> host_elem_nodes;         ///< elem_nodes on the host (element colourings)
};

/// Computes every element's matrix (exact: the integrands are polynomials of degree <= 2, and a
/// 4-point rule is exact for them), assembles A and b, and copies them to MemSpace.
template <class Scalar, class MemSpace = DefaultMemSpace>
PoissonSystem<Scalar, MemSpace> make_poisson_system(const TetSpace& space);

/// The operators, declared in fem/operators.def.
enum class PoissonOperatorKind {
#define PPSPARSE_FEM_OPERATOR(id, summary) id,
#include <ppsparse/fem/operators.def>
#undef PPSPARSE_FEM_OPERATOR
};
const char* name(PoissonOperatorKind k);
/// InvalidArgument listing the names.
PoissonOperatorKind parse_poisson_operator(const std::string& s);
const std::vector<PoissonOperatorKind>& all_poisson_operators();

/// The bytes one product moves at least (each array once; x read once, y written once), by
/// the operator's own storage.
struct FemTraffic {
  double matrix_bytes = 0;  ///< values, indices, coordinates: what the operator stores
  double vector_bytes = 0;  ///< x read, y written, the Dirichlet mask
  double total() const { return matrix_bytes + vector_bytes; }
  std::string model;  ///< the terms, in words
};

template <class ExecSpace, class Scalar>
class PoissonKernel;

/// y = A x by one of the operators, on ExecSpace. The setup (an ELLPACK conversion, an element
/// colouring, the SpMV algorithm's own) is timed: setup_seconds().
template <class ExecSpace = DefaultExecSpace, class Scalar = double>
class PoissonOperator {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using ConstVector = Kokkos::View<const Scalar*, memory_space>;
  using Vector = Kokkos::View<Scalar*, memory_space>;

  PoissonOperator(PoissonOperatorKind kind, const PoissonSystem<Scalar, memory_space>& system,
                  const ExecSpace& space = ExecSpace());
  ~PoissonOperator();
  PoissonOperator(PoissonOperator&&) noexcept;
  PoissonOperator& operator=(PoissonOperator&&) noexcept;

  /// y = A x (x and y of nnodes entries; InvalidArgument otherwise), enqueued on the space.
  void apply(const ConstVector& x, const Vector& y) const;
  PoissonOperatorKind kind() const { return kind_; }
  ordinal_t nnodes() const { return nnodes_; }
  const ExecSpace& space() const { return space_; }
  double setup_seconds() const { return setup_seconds_; }
  FemTraffic traffic() const;
  /// The operator's name and parameters, e.g. "ell (width 27)".
  std::string describe() const;

 private:
  PoissonOperatorKind kind_;
  ExecSpace space_;
  ordinal_t nnodes_ = 0;
  double setup_seconds_ = 0;
  std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> kernel_;
};

/// What solve_cg did.
struct CgResult {
  int iterations = 0;
  double initial_residual = 0, final_residual = 0;  ///< ||b - A u||, true residuals
  bool converged = false;
};

/// Jacobi-preconditioned conjugate gradients on A u = b through op, from the u given, until
/// ||r|| <= rtol * ||b - A u0|| or max_iterations; the BLAS-1 steps are Kokkos Kernels'.
/// InvalidArgument for sizes or settings (rtol not in (0, 1), max_iterations < 1).
template <class ExecSpace, class Scalar>
CgResult solve_cg(const PoissonOperator<ExecSpace, Scalar>& op,
                  const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& diagonal,
                  const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& b,
                  const Kokkos::View<Scalar*, typename ExecSpace::memory_space>& u, double rtol, int max_iterations);

}  // namespace ppsparse::fem

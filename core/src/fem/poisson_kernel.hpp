#pragma once
// What PoissonOperator dispatches to (private to the library): one PoissonKernel per operator
// of ppsparse/fem/operators.def, holding the operator's own storage. Adding an operator: a
// functor file core/src/fem/op_<id>.cpp that defines make_poisson_kernel_<id> (instantiated with
// PPSPARSE_INSTANTIATE_POISSON_KERNEL), and one line in operators.def.
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/fem/poisson.hpp>

#include "../util/to_device.hpp"

namespace ppsparse::fem {

template <class ExecSpace, class Scalar>
class PoissonKernel {
 public:
  using Mem = typename ExecSpace::memory_space;
  virtual ~PoissonKernel() = default;
  // y = A x on space (sizes checked by PoissonOperator).
  virtual void apply(const ExecSpace& space, const Kokkos::View<const Scalar*, Mem>& x,
                     const Kokkos::View<Scalar*, Mem>& y) = 0;
  virtual FemTraffic traffic() const = 0;
  // What follows the operator's name in describe() (may be empty).
  virtual std::string parameters() const { return {}; }
};

namespace detail {

#define PPSPARSE_FEM_OPERATOR(id, summary)                                    \
  template <class ExecSpace, class Scalar>                                    \
  std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> make_poisson_kernel_##id( \
      const ExecSpace& space, const PoissonSystem<Scalar, typename ExecSpace::memory_space>& system);
#include <ppsparse/fem/operators.def>
#undef PPSPARSE_FEM_OPERATOR

#define PPSPARSE_INSTANTIATE_POISSON_KERNEL_FOR(id, S)                                                        \
  template std::unique_ptr<PoissonKernel<DefaultExecSpace, S>> make_poisson_kernel_##id<DefaultExecSpace, S>( \
      const DefaultExecSpace&, const PoissonSystem<S, DefaultMemSpace>&);
#define PPSPARSE_INSTANTIATE_POISSON_KERNEL(id)      \
  PPSPARSE_INSTANTIATE_POISSON_KERNEL_FOR(id, float) \
  PPSPARSE_INSTANTIATE_POISSON_KERNEL_FOR(id, double)

// A host array's copy on Mem (the setups' arrays).
using util::to_device;

// y(i) = x(i) at Dirichlet nodes, 0 elsewhere: the start of the element-wise products, which
// then add the interior rows (the local matrices' Dirichlet rows and columns are zero).
template <class Scalar, class Mem>
struct DirichletStart {
  Kokkos::View<const char*, Mem> dirichlet;
  Kokkos::View<const Scalar*, Mem> x;
  Kokkos::View<Scalar*, Mem> y;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const { y(i) = dirichlet(i) ? x(i) : Scalar(0); }
};

template <class ExecSpace, class Scalar>
void dirichlet_start(const ExecSpace& space,
                     const Kokkos::View<const char*, typename ExecSpace::memory_space>& dirichlet,
                     const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& x,
                     const Kokkos::View<Scalar*, typename ExecSpace::memory_space>& y) {
  Kokkos::parallel_for(
      "ppsparse::fem_dirichlet_start",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, static_cast<ordinal_t>(y.extent(0))),
      DirichletStart<Scalar, typename ExecSpace::memory_space>{dirichlet, x, y});
}

// The element-wise operators' vector terms: x read and y written once, the Dirichlet mask read.
inline FemTraffic elementwise_traffic(double matrix_bytes, ordinal_t nnodes, size_t scalar_bytes,
                                      const std::string& matrix_model) {
  FemTraffic t;
  t.matrix_bytes = matrix_bytes;
  t.vector_bytes = static_cast<double>(nnodes) * (2.0 * scalar_bytes + 1.0);
  t.model = matrix_model + "; x read and y written once, the Dirichlet mask (1 B per node)";
  return t;
}

}  // namespace detail
}  // namespace ppsparse::fem

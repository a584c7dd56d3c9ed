// The local matrix approach without atomics: the elements coloured so that no two of a colour
// share a node (greedy, at setup, on the host), their matrices and node lists copied into
// colour order, one launch per colour (Reguly and Giles 2012's alternative where atomics are
// slow).
#include <algorithm>
#include <vector>

#include <ppsparse/error.hpp>

#include "lma_product.hpp"

namespace ppsparse::fem::detail {
namespace {

template <class Scalar, class Mem>
struct GatherLocal {  // out(k*ne + t) = in(k*ne + order(t)) for the m*m entries k
  Kokkos::View<const Scalar*, Mem> in;
  Kokkos::View<Scalar*, Mem> out;
  Kokkos::View<const ordinal_t*, Mem> order;
  size_t ne;
  int mm;
  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t t) const {
    const size_t e = static_cast<size_t>(order(t));
    for (int k = 0; k < mm; ++k) out(k * ne + t) = in(k * ne + e);
  }
};

template <class ExecSpace, class Scalar>
class LmaColoredKernel final : public PoissonKernel<ExecSpace, Scalar> {
 public:
  using Mem = typename ExecSpace::memory_space;
  LmaColoredKernel(const ExecSpace& space, const PoissonSystem<Scalar, Mem>& s)
      : m_(s.m), nnodes_(s.nnodes), nelements_(s.nelements), dirichlet_(s.dirichlet) {
    // Greedy: colour c takes, in element order, every element none of whose nodes a colour-c
    // element already holds.
    const int m = s.m;
    const ordinal_t ne = s.nelements;
    const auto& nodes = s.host_elem_nodes;
    std::vector<ordinal_t> color(static_cast<size_t>(ne), -1), stamp(static_cast<size_t>(s.nnodes), -1), order;
    order.reserve(static_cast<size_t>(ne));
    offsets_.assign(1, 0);
    for (ordinal_t c = 0; static_cast<ordinal_t>(order.size()) < ne; ++c) {
      for (ordinal_t e = 0; e < ne; ++e) {
        if (color[e] >= 0) continue;
        const ordinal_t* v = &nodes[static_cast<size_t>(e) * m];
        if (std::any_of(v, v + m, [&](ordinal_t node) { return stamp[node] == c; })) continue;
        for (int i = 0; i < m; ++i) stamp[v[i]] = c;
        color[e] = c;
        order.push_back(e);
      }
      offsets_.push_back(static_cast<ordinal_t>(order.size()));
    }
    std::vector<ordinal_t> ordered_nodes(nodes.size());
    for (size_t t = 0; t < order.size(); ++t)
      std::copy_n(&nodes[static_cast<size_t>(order[t]) * m], m, &ordered_nodes[t * m]);
    elem_nodes_ = to_device<ordinal_t, Mem>(ordered_nodes, "fem.lma_colored.elem_nodes");
    const auto order_d = to_device<ordinal_t, Mem>(order, "fem.lma_colored.order");
    local_ = Kokkos::View<Scalar*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "fem.lma_colored.local"),
                                        s.local.extent(0));
    Kokkos::parallel_for("ppsparse::fem_lma_colored_reorder",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>(space, 0, ne),
                         GatherLocal<Scalar, Mem>{s.local, local_, order_d, static_cast<size_t>(ne), m * m});
  }
  void apply(const ExecSpace& space, const Kokkos::View<const Scalar*, Mem>& x,
             const Kokkos::View<Scalar*, Mem>& y) override {
    dirichlet_start(space, dirichlet_, x, y);
    const size_t stride = static_cast<size_t>(nelements_);
    for (size_t c = 0; c + 1 < offsets_.size(); ++c) {
      const Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>> colour(space, 0,
                                                                                offsets_[c + 1] - offsets_[c]);
      if (m_ == 4)
        Kokkos::parallel_for("ppsparse::fem_lma_colored_p1", colour,
                             LmaProduct<Scalar, Mem, 4, false>{elem_nodes_, local_, x, y, stride, offsets_[c]});
      else
        Kokkos::parallel_for("ppsparse::fem_lma_colored_p2", colour,
                             LmaProduct<Scalar, Mem, 10, false>{elem_nodes_, local_, x, y, stride, offsets_[c]});
    }
  }
  FemTraffic traffic() const override {
    return elementwise_traffic(lma_matrix_bytes(nelements_, m_, sizeof(Scalar)), nnodes_, sizeof(Scalar),
                               "LMA: m x m values and m node ids per element");
  }
  std::string parameters() const override { return std::to_string(offsets_.size() - 1) + " element colours"; }

 private:
  int m_;
  ordinal_t nnodes_, nelements_;
  Kokkos::View<const char*, Mem> dirichlet_;
  std::vector<ordinal_t> offsets_;  // colour c: elements [offsets_[c], offsets_[c + 1]) in colour order
  Kokkos::View<ordinal_t*, Mem> elem_nodes_;
  Kokkos::View<Scalar*, Mem> local_;
};

}  // namespace

template <class ExecSpace, class Scalar>
std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> make_poisson_kernel_lma_colored(
    const ExecSpace& space, const PoissonSystem<Scalar, typename ExecSpace::memory_space>& system) {
  return std::make_unique<LmaColoredKernel<ExecSpace, Scalar>>(space, system);
}
PPSPARSE_INSTANTIATE_POISSON_KERNEL(lma_colored)

}  // namespace ppsparse::fem::detail

// The matrix-free element operator by blocks of elements: a team per block of consecutive
// elements gathers the block's distinct nodes (x, vertex coordinates) into scratch memory once,
// each thread recomputes one element's matrix and applies it (tet_element.hpp) into
// scratch, then each of the block's nodes sums its elements' contributions (a block-local
// incidence list, no atomics in scratch) and is added into y once. Against one thread per element
// with an atomic per element node (op_matrix_free.cpp), the global atomics fall from m per
// element to the block's distinct nodes, and the node lists shrink to 2-byte positions.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#include <ppsparse/kokkos_compat.hpp>

#include "tet_element.hpp"

namespace ppsparse::fem::detail {
namespace {

template <class ExecSpace, class Scalar, int M>
struct BlockedProduct {
  using Mem = typename ExecSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using ScratchValues = Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Kokkos::View<const offset_t*, Mem> block_ptr;  // block b's nodes: block_nodes[block_ptr[b] .. block_ptr[b + 1])
  Kokkos::View<const ordinal_t*, Mem> block_nodes;
  Kokkos::View<const std::uint16_t*, Mem> elem_local;  // e*M + i: the position of the node in its block's list
  Kokkos::View<const std::uint16_t*, Mem> incidence;   // per block, by node: the t*M + i where it appears
  Kokkos::View<const std::uint16_t*, Mem> node_end;    // per block node: the end of its incidence list
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> coords;
  Kokkos::View<const char*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> dirichlet;
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> reference;
  Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::RandomAccess>> x;
  Kokkos::View<Scalar*, Mem> y;
  ordinal_t nelements, nvertices;
  int block_elements, max_block_nodes;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const ordinal_t b = team.league_rank();
    const offset_t first = block_ptr(b);
    const int count = static_cast<int>(block_ptr(b + 1) - first);
    const ScratchValues sx(team.team_scratch(0), static_cast<size_t>(max_block_nodes));
    const ScratchValues sp(team.team_scratch(0), 3 * static_cast<size_t>(max_block_nodes));
    const ScratchValues sy(team.team_scratch(0), static_cast<size_t>(block_elements) * M);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int k) {
      const ordinal_t g = block_nodes(first + k);
      sx(k) = dirichlet(g) ? Scalar(0) : x(g);
      if (g < nvertices)
        for (int r = 0; r < 3; ++r) sp(3 * k + r) = coords(3 * static_cast<size_t>(g) + r);
    });
    team.team_barrier();
    const ordinal_t e0 = b * block_elements;
    const ordinal_t left = nelements - e0;
    const int ne = static_cast<int>(left < block_elements ? left : static_cast<ordinal_t>(block_elements));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ne), [&](const int t) {
      const size_t e = static_cast<size_t>(e0) + t;
      int local[M];
      Scalar xe[M], ye[M], p[4][3];
      for (int j = 0; j < M; ++j) {
        local[j] = elem_local(e * M + j);
        xe[j] = sx(local[j]);
      }
      for (int v = 0; v < 4; ++v)
        for (int r = 0; r < 3; ++r) p[v][r] = sp(3 * local[v] + r);
      element_product<Scalar, M>(p, xe, reference, ye);
      for (int i = 0; i < M; ++i) sy(t * M + i) = ye[i];
    });
    team.team_barrier();
    // Node k's contributions: incidence[e0*M + node_end(first + k - 1) .. e0*M + node_end(first + k)).
    const size_t base = static_cast<size_t>(e0) * M;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int k) {
      const ordinal_t g = block_nodes(first + k);
      const int begin = k == 0 ? 0 : node_end(first + k - 1), end = node_end(first + k);
      Scalar sum = 0;
      for (int q = begin; q < end; ++q) sum += sy(incidence(base + q));
      if (!dirichlet(g)) Kokkos::atomic_add(&y(g), sum);
    });
  }
};

template <class ExecSpace, class Scalar>
class MatrixFreeBlockedKernel final : public PoissonKernel<ExecSpace, Scalar> {
 public:
  using Mem = typename ExecSpace::memory_space;
  MatrixFreeBlockedKernel(const ExecSpace&, const PoissonSystem<Scalar, Mem>& s)
      : m_(s.m),
        nnodes_(s.nnodes),
        nelements_(s.nelements),
        nvertices_(s.nvertices),
        coords_(s.coords),
        dirichlet_(s.dirichlet),
        reference_(s.reference) {
    // A team's elements: one per thread on GPUs (fewer for P2, whose threads hold more).
    block_elements_ = m_ == 4 ? 128 : 64;
    nblocks_ = (nelements_ + block_elements_ - 1) / block_elements_;
    std::vector<offset_t> ptr(static_cast<size_t>(nblocks_) + 1, 0);
    std::vector<ordinal_t> nodes;
    std::vector<std::uint16_t> local(s.host_elem_nodes.size()), incidence(s.host_elem_nodes.size()), ends;
    std::vector<ordinal_t> distinct;
    for (ordinal_t b = 0; b < nblocks_; ++b) {
      const size_t e0 = static_cast<size_t>(b) * block_elements_;
      const size_t e1 = std::min(e0 + block_elements_, static_cast<size_t>(nelements_));
      distinct.assign(s.host_elem_nodes.begin() + e0 * m_, s.host_elem_nodes.begin() + e1 * m_);
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      for (size_t k = e0 * m_; k < e1 * m_; ++k)
        local[k] = static_cast<std::uint16_t>(std::lower_bound(distinct.begin(), distinct.end(), s.host_elem_nodes[k]) -
                                              distinct.begin());
      // By node (counting sort of the block's element-node pairs): where each node appears.
      std::vector<int> fill(distinct.size() + 1, 0);
      for (size_t k = e0 * m_; k < e1 * m_; ++k) ++fill[local[k] + 1];
      for (size_t k = 0; k < distinct.size(); ++k) {
        fill[k + 1] += fill[k];
        ends.push_back(static_cast<std::uint16_t>(fill[k + 1]));
      }
      for (size_t k = e0 * m_; k < e1 * m_; ++k)
        incidence[e0 * m_ + fill[local[k]]++] = static_cast<std::uint16_t>(k - e0 * m_);
      nodes.insert(nodes.end(), distinct.begin(), distinct.end());
      ptr[b + 1] = static_cast<offset_t>(nodes.size());
      max_block_nodes_ = std::max(max_block_nodes_, static_cast<int>(distinct.size()));
    }
    block_ptr_ = to_device<offset_t, Mem>(ptr, "fem.matrix_free_blocked.block_ptr");
    block_nodes_ = to_device<ordinal_t, Mem>(nodes, "fem.matrix_free_blocked.block_nodes");
    elem_local_ = to_device<std::uint16_t, Mem>(local, "fem.matrix_free_blocked.elem_local");
    incidence_ = to_device<std::uint16_t, Mem>(incidence, "fem.matrix_free_blocked.incidence");
    node_end_ = to_device<std::uint16_t, Mem>(ends, "fem.matrix_free_blocked.node_end");
  }
  void apply(const ExecSpace& space, const Kokkos::View<const Scalar*, Mem>& x,
             const Kokkos::View<Scalar*, Mem>& y) override {
    dirichlet_start(space, dirichlet_, x, y);
    if (nblocks_ == 0) return;
    if (m_ == 4)
      launch<4>(space, x, y);
    else
      launch<10>(space, x, y);
  }
  FemTraffic traffic() const override {
    const double bytes = 2.0 * static_cast<double>(nelements_) * m_ * sizeof(std::uint16_t) +
                         static_cast<double>(block_nodes_.extent(0)) * (sizeof(ordinal_t) + sizeof(std::uint16_t)) +
                         3.0 * static_cast<double>(nvertices_) * sizeof(Scalar);
    return elementwise_traffic(
        bytes, nnodes_, sizeof(Scalar),
        "matrix-free by blocks: m 2-byte node positions and m 2-byte incidences per element, each "
        "block's node list and incidence ends, 3 coordinates per vertex");
  }
  std::string parameters() const override {
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.1f",
                  static_cast<double>(block_nodes_.extent(0)) / std::max<ordinal_t>(1, nblocks_));
    return std::to_string(block_elements_) + " elements per block, " + mean + " nodes per block on average";
  }

 private:
  template <int M>
  void launch(const ExecSpace& space, const Kokkos::View<const Scalar*, Mem>& x, const Kokkos::View<Scalar*, Mem>& y) {
    using Functor = BlockedProduct<ExecSpace, Scalar, M>;
    const int team = compat::is_gpu_space<ExecSpace>() ? block_elements_ : 1;
    const size_t scratch = Functor::ScratchValues::shmem_size(static_cast<size_t>(max_block_nodes_)) +
                           Functor::ScratchValues::shmem_size(3 * static_cast<size_t>(max_block_nodes_)) +
                           Functor::ScratchValues::shmem_size(static_cast<size_t>(block_elements_) * M);
    Kokkos::parallel_for("ppsparse::fem_matrix_free_blocked",
                         Kokkos::TeamPolicy<ExecSpace>(space, nblocks_, team)
                             .set_scratch_size(0, Kokkos::PerTeam(static_cast<int>(scratch))),
                         Functor{block_ptr_, block_nodes_, elem_local_, incidence_, node_end_, coords_, dirichlet_,
                                 reference_, x, y, nelements_, nvertices_, block_elements_, max_block_nodes_});
  }

  int m_;
  ordinal_t nnodes_, nelements_, nvertices_, nblocks_ = 0;
  int block_elements_ = 128, max_block_nodes_ = 0;
  Kokkos::View<const Scalar*, Mem> coords_;
  Kokkos::View<const char*, Mem> dirichlet_;
  Kokkos::View<const Scalar*, Mem> reference_;
  Kokkos::View<offset_t*, Mem> block_ptr_;
  Kokkos::View<ordinal_t*, Mem> block_nodes_;
  Kokkos::View<std::uint16_t*, Mem> elem_local_, incidence_, node_end_;
};

}  // namespace

template <class ExecSpace, class Scalar>
std::unique_ptr<PoissonKernel<ExecSpace, Scalar>> make_poisson_kernel_matrix_free_blocked(
    const ExecSpace& space, const PoissonSystem<Scalar, typename ExecSpace::memory_space>& system) {
  return std::make_unique<MatrixFreeBlockedKernel<ExecSpace, Scalar>>(space, system);
}
PPSPARSE_INSTANTIATE_POISSON_KERNEL(matrix_free_blocked)

}  // namespace ppsparse::fem::detail

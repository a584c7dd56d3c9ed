#include <KokkosGraph_RCM.hpp>
#include <ppsparse/reorder/rcm.hpp>

namespace ppsparse {

Permutation rcm(const Graph& g) {
  validate(g, "rcm: graph");
  using host_device = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using rowmap_t = Kokkos::View<const offset_t*, Kokkos::HostSpace, unmanaged>;
  using entries_t = Kokkos::View<const ordinal_t*, Kokkos::HostSpace, unmanaged>;
  using labels_t = Kokkos::View<ordinal_t*, Kokkos::HostSpace>;  // owning: graph_rcm allocates it
  const rowmap_t rowmap(g.row_ptr.data(), g.row_ptr.size());
  const entries_t entries(g.adj.data(), g.adj.size());
  // graph_rcm returns, for each old vertex, its new index.
  const labels_t labels =
      KokkosGraph::Experimental::graph_rcm<host_device, rowmap_t, entries_t, labels_t>(rowmap, entries);
  return Permutation::from_old_to_new(std::vector<ordinal_t>(labels.data(), labels.data() + labels.extent(0)));
}

}  // namespace ppsparse

// The distributed MCPI's packing of boundary rows into a send buffer (mcpi/distributed.hpp).
#include <ppsparse/mcpi/distributed.hpp>

namespace ppsparse::mcpi::impl {

template <class ExecSpace, class XScalar>
void halo_pack(const ExecSpace& exec, const Kokkos::View<ordinal_t*, typename ExecSpace::memory_space>& rows,
               offset_t s0, offset_t s1, int nb, const Kokkos::View<XScalar*, typename ExecSpace::memory_space>& dq,
               const Kokkos::View<XScalar*, typename ExecSpace::memory_space>& buf) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::halo_pack", Kokkos::RangePolicy<ExecSpace>(exec, 0, static_cast<size_t>((s1 - s0) * nb)),
      KOKKOS_LAMBDA(const size_t q) {
        buf(q) = dq(static_cast<size_t>(rows(static_cast<size_t>(s0) + q / nb)) * nb + q % nb);
      });
}

using Mem = DefaultExecSpace::memory_space;
template void halo_pack<DefaultExecSpace, float>(const DefaultExecSpace&, const Kokkos::View<ordinal_t*, Mem>&,
                                                 offset_t, offset_t, int, const Kokkos::View<float*, Mem>&,
                                                 const Kokkos::View<float*, Mem>&);
template void halo_pack<DefaultExecSpace, double>(const DefaultExecSpace&, const Kokkos::View<ordinal_t*, Mem>&,
                                                  offset_t, offset_t, int, const Kokkos::View<double*, Mem>&,
                                                  const Kokkos::View<double*, Mem>&);

}  // namespace ppsparse::mcpi::impl

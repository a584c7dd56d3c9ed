// mcpi::VendorPeer, the cuSPARSE + cuBLAS baseline of the benchmarks: on CUDA builds its sweeps
// agree with the FP64 host reference block row by block row; elsewhere it refuses clearly. The
// input check it shares with the Kokkos Kernels peer is exercised on every build.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/block_system.hpp>
#include <ppsparse/gen/mesh_graph.hpp>
#include "../../core/src/mcpi/block_lu.hpp"  // the LU the solver uses, to factor the peer's D
#include <ppsparse/mcpi/reference.hpp>
#include <ppsparse/peers/mcpi_vendor_peer.hpp>
#include <ppsparse/reorder/coloring.hpp>
#include <ppsparse/reorder/permutation.hpp>

#include "test_util.hpp"

namespace ppsparse::mcpi {
namespace {

using Mem = VendorPeer::memory_space;

struct PeerInput {
  BlockSystem<HostSpace> ordered;  // colour order, D not factored (the reference's input)
  BlockSystem<Mem> device;         // the same on the device, D factored (the peer's input)
  std::vector<ordinal_t> color_offsets;
};

PeerInput peer_input(int nb, std::uint64_t seed) {
  const Graph graph = gen::tet_mesh_graph(5, 4, 4);
  const Coloring col = color_distance1(graph);
  PeerInput in;
  in.ordered = permute(gen::make_block_system(graph, nb, seed), col.perm);
  in.device = copy_to<Mem>(in.ordered);
  const long long failure = factor_diagonal_blocks<DefaultExecSpace>(in.device.D, nb, in.device.n);
  EXPECT_LT(failure, 0) << "a diagonal block failed to factor";
  in.device.d_factored = true;
  in.color_offsets = col.color_offsets;
  return in;
}

TEST(McpiVendorPeer, SweepsMatchTheFp64ReferenceOrRefuse) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  if (!VendorPeer::available()) {
    EXPECT_EQ(VendorPeer::library(), "none");
    const PeerInput in = peer_input(3, seed);
    VendorPeer peer;
    PPSPARSE_EXPECT_THROW_MESSAGE(peer.setup(in.device, in.color_offsets), InvalidArgument,
                                  "mcpi VendorPeer: no vendor sparse/BLAS libraries on this backend (" +
                                      std::string(compat::default_backend_name()) + ")");
    GTEST_SKIP() << "no vendor libraries on " << compat::default_backend_name() << ": refusal checked";
  }
  // nb = 1 takes cusparseSpMV on CSR, the others cusparseSbsrmv; 17 and 64 more than a warp.
  for (int nb : {1, 2, 5, 17, 64}) {
    SCOPED_TRACE("nb=" + std::to_string(nb) + " " + VendorPeer::library());
    const PeerInput in = peer_input(nb, seed + nb);
    VendorPeer peer;
    peer.setup(in.device, in.color_offsets);
    EXPECT_FALSE(peer.describe().empty());
    for (int sweeps : {1, 3}) {
      peer.reset();
      for (int s = 0; s < sweeps; ++s) peer.sweep();
      Kokkos::fence();
      const auto dq_device = peer.dq();
      const auto dq_host = Kokkos::create_mirror_view_and_copy(HostSpace(), dq_device);
      const std::vector<double> dq(dq_host.data(), dq_host.data() + dq_host.extent(0));
      const std::vector<double> ref = reference_sweeps(in.ordered, in.color_offsets, sweeps);
      ASSERT_EQ(dq.size(), ref.size());
      // FP32 O and dQ against FP64: the solver's own tolerance.
      EXPECT_LT(max_block_row_error(dq, ref, nb), kBlockRowTolerance) << sweeps << " sweeps";
    }
  }
}

TEST(McpiVendorPeer, BadSystemsAreRefusedWithTheirReason) {
  const PeerInput in = peer_input(3, test::test_seed());
  const std::string who = "peer";
  auto unfactored = in.device;
  unfactored.d_factored = false;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_color_ordered_system(who, unfactored, in.color_offsets), InvalidArgument,
                                "peer: D must hold its LU factors (d_factored is false)");
  auto wide = in.device;
  wide.nb = 65;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_color_ordered_system(who, wide, in.color_offsets), InvalidArgument,
                                "peer: block size nb = 65 is outside [1, 64]");
  auto short_r = in.device;
  short_r.R = Kokkos::View<double*, Mem>("R", 7);
  PPSPARSE_EXPECT_THROW_MESSAGE(
      check_color_ordered_system(who, short_r, in.color_offsets), InvalidArgument,
      "peer: the system's extents disagree (n = 80, nb = 3, O 80 x 80 blocks of 3, D 720 and R 7 entries)");
  std::vector<ordinal_t> offsets = in.color_offsets;
  offsets.back() -= 1;
  PPSPARSE_EXPECT_THROW_MESSAGE(check_color_ordered_system(who, in.device, offsets), InvalidArgument,
                                "peer: colour offsets must run from 0 to n = 80");
  offsets = in.color_offsets;
  ASSERT_GE(offsets.size(), 4u);
  std::swap(offsets[1], offsets[2]);
  PPSPARSE_EXPECT_THROW_MESSAGE(check_color_ordered_system(who, in.device, offsets), InvalidArgument,
                                "peer: colour offsets decrease at colour 1");
}

}  // namespace
}  // namespace ppsparse::mcpi

// The portable fallbacks of the MCPI family's backend hooks (mcpi/backend.hpp): on a host
// execution space it has no kernel of the backend's own, and calling one anyway is a clear error
// naming the kernel and the space.
#include <gtest/gtest.h>

#include <string>

#include <ppsparse/mcpi/backend.hpp>

#include "test_util.hpp"

namespace ppsparse {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

TEST(FamilyHooks, HostSpacesHaveNoBackendKernels) {
  for (const auto k : mcpi::all_kernels()) EXPECT_FALSE(mcpi::backend::has_kernel(Host(), k, 5)) << mcpi::name(k);
  for (const auto f : mcpi::all_o_formats())
    EXPECT_FALSE(mcpi::backend::has_residual_kernel(Host(), mcpi::Kernel::rows_per_warp, 5, f)) << mcpi::name(f);
}

TEST(FamilyHooks, RunningAMissingBackendKernelNamesItAndTheSpace) {
  const std::string space = Host::name();
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mcpi::backend::run(Host(), mcpi::Variant(mcpi::Kernel::split), mcpi::backend::ColorArgs{}, mcpi::KernelTuning{}),
      InvalidArgument, "mcpi backend: no specialised kernel for split on " + space);
}

}  // namespace
}  // namespace ppsparse

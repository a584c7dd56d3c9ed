// The portable fallbacks of the kernel families' backend hooks (mcpi/backend.hpp,
// spmv/backend.hpp, mpk/backend.hpp): on a host execution space no family has a kernel of the
// backend's own, and calling one anyway is a clear error naming the member and the space.
#include <gtest/gtest.h>

#include <string>

#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mpk/backend.hpp>
#include <ppsparse/spmv/backend.hpp>

#include "test_util.hpp"

namespace ppsparse {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

TEST(FamilyHooks, HostSpacesHaveNoBackendKernels) {
  for (const auto k : mcpi::all_kernels()) EXPECT_FALSE(mcpi::backend::has_kernel(Host(), k, 5)) << mcpi::name(k);
  for (const auto a : spmv::all_spmv_algorithms())
    EXPECT_FALSE(spmv::backend::has_kernel<double>(Host(), a, spmv::SpmvOptions{})) << spmv::to_string(a);
  for (const auto v : mpk::concrete_variants()) EXPECT_FALSE(mpk::backend::has_kernel<double>(Host(), v));
}

TEST(FamilyHooks, RunningAMissingBackendKernelNamesItAndTheSpace) {
  const std::string space = Host::name();
  PPSPARSE_EXPECT_THROW_MESSAGE(
      spmv::backend::run(Host(), spmv::SpmvAlgorithm::sell, spmv::backend::CsrProduct<double>{}), InvalidArgument,
      "spmv backend: no kernel of its own for sell on " + space);
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mpk::backend::run(Host(), mpk::MpkVariant::pipelined, mpk::backend::PowerProducts<float>{}), InvalidArgument,
      "mpk backend: no kernel of its own for pipelined on " + space);
  PPSPARSE_EXPECT_THROW_MESSAGE(
      mcpi::backend::run(Host(), mcpi::Variant(mcpi::Kernel::split), mcpi::backend::ColorArgs{}, mcpi::KernelTuning{}),
      InvalidArgument, "mcpi backend: no specialised kernel for split on " + space);
}

}  // namespace
}  // namespace ppsparse

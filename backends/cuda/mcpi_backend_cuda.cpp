// CUDA specialisations of the MCPI kernels (the 11_x and 16_x kernels of Walden et al. 2021) and the persisting-L2
// window, implementing core's mcpi/backend.hpp: the features, which kernels exist, and run, which hands a colour
// to launch_colour (mcpi/colour_launch_impl.hpp) for D's factors in FP64 or FP32. Compiled by nvcc
// (nvcc_wrapper) only.
//
// Compared with the portable functors, a warp keeps its partial sums and the substitution in
// registers (warp shuffles instead of scratch phases), unrolls blocks so that their ja -> dQ
// chains overlap, gathers one dQ value per block (column-wise mapping), gives small colours a
// kernel that spreads a row's blocks over the warp, and, in the _async variants, copies its D
// blocks to shared memory with cp.async (__pipeline_memcpy_async) while the SpMV loads are in
// flight. Those kernels cover nb <= 15 (a row's NB partial sums or NB^2 / 32 entries per
// lane); nb 16..64 run wide_block_kernel, one warp per block row with one or two rows per
// lane (in colours of few rows, four warps per block row). Every nb of the solver (1..64)
// thus has a kernel for rows_per_warp and warp_per_row.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>

#include "mcpi/colour_launch.hpp"

namespace ppsparse::mcpi::backend {
namespace {

using namespace cuda;

// An attribute of a device (0 if it cannot be read), cached per device: read once per device
// and attribute, not on every colour.
int device_attribute(const int device, const cudaDeviceAttr attr) {
  constexpr int kMaxDevices = 64;
  static int cached[kMaxDevices][2] = {};
  const int slot = attr == cudaDevAttrMultiProcessorCount ? 0 : attr == cudaDevAttrComputeCapabilityMajor ? 1 : -1;
  if (slot >= 0 && device >= 0 && device < kMaxDevices && cached[device][slot] > 0) return cached[device][slot];
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) value = 0;
  if (slot >= 0 && device >= 0 && device < kMaxDevices) cached[device][slot] = value;
  return value;
}

}  // namespace

Features features(const Kokkos::Cuda& exec) {
  Features f;
  f.name = "cuda";
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, exec.cuda_device()) == cudaSuccess) {
    f.l2_persistence = p.persistingL2CacheMaxSize > 0;
    f.async_copy = p.major >= 8;
  }
  if (!f.l2_persistence) f.why_not = "this GPU has no persisting-L2 set-aside";
  return f;
}

bool has_residual_kernel(const Kokkos::Cuda& exec, Kernel k, int nb, OFormat f) {
  return has_kernel(exec, k, nb, f) && (k == Kernel::rows_per_warp || nb > kMaxNarrowNb);
}

bool has_kernel(const Kokkos::Cuda&, Kernel k, int nb, OFormat f) {
  // FP32 O, every nb of the solver (1..64): the 11_x / 16_x kernels for nb <= 15,
  // wide_block_kernel above; rows_per_warp_prefetch and split run the portable kernels. A
  // reduced O: rows_per_warp for nb <= 15 (the other cases run the portable kernels).
  if (f != OFormat::fp32) return decodes(f) && k == Kernel::rows_per_warp && nb >= 1 && nb <= kMaxNarrowNb;
  return (k == Kernel::rows_per_warp || k == Kernel::warp_per_row) && nb >= 1 && nb <= kMaxNb;
}

void run(const Kokkos::Cuda& exec, const Variant& v, const ColorArgs& a, const KernelTuning& tuning) {
  if (!has_kernel(exec, v.kernel, a.nb, a.o_format))
    throw InvalidArgument("mcpi cuda backend: no kernel for " + name(v) + " with O in " + name(a.o_format));
  if (a.residual_sq && (!has_residual_kernel(exec, v.kernel, a.nb, a.o_format) || a.residual_slots < 1))
    throw InvalidArgument("mcpi cuda backend: no residual-forming kernel for " + name(v) + " at nb " +
                          std::to_string(a.nb) + " (or no residual slots)");
  if (a.row_end <= a.row_begin) return;
  Launch l;
  l.stream = exec.cuda_stream();
  const int device = exec.cuda_device();
  l.dependent = tuning.dependent_launch && device_attribute(device, cudaDevAttrComputeCapabilityMajor) >= 9;
  l.sms = std::max(1, device_attribute(device, cudaDevAttrMultiProcessorCount));
  l.tuning = tuning;
  l.checked = a.residual_sq != nullptr;
  if (a.d_lu32)
    launch_colour<float>(l, v, a);
  else
    launch_colour<double>(l, v, a);
}

}  // namespace ppsparse::mcpi::backend

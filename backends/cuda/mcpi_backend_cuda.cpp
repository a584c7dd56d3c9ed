// CUDA specialisations of the MCPI kernels (the 11_x and 16_x kernels of Walden et al. 2021) and the persisting-L2
// window, implementing core's mcpi/backend.hpp. Compiled by nvcc (nvcc_wrapper) only.
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

#include "mcpi/rows_per_warp_kernels.hpp"
#include "mcpi/warp_per_row_kernel.hpp"
#include "mcpi/wide_block_kernel.hpp"

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

// Slots per block row of rows_per_warp_kernel: the best of 1, 2 and 4 by nb as measured
// (docs/perf/kernel_choices.md, "MCPI row slots").
template <int NB>
constexpr int kRowSlots = NB == 1   ? 4
                          : NB <= 8 ? 2
                                    : 1;

// KernelTuning::row_slots = 1, 2 or 4 forces the slots (where S * nb <= 32); 0: kRowSlots.

// rows_per_warp_kernel, the small-colour kernel and wide_block_kernel are launched as
// programmatic dependents of the previous kernel (warp_per_row_kernel, never the best case,
// launches the ordinary way). At small nb a colour's work is short beside the start and drain
// of its launch, so overlapping them pays most there (docs/perf/kernel_choices.md, "MCPI
// dependent launches"). Devices before
// compute capability 9.0 launch the ordinary way. KernelTuning::dependent_launch = false turns it off.
// Launches a colour kernel of kWarps warps per block on the caller's stream: `dependent` (its
// PDL instantiation) as a programmatic dependent launch when l.dependent, `plain` the ordinary
// way otherwise; for a checked sweep (l.checked), `checked` (its PDL + RES instantiation) either
// way (griddepcontrol does nothing in a grid not launched as a dependent).
template <class... Args>
void launch_color(const Launch& l, void (*plain)(Args...), void (*dependent)(Args...), void (*checked)(Args...),
                  const unsigned grid, const Args... args) {
  void (*kernel)(Args...) = l.checked ? checked : l.dependent ? dependent : plain;
  if (!l.dependent) {
    kernel<<<grid, kWarps * 32, 0, l.stream>>>(args...);
    return;
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(kWarps * 32);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = l.stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  check(cudaLaunchKernelEx(&cfg, kernel, args...), "programmatic dependent launch");
}

template <int NB, int S>
void launch_rows_per_warp(const Launch& l, const bool async, const ColorArgs& a, const long long rows) {
  constexpr int R = 32 / (S * NB);
  const unsigned grid = static_cast<unsigned>((rows + kWarps * R - 1) / (kWarps * R));
  if (async)
    launch_color(l, rows_per_warp_kernel<NB, true, S>, rows_per_warp_kernel<NB, true, S, true>,
                 rows_per_warp_kernel<NB, true, S, true, true>, grid, a);
  else
    launch_color(l, rows_per_warp_kernel<NB, false, S>, rows_per_warp_kernel<NB, false, S, true>,
                 rows_per_warp_kernel<NB, false, S, true, true>, grid, a);
}

template <int NB>
void launch(const Launch& l, const Variant& v, const ColorArgs& a) {
  const long long rows = a.row_end - a.row_begin;
  const bool async = v.async_copy;
  if (v.kernel == Kernel::rows_per_warp) {
    constexpr int R = 32 / NB;
    using Small = KernelTuning::SmallColor;
    const Small small = l.tuning.small_color;
    if (small == Small::always || (small == Small::automatic && rows / R < 2LL * l.sms)) {
      const unsigned g1 = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
      if (async)
        launch_color(l, row_slots_colwise_kernel<NB, true>, row_slots_colwise_kernel<NB, true, true>,
                     row_slots_colwise_kernel<NB, true, true, true>, g1, a);
      else
        launch_color(l, row_slots_colwise_kernel<NB, false>, row_slots_colwise_kernel<NB, false, true>,
                     row_slots_colwise_kernel<NB, false, true, true>, g1, a);
    } else {
      const int slots = l.tuning.row_slots != 0 ? l.tuning.row_slots : kRowSlots<NB>;
      if (slots == 4 && 4 * NB <= 32) {
        if constexpr (4 * NB <= 32) launch_rows_per_warp<NB, 4>(l, async, a, rows);
      } else if (slots == 2 && 2 * NB <= 32) {
        if constexpr (2 * NB <= 32) launch_rows_per_warp<NB, 2>(l, async, a, rows);
      } else {
        launch_rows_per_warp<NB, 1>(l, async, a, rows);
      }
    }
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    if (async)
      warp_per_row_kernel<NB, true><<<grid, kWarps * 32, 0, l.stream>>>(a);
    else
      warp_per_row_kernel<NB, false><<<grid, kWarps * 32, 0, l.stream>>>(a);
  }
  check(cudaGetLastError(), "kernel launch");
}

// O in a reduced format (mcpi/o_format.hpp), nb <= 15: rows_per_warp's two kernels, launched as
// the FP32 ones; the async_copy feature and 4 row slots are not compiled for these formats.
// Blocks in flight per lane of rows_per_warp_kernel with O in format F: KernelTuning::unroll, or
// the rule: 4, as a narrower O leaves the same latency of each ja -> dQ chain to hide behind
// fewer bytes (docs/perf/mcpi_o_formats.md).
template <int NB, OFormat F, int S, int U>
void launch_reduced_rows(const Launch& l, const ColorArgs& a, const unsigned grid) {
  launch_color(l, rows_per_warp_kernel<NB, false, S, false, false, F, U>,
               rows_per_warp_kernel<NB, false, S, true, false, F, U>,
               rows_per_warp_kernel<NB, false, S, true, true, F, U>, grid, a);
}

template <int NB, OFormat F, int S>
void launch_reduced_slots(const Launch& l, const ColorArgs& a) {
  const long long rows = a.row_end - a.row_begin;
  constexpr int R = 32 / (S * NB);
  using Small = KernelTuning::SmallColor;
  const Small small = l.tuning.small_color;
  if (small == Small::always || (small == Small::automatic && rows / (32 / NB) < 2LL * l.sms)) {
    const unsigned g1 = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    launch_color(l, row_slots_colwise_kernel<NB, false, false, false, F>,
                 row_slots_colwise_kernel<NB, false, true, false, F>,
                 row_slots_colwise_kernel<NB, false, true, true, F>, g1, a);
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps * R - 1) / (kWarps * R));
    const int unroll = l.tuning.unroll != 0 ? l.tuning.unroll : 4;
    if (unroll == 2)
      launch_reduced_rows<NB, F, S, 2>(l, a, grid);
    else
      launch_reduced_rows<NB, F, S, 4>(l, a, grid);
  }
  check(cudaGetLastError(), "kernel launch");
}

// Slots per block row: KernelTuning::row_slots = 1, or the rule: one slot for int8 (0.93x the
// time of kRowSlots' two at nb 5 on the H100), the FP32 kernels' kRowSlots for the 16-bit
// formats (docs/perf/mcpi_o_formats.md).
template <int NB, OFormat F>
void launch_reduced(const Launch& l, const ColorArgs& a) {
  const bool one_slot = l.tuning.row_slots == 1 || (l.tuning.row_slots == 0 && F == OFormat::int8);
  if (one_slot && kRowSlots<NB> != 1) {
    if constexpr (kRowSlots<NB> != 1) launch_reduced_slots<NB, F, 1>(l, a);
  } else {
    launch_reduced_slots<NB, F, kRowSlots<NB>>(l, a);
  }
}

// The coded formats (mcpi/o_formats.def) whose decoding the CUDA kernels have (load_column in
// mcpi/kernel_common.hpp); O in any other format runs the portable kernels.
template <OFormat F>
constexpr bool kDecodes = F == OFormat::bf16 || F == OFormat::fp16 || F == OFormat::int8;

bool decodes(const OFormat f) {
  switch (f) {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary) \
  case OFormat::id:                                \
    return kDecodes<OFormat::id>;
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
  }
  return false;
}

template <int NB>
void launch_reduced_for_nb(const Launch& l, const ColorArgs& a) {
  if constexpr (NB <= kMaxNarrowNb) {
    switch (a.o_format) {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary)                                     \
  case OFormat::id:                                                                    \
    if constexpr (kDecodes<OFormat::id>) return launch_reduced<NB, OFormat::id>(l, a); \
    break;
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
    }
  }
  throw InvalidArgument("mcpi cuda backend: no kernel for O in " + std::string(name(a.o_format)) + " at nb " +
                        std::to_string(a.nb));
}

template <int... NBs>
void dispatch_reduced(const Launch& l, const ColorArgs& a, std::integer_sequence<int, NBs...>) {
  ((a.nb == NBs + 1 ? (launch_reduced_for_nb<NBs + 1>(l, a), 0) : 0), ...);
}

// nb 16..64: one kernel for every variant (see wide_block_kernel). KernelTuning::wide_split = 1
// or 4 (kWarps) forces the warps per block row; 0: the rule below.
template <int NB>
void launch_wide(const Launch& l, const ColorArgs& a) {
  static_assert(kWarps == 4, "KernelTuning::wide_split's values are 1 and kWarps");
  const long long rows = a.row_end - a.row_begin;
  // A row per warp while the colour has rows for about 96 warps per SM; fewer rows (small
  // colours, large nb): the thread block's warps share a row (docs/perf/kernel_choices.md,
  // "MCPI wide split").
  const int forced = l.tuning.wide_split;
  const bool split = forced == kWarps || (forced != 1 && rows < 96LL * l.sms);
  const bool prefetch = l.tuning.wide_prefetch;
  if (split) {
    launch_color(l, wide_block_kernel<NB, kWarps>, wide_block_kernel<NB, kWarps, true>,
                 wide_block_kernel<NB, kWarps, true, true>, static_cast<unsigned>(rows), a, prefetch);
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    launch_color(l, wide_block_kernel<NB, 1>, wide_block_kernel<NB, 1, true>, wide_block_kernel<NB, 1, true, true>,
                 grid, a, prefetch);
  }
  check(cudaGetLastError(), "kernel launch");
}

template <int NB>
void launch_for_nb(const Launch& l, const Variant& v, const ColorArgs& a) {
  if constexpr (NB <= kMaxNarrowNb)
    launch<NB>(l, v, a);
  else
    launch_wide<NB>(l, a);
}

template <int... NBs>
void dispatch(const Launch& l, const Variant& v, const ColorArgs& a, std::integer_sequence<int, NBs...>) {
  ((a.nb == NBs + 1 ? (launch_for_nb<NBs + 1>(l, v, a), 0) : 0), ...);
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
  if (a.o_format != OFormat::fp32)
    dispatch_reduced(l, a, std::make_integer_sequence<int, kMaxNarrowNb>{});
  else
    dispatch(l, v, a, std::make_integer_sequence<int, kMaxNb>{});
}

}  // namespace ppsparse::mcpi::backend

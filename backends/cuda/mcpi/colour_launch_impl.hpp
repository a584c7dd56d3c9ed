#pragma once
// The launches of the CUDA MCPI kernels for one colour (the rules that pick a kernel, its slots,
// its blocks in flight and how it is launched), templated on the precision DT of D's LU
// factors: launch_colour<double> and launch_colour<float> are compiled in their own
// translation units (colour_launch_lu_fp64.cpp, colour_launch_lu_fp32.cpp), so that the two
// sets of kernels build side by side. Included by those two files only.
#include <utility>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>

#include "colour_launch.hpp"
#include "rows_per_warp_kernels.hpp"
#include "warp_per_row_kernel.hpp"
#include "wide_block_kernel.hpp"

namespace ppsparse::mcpi::backend::cuda {
namespace {

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

template <int NB, int S, class DT>
void launch_rows_per_warp(const Launch& l, const bool async, const ColorArgs& a, const long long rows) {
  constexpr int R = 32 / (S * NB);
  constexpr OFormat F = OFormat::fp32;
  const unsigned grid = static_cast<unsigned>((rows + kWarps * R - 1) / (kWarps * R));
  if (async)
    launch_color(l, rows_per_warp_kernel<NB, true, S, false, false, F, 2, DT>,
                 rows_per_warp_kernel<NB, true, S, true, false, F, 2, DT>,
                 rows_per_warp_kernel<NB, true, S, true, true, F, 2, DT>, grid, a);
  else
    launch_color(l, rows_per_warp_kernel<NB, false, S, false, false, F, 2, DT>,
                 rows_per_warp_kernel<NB, false, S, true, false, F, 2, DT>,
                 rows_per_warp_kernel<NB, false, S, true, true, F, 2, DT>, grid, a);
}

template <int NB, class DT>
void launch(const Launch& l, const Variant& v, const ColorArgs& a) {
  const long long rows = a.row_end - a.row_begin;
  const bool async = v.async_copy;
  if (v.kernel == Kernel::rows_per_warp) {
    constexpr int R = 32 / NB;
    using Small = KernelTuning::SmallColor;
    const Small small = l.tuning.small_color;
    if (small == Small::always || (small == Small::automatic && rows / R < 2LL * l.sms)) {
      const unsigned g1 = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
      constexpr OFormat F = OFormat::fp32;
      if (async)
        launch_color(l, row_slots_colwise_kernel<NB, true, false, false, F, DT>,
                     row_slots_colwise_kernel<NB, true, true, false, F, DT>,
                     row_slots_colwise_kernel<NB, true, true, true, F, DT>, g1, a);
      else
        launch_color(l, row_slots_colwise_kernel<NB, false, false, false, F, DT>,
                     row_slots_colwise_kernel<NB, false, true, false, F, DT>,
                     row_slots_colwise_kernel<NB, false, true, true, F, DT>, g1, a);
    } else {
      const int slots = l.tuning.row_slots != 0 ? l.tuning.row_slots : kRowSlots<NB>;
      if (slots == 4 && 4 * NB <= 32) {
        if constexpr (4 * NB <= 32) launch_rows_per_warp<NB, 4, DT>(l, async, a, rows);
      } else if (slots == 2 && 2 * NB <= 32) {
        if constexpr (2 * NB <= 32) launch_rows_per_warp<NB, 2, DT>(l, async, a, rows);
      } else {
        launch_rows_per_warp<NB, 1, DT>(l, async, a, rows);
      }
    }
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    if (async)
      warp_per_row_kernel<NB, true, DT><<<grid, kWarps * 32, 0, l.stream>>>(a);
    else
      warp_per_row_kernel<NB, false, DT><<<grid, kWarps * 32, 0, l.stream>>>(a);
  }
  check(cudaGetLastError(), "kernel launch");
}

// O in a reduced format (mcpi/o_format.hpp), nb <= 15: rows_per_warp's two kernels, launched as
// the FP32 ones; the async_copy feature and 4 row slots are not compiled for these formats.
// Blocks in flight per lane of rows_per_warp_kernel with O in format F: KernelTuning::unroll, or
// the rule: 2, as for FP32. With each step's ja loaded a step ahead, 4 took 1.05-1.10x the time
// of 2 for every reduced format at nb 5 (docs/perf/mcpi_o_formats.md).
template <int NB, OFormat F, int S, int U, class DT>
void launch_reduced_rows(const Launch& l, const ColorArgs& a, const unsigned grid) {
  launch_color(l, rows_per_warp_kernel<NB, false, S, false, false, F, U, DT>,
               rows_per_warp_kernel<NB, false, S, true, false, F, U, DT>,
               rows_per_warp_kernel<NB, false, S, true, true, F, U, DT>, grid, a);
}

template <int NB, OFormat F, int S, class DT>
void launch_reduced_slots(const Launch& l, const ColorArgs& a) {
  const long long rows = a.row_end - a.row_begin;
  constexpr int R = 32 / (S * NB);
  using Small = KernelTuning::SmallColor;
  const Small small = l.tuning.small_color;
  if (small == Small::always || (small == Small::automatic && rows / (32 / NB) < 2LL * l.sms)) {
    const unsigned g1 = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    launch_color(l, row_slots_colwise_kernel<NB, false, false, false, F, DT>,
                 row_slots_colwise_kernel<NB, false, true, false, F, DT>,
                 row_slots_colwise_kernel<NB, false, true, true, F, DT>, g1, a);
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps * R - 1) / (kWarps * R));
    const int unroll = l.tuning.unroll != 0 ? l.tuning.unroll : 2;
    if (unroll == 4)
      launch_reduced_rows<NB, F, S, 4, DT>(l, a, grid);
    else
      launch_reduced_rows<NB, F, S, 2, DT>(l, a, grid);
  }
  check(cudaGetLastError(), "kernel launch");
}

// Slots per block row: KernelTuning::row_slots = 1, or the rule: one slot for int8 (0.93x the
// time of kRowSlots' two at nb 5 on the H100), the FP32 kernels' kRowSlots for the 16-bit
// formats (docs/perf/mcpi_o_formats.md).
template <int NB, OFormat F, class DT>
void launch_reduced(const Launch& l, const ColorArgs& a) {
  const bool one_slot = l.tuning.row_slots == 1 || (l.tuning.row_slots == 0 && F == OFormat::int8);
  if (one_slot && kRowSlots<NB> != 1) {
    if constexpr (kRowSlots<NB> != 1) launch_reduced_slots<NB, F, 1, DT>(l, a);
  } else {
    launch_reduced_slots<NB, F, kRowSlots<NB>, DT>(l, a);
  }
}

template <int NB, class DT>
void launch_reduced_for_nb(const Launch& l, const ColorArgs& a) {
  if constexpr (NB <= kMaxNarrowNb) {
    switch (a.o_format) {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary)                                         \
  case OFormat::id:                                                                        \
    if constexpr (kDecodes<OFormat::id>) return launch_reduced<NB, OFormat::id, DT>(l, a); \
    break;
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
    }
  }
  throw InvalidArgument("mcpi cuda backend: no kernel for O in " + std::string(name(a.o_format)) + " at nb " +
                        std::to_string(a.nb));
}

template <class DT, int... NBs>
void dispatch_reduced(const Launch& l, const ColorArgs& a, std::integer_sequence<int, NBs...>) {
  ((a.nb == NBs + 1 ? (launch_reduced_for_nb<NBs + 1, DT>(l, a), 0) : 0), ...);
}

// nb 16..64: one kernel for every variant (see wide_block_kernel). KernelTuning::wide_split = 1
// or 4 (kWarps) forces the warps per block row; 0: the rule below.
template <int NB, class DT>
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
    launch_color(l, wide_block_kernel<NB, kWarps, false, false, DT>, wide_block_kernel<NB, kWarps, true, false, DT>,
                 wide_block_kernel<NB, kWarps, true, true, DT>, static_cast<unsigned>(rows), a, prefetch);
  } else {
    const unsigned grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);
    launch_color(l, wide_block_kernel<NB, 1, false, false, DT>, wide_block_kernel<NB, 1, true, false, DT>,
                 wide_block_kernel<NB, 1, true, true, DT>, grid, a, prefetch);
  }
  check(cudaGetLastError(), "kernel launch");
}

template <int NB, class DT>
void launch_for_nb(const Launch& l, const Variant& v, const ColorArgs& a) {
  if constexpr (NB <= kMaxNarrowNb)
    launch<NB, DT>(l, v, a);
  else
    launch_wide<NB, DT>(l, a);
}

template <class DT, int... NBs>
void dispatch(const Launch& l, const Variant& v, const ColorArgs& a, std::integer_sequence<int, NBs...>) {
  ((a.nb == NBs + 1 ? (launch_for_nb<NBs + 1, DT>(l, v, a), 0) : 0), ...);
}

}  // namespace

template <class DT>
void launch_colour(const Launch& l, const Variant& v, const ColorArgs& a) {
  if (a.o_format != OFormat::fp32) {
    check_o_alignment(a);
    dispatch_reduced<DT>(l, a, std::make_integer_sequence<int, kMaxNarrowNb>{});
  } else {
    dispatch<DT>(l, v, a, std::make_integer_sequence<int, kMaxNb>{});
  }
}

}  // namespace ppsparse::mcpi::backend::cuda

#pragma once
// One colour's launch of the CUDA MCPI kernels (colour_launch_impl.hpp), as the backend's
// entry points (mcpi_backend_cuda.cpp) call it, and which O formats those kernels decode.
#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mcpi/o_format.hpp>

#include "kernel_common.hpp"

namespace ppsparse::mcpi::backend::cuda {

// Launches the kernel of v for colour rows a on l.stream, D's LU factors read in DT (double:
// ColorArgs::D; float: ColorArgs::d_lu32). Preconditions: as backend::run's.
template <class DT>
void launch_colour(const Launch& l, const Variant& v, const ColorArgs& a);

// The coded formats (mcpi/o_formats.def) whose decoding the CUDA kernels have (load_column in
// mcpi/kernel_common.hpp); O in any other format runs the portable kernels.
template <OFormat F>
constexpr bool kDecodes = F == OFormat::bf16 || F == OFormat::fp16 || F == OFormat::int8;

inline bool decodes(const OFormat f) {
  switch (f) {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary) \
  case OFormat::id:                                \
    return kDecodes<OFormat::id>;
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
  }
  return false;
}

}  // namespace ppsparse::mcpi::backend::cuda

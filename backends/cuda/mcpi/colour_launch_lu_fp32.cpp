// The CUDA MCPI kernels with D's LU factors in FP32 (OStorage::lu_fp32): one instantiation of
// launch_colour (colour_launch_impl.hpp). Compiled by nvcc (nvcc_wrapper) only.
#include "colour_launch_impl.hpp"

namespace ppsparse::mcpi::backend::cuda {
template void launch_colour<float>(const Launch&, const Variant&, const ColorArgs&);
}  // namespace ppsparse::mcpi::backend::cuda

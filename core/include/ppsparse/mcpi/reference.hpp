#pragma once
// Plain host reference of the MCPI sweeps in FP64, used by the tests: independent of the
// kernels (dense Gaussian elimination with partial pivoting on the unfactored D blocks).
#include <vector>

#include <ppsparse/formats/block_system.hpp>

namespace ppsparse::mcpi {

// s must be in colour-contiguous numbering (colour c owns block rows
// [colour_offsets[c], colour_offsets[c+1])) with D not factored. Starts from dQ = 0.
std::vector<double> reference_sweeps(const BlockSystem<HostSpace>& s, const std::vector<ordinal_t>& colour_offsets,
                                     int sweeps);

// ||R - (D + O) dQ||_2 in FP64 for an unfactored system (any numbering consistent with dq).
double reference_residual_norm(const BlockSystem<HostSpace>& s, const std::vector<double>& dq);

}  // namespace ppsparse::mcpi

#pragma once
/// @file
/// Plain host reference of the MCPI sweeps in FP64, used by the tests: independent of the
/// kernels (dense Gaussian elimination with partial pivoting on the unfactored D blocks).
#include <vector>

#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/reorder/coloring.hpp>

namespace ppsparse::mcpi {

/// s must be in colour-contiguous numbering (colour c owns block rows
/// [colour_offsets[c], colour_offsets[c+1])) with D not factored. Starts from dQ = 0.
std::vector<double> reference_sweeps(const BlockSystem<HostSpace>& s, const std::vector<ordinal_t>& color_offsets,
                                     int sweeps);
/// The same for a system in the user's numbering: renumbered by coloring.perm, swept, and dQ
/// returned in the user's numbering (what Solver::solve returns).
std::vector<double> reference_sweeps(const BlockSystem<HostSpace>& s, const Coloring& coloring, int sweeps);

/// The residual a checked sweep forms (Solver::apply's checks), for each of `sweeps` sweeps
/// from dQ = 0: the root of the sum over colours of ||R_c - (D + O)_c dQ||^2 with dQ as it is
/// just before colour c's update. s in the user's numbering, renumbered by coloring.perm.
std::vector<double> reference_sweep_residuals(const BlockSystem<HostSpace>& s, const Coloring& coloring, int sweeps);

/// The largest relative error of a block row of dq against ref (both nb values per block row):
///   max over block rows r of ||dq_r - ref_r||_2 / max(||ref_r||_2, floor),
/// floor = 1e-3 x the root mean square of ref's block-row norms, so that rows near zero do not
/// divide by nothing. Compared per block row, one wrong row among many is not diluted as in a
/// global norm. NaN anywhere gives NaN. InvalidArgument unless the sizes agree and nb >= 1
/// divides them.
double max_block_row_error(const std::vector<double>& dq, const std::vector<double>& ref, int nb);
/// What max_block_row_error may reach for FP32 O and dQ against the FP64 reference: the pass
/// mark of the tests and of mcpi --verify.
inline constexpr double kBlockRowTolerance = 1e-4;

/// O's values as the sweeps see them when stored in `format` (mcpi/o_format.hpp), bit for bit
/// as the device rounds them: each entry rounded to FP32, encoded and decoded. o: block CSR,
/// column-major blocks (fp16's scale is per block row, so the numbering of the rows is free);
/// Scalar float or double.
template <class Scalar>
std::vector<double> reference_round_o(OFormat format, const BsrMatrix<Scalar, HostSpace>& o);
/// s with O's values replaced by reference_round_o's: the system the sweeps solve with O stored
/// in `format` (s itself for fp32; else a copy of O, D and R shared with s).
BlockSystem<HostSpace> reference_rounded_system(OFormat format, const BlockSystem<HostSpace>& s);

/// s with each D block replaced by L U, L and U its FP64 LU factors (no pivoting, as the solver
/// factors) rounded to nearest FP32: the system the sweeps solve with OStorage::lu_fp32 (a
/// copy of D; O and R shared with s). NumericalError naming the block row for a failed pivot.
BlockSystem<HostSpace> reference_rounded_lu(const BlockSystem<HostSpace>& s);

/// ||R - (D + O) dQ||_2 in FP64 for an unfactored system (any numbering consistent with dq).
double reference_residual_norm(const BlockSystem<HostSpace>& s, const std::vector<double>& dq);

}  // namespace ppsparse::mcpi

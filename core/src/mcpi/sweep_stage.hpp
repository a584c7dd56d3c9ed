#pragma once
/// @file
/// The passes the portable MCPI functor can make over a colour's rows.

namespace ppsparse::mcpi::impl {

/// fused: r = R_c - O_c dQ and dQ_c = D_c^-1 r in one pass (optionally also the colour's
/// residual before its update); spmv_only / solve_only: the split kernel's two passes;
/// residual_only: the rows' squared residuals of the current dQ, which stays unchanged (any
/// rows at once: no colour order), with the functor's `residual` set.
enum class Stage { fused, spmv_only, solve_only, residual_only };

}  // namespace ppsparse::mcpi::impl

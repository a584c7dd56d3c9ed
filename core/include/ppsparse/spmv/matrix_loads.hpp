#pragma once
/// @file
/// How the SpMV kernels (csr_v2, sell_spmv, hyb_spmv) load the matrix's values and indices,
/// which each product reads exactly once.
///  streaming: evict-first loads (CUDA ld.global.cs, HIP nontemporal loads), so that the
///             matrix streaming through the L2 does not evict x, which rows share. Where the
///             backend has no such load (CPUs), the same as cached.
///  cached:    ordinary loads.
namespace ppsparse::spmv {

enum class MatrixLoads { streaming, cached };

}  // namespace ppsparse::spmv

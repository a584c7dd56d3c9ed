#pragma once
/// @file
/// Seeded MCPI block systems A dQ = R (A = D + O) on a coupling graph, built so that the
/// multicolour point-implicit iteration (block Jacobi or block Gauss-Seidel by colours)
/// converges.
#include <cstdint>
#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/formats/graph.hpp>

namespace ppsparse::gen {

/// How make_block_system fills a block system on a graph.
struct BlockSystemOptions {
  /// Diagonal block ~ dominance * (sum over the row's off-diagonal blocks of their max
  /// absolute row sum). Must be finite and > 1 (the iteration's contraction factor is at
  /// most 2 / (1 + dominance)).
  double dominance = 2.0;
};

/// One nb x nb block of O per directed edge of g (FP32 BSR with ia = g.row_ptr, ja = g.adj),
/// entries uniform in [-1, 1] and never zero. For block row i with
///   s_i = sum over blocks O_ik of ||O_ik||_inf   (1 for an isolated vertex),
/// D_ii = c_i I + E_i with c_i = dominance * s_i and E_i random (diagonal and off-diagonal
/// entries) with every row's absolute sum at most eps * c_i, eps = min(1/4, (dominance-1) /
/// (2 dominance)). Then every point row of A is strictly diagonally dominant with
/// |d_rr| - sum_{l != r} |d_rl| >= (1 + dominance)/2 * s_i, so ||D_ii^-1||_inf * s_i <= 2/(1 + dominance) < 1:
/// block Jacobi and block Gauss-Seidel converge in any colour order, and D_ii factors without
/// pivoting. R is uniform in [-1, 1], never zero. D is stored unfactored (d_factored = false).
///
/// InvalidArgument if g is not a valid graph, nb is outside [1, 64], n * nb exceeds 2^31-1,
/// or dominance is not finite and > 1.
BlockSystem<HostSpace> make_block_system(const Graph& g, int nb, std::uint64_t seed,
                                         const BlockSystemOptions& options = {});

}  // namespace ppsparse::gen

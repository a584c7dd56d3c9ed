#pragma once
/// @file
/// Seeded scalar test matrices: a symmetric pattern filled with random values that make
/// the matrix symmetric, strictly diagonally dominant and therefore positive definite,
/// so that Krylov and relaxation solvers converge and repeated products (the matrix power
/// kernel) stay bounded (every row's absolute sum is at most 2.75).
///
/// Values, deterministic in (pattern, seed) and independent of thread count:
///  * off-diagonal a_ij = a_ji = s_ij * m_ij / max(deg_i, deg_j), with a random sign s_ij and
///    magnitude m_ij uniform in [0.1, 1] (never zero); deg is the off-diagonal count of a row,
///    so each row's off-diagonal absolute sum is at most 1;
///  * diagonal a_ii = (1.25 + 0.25 u_i) * sum_j |a_ij| + 0.05 + 0.2 v_i with u_i, v_i uniform in
///    [0, 1): positive, and at least 1.25 times the off-diagonal absolute sum.
/// Rows are sorted and hold the diagonal entry.
///
/// Structured generators number points naturally (x fastest: i + nx*(j + ny*k)).
/// Nonpositive dimensions or more than 2^31-1 rows give InvalidArgument.
#include <cstdint>
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/graph.hpp>

namespace ppsparse::gen {

/// 7-point stencil: couples each point to its 6 axis neighbours (6 in the interior).
CsrMatrix<double, HostSpace> stencil_7pt(ordinal_t nx, ordinal_t ny, ordinal_t nz, std::uint64_t seed);

/// 27-point stencil: couples each point to all points of its 3x3x3 neighbourhood (26 in the interior).
CsrMatrix<double, HostSpace> stencil_27pt(ordinal_t nx, ordinal_t ny, ordinal_t nz, std::uint64_t seed);

/// n x n band matrix: row i holds columns max(0, i-h) .. min(n-1, i+h) for h = half_bandwidth
/// (a band-7 matrix has half_bandwidth 3; half_bandwidth 0 is diagonal). n > 0, half_bandwidth >= 0.
CsrMatrix<double, HostSpace> band_matrix(ordinal_t n, ordinal_t half_bandwidth, std::uint64_t seed);

/// Scalar matrix with the pattern of graph g plus the diagonal. g must be a valid graph
/// (InvalidArgument naming its first defect otherwise).
CsrMatrix<double, HostSpace> matrix_of_graph(const Graph& g, std::uint64_t seed);

}  // namespace ppsparse::gen

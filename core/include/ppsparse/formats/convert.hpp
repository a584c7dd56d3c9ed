#pragma once
/// @file
/// Conversions between host formats. All round trips are exact:
///  * csr_to_bsr keeps every entry; blocks are the union of the entries' blocks, and
///    entries of a block that the CSR lacks are stored as explicit zeros.
///    bsr_to_csr emits every stored block entry (the dense-block pattern), so
///    BSR -> CSR -> BSR is exact, and CSR -> BSR -> CSR is exact when the CSR's pattern
///    is block-dense (as for the scalar matrix of a block system).
///  * csr_to_sell / sell_to_csr are exact for any CSR (padding is tracked by row_len).
#include <vector>

#include <ppsparse/formats/block_system.hpp>
#include <ppsparse/formats/bsr.hpp>
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>

namespace ppsparse {

/// nb must divide nrows and ncols (InvalidArgument otherwise).
template <class Scalar>
BsrMatrix<Scalar, HostSpace> csr_to_bsr(const CsrMatrix<Scalar, HostSpace>& a, int nb);

/// The scalar CSR matrix of a block matrix (every block entry stored, zeros included).
template <class Scalar>
CsrMatrix<Scalar, HostSpace> bsr_to_csr(const BsrMatrix<Scalar, HostSpace>& a);

/// C >= 1; sigma >= 1 (sorting windows of sigma rows by decreasing length; sigma = 1 keeps
/// the order). perm maps sorted positions to original rows.
template <class Scalar>
SellMatrix<Scalar, HostSpace> csr_to_sell(const CsrMatrix<Scalar, HostSpace>& a, int C, ordinal_t sigma);

/// The CSR matrix of a SELL matrix in the original row order (padding dropped).
template <class Scalar>
CsrMatrix<Scalar, HostSpace> sell_to_csr(const SellMatrix<Scalar, HostSpace>& a);

/// Fills a.col_offset (SellMatrix's 16-bit column offsets, col - row) when every true entry
/// of every row lies within 32767 columns of its row (banded, stencil and mesh matrices in a
/// bandwidth-reducing order); returns false and leaves `a` unchanged otherwise.
template <class Scalar>
bool sell_compress_columns(SellMatrix<Scalar, HostSpace>& a);

/// The column storage an index_bits option asks for (spmv's sell.index_bits, mpk's
/// LevelMatrixOptions::index_bits; already checked to be 0, 16 or 32): 32 keeps the 32-bit
/// indices, 0 adds 16-bit offsets where every column fits (sell_compress_columns), 16 requires
/// them: InvalidArgument(who + ": " + option + " = 16, but a column lies more than 32767 columns
/// from its row") otherwise.
template <class Scalar>
void sell_apply_index_bits(SellMatrix<Scalar, HostSpace>& a, int index_bits, const std::string& who,
                           const std::string& option);

/// The SELL-C-sigma form of a block matrix's scalar entries.
template <class Scalar>
SellMatrix<Scalar, HostSpace> bsr_to_sell(const BsrMatrix<Scalar, HostSpace>& a, int C, ordinal_t sigma) {
  return csr_to_sell(bsr_to_csr(a), C, sigma);
}

/// Scalar (point) CSR of a block system's full A = D + O, in FP64: the matrix a
/// scalar SpMV or MPK sees for the same problem.
CsrMatrix<double, HostSpace> block_system_to_csr(const BlockSystem<HostSpace>& s);

/// A block system from a user's scalar matrix and right-hand side (FP64): blocks of nb
/// (which must divide the size), diagonal blocks into D (missing ones stay zero, which the
/// solver's factorisation reports), the rest into O in FP32. R has a.nrows entries.
BlockSystem<HostSpace> block_system_from_csr(const CsrMatrix<double, HostSpace>& a, int nb,
                                             const std::vector<double>& R);

}  // namespace ppsparse

#pragma once
/// @file
/// SpMV on SELL-C-sigma (formats/sell.hpp): chunks of C sorted rows stored column-major.
///
/// GPU mapping: t = W / C threads per row, so that one vector group of W lanes reads one
/// "column" of C*t consecutive stored entries of a chunk per step (fully coalesced); the t
/// lanes of a row combine with shuffles. C must be a power of two (C > W gives t = 1).
/// CPU mapping: one thread per row.
/// Each row stops at its true length (row_len), so padding is stored but not multiplied:
/// results are exact for any x, including rows whose padding would meet Inf in x.
/// y is written at the original row, y[perm[p]] for sorted position p.
///
/// Defaults: C from the mean row length on GPUs, 8 on CPUs; sigma = 256 on every space.
///  * GPUs: t = 1 lane per row (C = W) for rows of up to 64 entries on average, else t = the
///    power of two >= mean / 64: one lane per row needs no reduction and its warp still reads
///    32 consecutive stored entries per step, while rows of hundreds of entries need t > 1 to
///    give enough warps (docs/perf/kernel_choices.md, "SELL chunk").
///  * 16-bit column offsets (index_bits) cut the bytes per FP64 entry from 12 to 10.
///  * sigma = 256 = 32 chunks: sorting inside windows of 256 rows removes most padding of
///    irregular matrices, while the rows of a window stay close in number, so the x entries
///    they touch (banded and mesh matrices) and the y entries they write stay close in memory.
///    Regular matrices (stencils) are unaffected: equal lengths keep their order (stable sort).
#include <ppsparse/formats/sell.hpp>
#include <ppsparse/spmv/matrix_loads.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

/// Options of the SELL kernel (sell_spmv) and its conversion.
struct SellOptions {
  int C = 0;            ///< 0: default (GPUs: W / t with t lanes per row from the mean row length; CPUs: 8)
  ordinal_t sigma = 0;  ///< 0: default (256)
  /// SpmvOperator only: 0 = pure SELL-C-sigma; > 0 = HYB (spmv/hyb.hpp): rows keep at most
  /// this many entries in SELL, the rest go to a CSR tail; -1 = HYB with hyb_auto_row_max.
  ordinal_t hyb_row_max = 0;
  /// Column indices: 0 = 16-bit offsets from the row (sell_compress_columns) when every entry
  /// is within 32767 columns of its row, else 32-bit; 16 = require the 16-bit offsets
  /// (InvalidArgument at setup if a column is too far); 32 = plain 32-bit columns.
  int index_bits = 0;
};

/// Defaults filled in (C from the matrix's mean row length) and checked: InvalidArgument
/// unless C >= 1 (a power of two on GPUs), sigma >= 1, hyb_row_max >= -1 and index_bits is
/// 0, 16 or 32.
template <class ExecSpace>
SellOptions sell_resolve_options(const SellOptions& options, double mean_row_length);

/// y = alpha*A*x + beta*y (conventions as csr_v1). InvalidArgument also for inconsistent SELL
/// extents, or, on GPUs, a C that is not a power of two. `loads`: spmv/matrix_loads.hpp.
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
void sell_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha, const SellMatrix<Scalar, MemSpace>& a,
               const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
               const nondeduced_t<Vector<Scalar, MemSpace>>& y, MatrixLoads loads = MatrixLoads::streaming);

}  // namespace ppsparse::spmv

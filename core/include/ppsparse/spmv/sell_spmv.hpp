#pragma once
// SpMV on SELL-C-sigma (formats/sell.hpp): chunks of C sorted rows stored column-major.
//
// GPU mapping: t = W / C threads per row, so that one vector group of W lanes reads one
// "column" of C*t consecutive stored entries of a chunk per step (fully coalesced); the t
// lanes of a row combine with shuffles. C must be a power of two (C > W gives t = 1).
// CPU mapping: one thread per row.
// Each row stops at its true length (row_len), so padding is stored but not multiplied:
// results are exact for any x, including rows whose padding would meet Inf in x.
// y is written at the original row, y[perm[p]] for sorted position p.
//
// Defaults: C = 8 and sigma = 256 on every space.
//  * C = 8: seed 004 (Panzlaff) found C = 8 fastest on all GPUs it measured (L40, A100, GH200,
//    RX 6900); with t = W/C = 4 lanes per row on NVIDIA (8 on AMD) short rows (7-27 entries)
//    keep most lanes busy, and padding, which grows with C, stays small.
//  * sigma = 256 = 32 chunks: sorting inside windows of 256 rows removes most padding of
//    irregular matrices, while the rows of a window stay close in number, so the x entries
//    they touch (banded and mesh matrices) and the y entries they write stay close in memory.
//    Regular matrices (stencils) are unaffected: equal lengths keep their order (stable sort).
#include <ppsparse/formats/sell.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

struct SellOptions {
  int C = 0;            // 0: default (8)
  ordinal_t sigma = 0;  // 0: default (256)
  // SpmvOperator only: 0 = pure SELL-C-sigma; > 0 = HYB (spmv/hyb.hpp): rows keep at most
  // this many entries in SELL, the rest go to a CSR tail; -1 = HYB with hyb_auto_row_max.
  ordinal_t hyb_row_max = 0;
};

// Defaults filled in and checked: InvalidArgument unless C >= 1 (a power of two on GPUs),
// sigma >= 1 and hyb_row_max >= -1.
template <class ExecSpace>
SellOptions sell_resolve_options(const SellOptions& options);

// y = alpha*A*x + beta*y (conventions as csr_v1). InvalidArgument also for inconsistent SELL
// extents, or, on GPUs, a C that is not a power of two.
// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
void sell_spmv(const ExecSpace& space, nondeduced_t<Scalar> alpha, const SellMatrix<Scalar, MemSpace>& a,
               const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
               const nondeduced_t<Vector<Scalar, MemSpace>>& y);

}  // namespace ppsparse::spmv

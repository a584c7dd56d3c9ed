#pragma once
/// @file
/// csr_v1: the thread-per-row CSR kernel of Bell & Garland (2009), the baseline of the adaptive csr_v2.
/// Row i is summed serially by one thread; no load balancing, no caching of x.
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/spmv/vectors.hpp>

namespace ppsparse::spmv {

/// y = alpha*A*x + beta*y, one thread per row (RangePolicy over rows).
/// Conventions shared by every kernel of this module:
///  * beta == 0 overwrites y: y is not read, so NaN or Inf in y does not propagate;
///  * alpha == 0 computes y = beta*y without reading A or x (BLAS convention);
///  * InvalidArgument if x has not ncols entries, y has not nrows entries, the two overlap,
///    or the CSR arrays have inconsistent extents (entries are trusted; see
///    check_csr_structure for a full check, which SpmvOperator runs once at setup).
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
void csr_v1(const ExecSpace& space, nondeduced_t<Scalar> alpha, const CsrMatrix<Scalar, MemSpace>& a,
            const nondeduced_t<ConstVector<Scalar, MemSpace>>& x, nondeduced_t<Scalar> beta,
            const nondeduced_t<Vector<Scalar, MemSpace>>& y);

}  // namespace ppsparse::spmv

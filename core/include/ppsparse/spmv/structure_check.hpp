#pragma once
/// @file
/// One-pass check, on the matrix's own device, that a CSR matrix is safe to multiply:
/// row_ptr starts at 0, never decreases and ends at nnz, and every column index lies in
/// [0, ncols). (Unsorted or repeated columns are valid input for SpMV: they are summed.)
#include <string>

#include <ppsparse/formats/csr.hpp>

namespace ppsparse::spmv {

/// Throws InvalidArgument naming `who` and the first defect, e.g.
///   "csr_v2 setup: column index 7 out of range [0, 5) in row 3".
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
template <class ExecSpace, class Scalar, class MemSpace>
void check_csr_structure(const ExecSpace& space, const CsrMatrix<Scalar, MemSpace>& a, const std::string& who);

}  // namespace ppsparse::spmv

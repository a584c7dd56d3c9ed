#pragma once
// One rank's rows of a PETSc matrix as the MCPI solver's blocks: the structure of O (the
// off-diagonal blocks) with ghost columns named by global block ids, and the map that gathers
// the values MatGetRow gives into O's and D's blocks.
#include <cstdint>
#include <string>
#include <vector>

#include <petscmat.h>

#include <ppsparse/types.hpp>

namespace ppsparse::petsc {

/// Throws ppsparse::Error naming `what` unless PETSc returned success.
void check_petsc(PetscErrorCode code, const char* what);

/// The block rows one rank owns, in PETSc's global numbering (block row b holds scalar rows
/// b * nb .. b * nb + nb - 1).
struct BlockRows {
  int nb = 1;
  PetscInt first_block = 0;              ///< the rank's first global block row
  ordinal_t n = 0;                       ///< owned block rows
  std::vector<offset_t> row_ptr;         ///< n + 1
  std::vector<ordinal_t> col_idx;        ///< owned rows 0 .. n - 1, ghosts n ..
  std::vector<std::int64_t> global_ids;  ///< n: first_block + i
  std::vector<std::int64_t> ghost_ids;   ///< the ghosts' global block rows, ascending
  /// Per entry of MatGetRow over the owned scalar rows in order: its place in O (>= 0) or
  /// -1 - its place in D (column-major nb x nb blocks).
  std::vector<std::int64_t> place;
  std::vector<PetscInt> row_entries;  ///< per owned scalar row, how many MatGetRow gave
  PetscObjectState nonzero_state = 0;
  offset_t nnzb() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
};

/// The block rows of this rank's share of A. InvalidArgument for a type other than (seq|mpi)aij
/// or (seq|mpi)baij and their derived types, a row distribution or size that does not split
/// into whole blocks, a block row without its diagonal block, or more block rows than ppsparse's
/// 32-bit indices hold; rows named in PETSc's numbering.
BlockRows block_rows(Mat A);

/// The values of A into O (nnzb nb x nb blocks) and D (n blocks), in the layout of `rows`;
/// entries MatGetRow does not give stay as they were (zero when the arrays are new). Returns
/// false, writing nothing further, where a row's entries no longer match the setup (a new
/// pattern PETSc did not count). NumericalError naming the global row and column of a NaN or Inf.
bool gather_values(Mat A, const BlockRows& rows, std::vector<double>& O, std::vector<double>& D);

}  // namespace ppsparse::petsc

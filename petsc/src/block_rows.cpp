#include "block_rows.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include <ppsparse/error.hpp>

namespace ppsparse::petsc {

static_assert(std::is_same_v<PetscScalar, double>, "PCMCPI needs PETSc with real double scalars");

void check_petsc(PetscErrorCode code, const char* what) {
  if (code != 0)
    throw Error(std::string("PCMCPI: PETSc's ") + what + " failed (PETSc error " + std::to_string(code) + ")");
}

namespace {

/// MatGetRow's columns (and values, if asked) of one owned scalar row, restored on leaving.
class Row {
 public:
  Row(Mat A, PetscInt row, bool values) : A_(A), row_(row) {
    check_petsc(MatGetRow(A, row, &count_, &cols_, values ? &vals_ : nullptr), "MatGetRow");
    with_values_ = values;
  }
  ~Row() { MatRestoreRow(A_, row_, &count_, &cols_, with_values_ ? &vals_ : nullptr); }
  Row(const Row&) = delete;
  Row& operator=(const Row&) = delete;
  PetscInt size() const { return count_; }
  PetscInt col(PetscInt j) const { return cols_[j]; }
  double value(PetscInt j) const { return vals_[j]; }

 private:
  Mat A_;
  PetscInt row_;
  PetscInt count_ = 0;
  const PetscInt* cols_ = nullptr;
  const PetscScalar* vals_ = nullptr;
  bool with_values_ = false;
};

std::string rows_of(PetscInt block, int nb) {
  return nb == 1 ? "row " + std::to_string(block)
                 : "block row " + std::to_string(block) + " (rows " + std::to_string(block * nb) + ".." +
                       std::to_string(block * nb + nb - 1) + ")";
}

}  // namespace

BlockRows block_rows(Mat A) {
  MatType type = nullptr;
  check_petsc(MatGetType(A, &type), "MatGetType");
  const std::string t = type ? type : "";
  bool supported = false;
  for (const char* base : {"seqaij", "mpiaij", "seqbaij", "mpibaij"}) supported = supported || t.rfind(base, 0) == 0;
  if (!supported)
    throw InvalidArgument("PCMCPI: matrix type '" + t +
                          "' is not supported: use seqbaij or mpibaij, or seqaij or mpiaij with a block size "
                          "(MatSetBlockSize)");
  PetscInt bs = 1, first = 0, end = 0, rows = 0, cols = 0;
  check_petsc(MatGetBlockSize(A, &bs), "MatGetBlockSize");
  check_petsc(MatGetOwnershipRange(A, &first, &end), "MatGetOwnershipRange");
  check_petsc(MatGetSize(A, &rows, &cols), "MatGetSize");
  if (rows != cols)
    throw InvalidArgument("PCMCPI: the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) +
                          ", not square");
  if (bs < 1 || bs > 64) throw InvalidArgument("PCMCPI: block size " + std::to_string(bs) + " is outside 1..64");
  if (first % bs != 0 || end % bs != 0)
    throw InvalidArgument("PCMCPI: this rank's rows " + std::to_string(first) + ".." + std::to_string(end - 1) +
                          " do not start and end on a block of " + std::to_string(bs) +
                          " rows: give each rank whole blocks");
  const PetscInt n_blocks = (end - first) / bs;
  if (n_blocks > max_ordinal)
    throw InvalidArgument("PCMCPI: " + std::to_string(n_blocks) + " block rows on one rank exceed 2^31 - 1");

  BlockRows b;
  b.nb = static_cast<int>(bs);
  b.first_block = first / bs;
  b.n = static_cast<ordinal_t>(n_blocks);
  b.row_ptr.assign(1, 0);
  b.row_entries.resize(static_cast<size_t>(end - first));
  check_petsc(MatGetNonzeroState(A, &b.nonzero_state), "MatGetNonzeroState");
  // One pass over the rows: each block row's off-diagonal block columns (by global block row,
  // ascending), then where each of its MatGetRow entries goes (its block column and the place
  // within the block, kept while the row's columns are sorted).
  const std::int64_t nb2 = static_cast<std::int64_t>(b.nb) * b.nb;
  std::vector<PetscInt> block_cols, row_cols;
  std::vector<std::pair<PetscInt, std::int64_t>> entries;
  for (ordinal_t i = 0; i < b.n; ++i) {
    const PetscInt global = b.first_block + i;
    bool diagonal = false;
    row_cols.clear();
    entries.clear();
    for (int s = 0; s < b.nb; ++s) {
      const Row row(A, first + static_cast<PetscInt>(i) * bs + s, false);
      b.row_entries[static_cast<size_t>(i) * b.nb + s] = row.size();
      for (PetscInt j = 0; j < row.size(); ++j) {
        const PetscInt c = row.col(j) / bs;
        entries.emplace_back(c, static_cast<std::int64_t>(row.col(j) % bs) * b.nb + s);
        if (c == global)
          diagonal = true;
        else
          row_cols.push_back(c);
      }
    }
    if (!diagonal)
      throw InvalidArgument("PCMCPI: " + rows_of(global, b.nb) +
                            " has no diagonal block: MCPI needs every diagonal block, nonsingular");
    std::sort(row_cols.begin(), row_cols.end());
    row_cols.erase(std::unique(row_cols.begin(), row_cols.end()), row_cols.end());
    const offset_t row_begin = static_cast<offset_t>(block_cols.size());
    for (const auto& [c, within] : entries) {
      if (c == global) {
        b.place.push_back(-1 - (static_cast<std::int64_t>(i) * nb2 + within));
      } else {
        const auto k = std::lower_bound(row_cols.begin(), row_cols.end(), c) - row_cols.begin();
        b.place.push_back((row_begin + static_cast<std::int64_t>(k)) * nb2 + within);
      }
    }
    block_cols.insert(block_cols.end(), row_cols.begin(), row_cols.end());
    b.row_ptr.push_back(static_cast<offset_t>(block_cols.size()));
  }
  // Owned columns by local index, ghosts after them in ascending global order.
  const PetscInt end_block = b.first_block + b.n;
  for (const PetscInt c : block_cols)
    if (c < b.first_block || c >= end_block) b.ghost_ids.push_back(c);
  std::sort(b.ghost_ids.begin(), b.ghost_ids.end());
  b.ghost_ids.erase(std::unique(b.ghost_ids.begin(), b.ghost_ids.end()), b.ghost_ids.end());
  b.col_idx.reserve(block_cols.size());
  for (const PetscInt c : block_cols) {
    if (c >= b.first_block && c < end_block) {
      b.col_idx.push_back(static_cast<ordinal_t>(c - b.first_block));
    } else {
      const auto at = std::lower_bound(b.ghost_ids.begin(), b.ghost_ids.end(), c) - b.ghost_ids.begin();
      b.col_idx.push_back(static_cast<ordinal_t>(b.n + at));
    }
  }
  b.global_ids.resize(static_cast<size_t>(b.n));
  for (ordinal_t i = 0; i < b.n; ++i) b.global_ids[static_cast<size_t>(i)] = b.first_block + i;
  return b;
}

bool gather_values(Mat A, const BlockRows& b, std::vector<double>& O, std::vector<double>& D) {
  PetscInt first = 0, end = 0;
  check_petsc(MatGetOwnershipRange(A, &first, &end), "MatGetOwnershipRange");
  if (end - first != static_cast<PetscInt>(b.row_entries.size())) return false;
  size_t at = 0;
  for (PetscInt r = first; r < end; ++r) {
    const Row row(A, r, true);
    if (row.size() != b.row_entries[static_cast<size_t>(r - first)]) return false;
    for (PetscInt j = 0; j < row.size(); ++j, ++at) {
      const double v = row.value(j);
      if (!std::isfinite(v))
        throw NumericalError("PCMCPI: the matrix holds a NaN or Inf at row " + std::to_string(r) + ", column " +
                             std::to_string(row.col(j)) + " (block row " + std::to_string(r / b.nb) + ")");
      const std::int64_t p = b.place[at];
      (p >= 0 ? O[static_cast<size_t>(p)] : D[static_cast<size_t>(-1 - p)]) = v;
    }
  }
  return true;
}

}  // namespace ppsparse::petsc

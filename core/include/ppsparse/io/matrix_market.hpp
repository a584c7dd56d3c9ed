#pragma once
/// @file
/// Matrix Market (.mtx, .mtx.gz) reader and writer for host CSR matrices.
///
/// Reading accepts "%%MatrixMarket matrix <format> <field> <symmetry>" with
///   format   coordinate | array              (array: column-major, one value a line)
///   field    real | integer | pattern        (pattern: every entry has value 1)
///   symmetry general | symmetric | skew-symmetric
/// (format, field and symmetry are case-insensitive). complex fields and hermitian
/// symmetry are refused as not supported. Symmetric and skew-symmetric files store one
/// triangle; the reader mirrors each off-diagonal entry (negated for skew-symmetric).
/// An array file becomes a dense CSR: every position of the matrix is an entry.
/// Comment lines (first non-blank character '%') and blank lines may appear anywhere
/// after the banner. Gzip-compressed files are read transparently (any file name).
///
/// The CSR returned has sorted rows, one entry per (row, column), and keeps explicit
/// zeros (a stored zero is an entry of the sparsity pattern). Every malformed input is
/// refused with a one-line ppsparse::InputError "FILE:LINE: reason".
///
/// Numbers are parsed and printed with the C library in the "C" locale (the default of
/// every C++ program that does not call setlocale).
#include <string>

#include <ppsparse/formats/csr.hpp>

namespace ppsparse::io {

/// The three words of a Matrix Market banner after "matrix".
enum class MmFormat { coordinate, array };
enum class MmField { real, integer, pattern };
enum class MmSymmetry { general, symmetric, skew_symmetric };

/// Entries listed twice, or (i,j) and (j,i) both given in a (skew-)symmetric file.
/// The default sums them: that is the SuiteSparse / SciPy (coo -> csr) convention, and
/// it is what assembled finite-element input means (element contributions to one entry).
enum class DuplicatePolicy { sum, error };

/// The banner and size line of a Matrix Market file.
struct MmHeader {
  MmFormat format = MmFormat::coordinate;
  MmField field = MmField::real;
  MmSymmetry symmetry = MmSymmetry::general;
  long long nrows = 0;
  long long ncols = 0;
  /// Data lines the file holds: the size line's count for coordinate files; for array
  /// files nrows*ncols (general), n(n+1)/2 (symmetric) or n(n-1)/2 (skew-symmetric).
  long long entries = 0;
};

/// How read_matrix_market treats what the format leaves to the reader.
struct MmReadOptions {
  DuplicatePolicy duplicates = DuplicatePolicy::sum;
  bool allow_nonfinite = false;  ///< accept nan / inf values instead of refusing them
};

/// Reads and validates the banner and the size line only.
MmHeader read_matrix_market_header(const std::string& path);

/// Scalar is float or double. Values are rounded to Scalar; a value that overflows
/// Scalar, or an integer-field value that Scalar cannot hold exactly, is refused.
template <class Scalar>
CsrMatrix<Scalar, HostSpace> read_matrix_market(const std::string& path, const MmReadOptions& options = {});

/// How write_matrix_market writes.
struct MmWriteOptions {
  /// symmetric / skew_symmetric: writes the lower triangle (skew: strictly lower, plus
  /// explicit zero diagonal entries in coordinate format); refuses (InvalidArgument) a
  /// matrix that is not square or not (skew-)symmetric, values compared exactly.
  MmSymmetry symmetry = MmSymmetry::general;
  /// integer: refuses non-integral values. pattern: writes the structure only (values
  /// are dropped, and read back as 1); needs coordinate format, not skew-symmetric.
  MmField field = MmField::real;
  /// array: writes every position column-major, zeros where the CSR has no entry.
  MmFormat format = MmFormat::coordinate;
};

/// Writes gzip when path ends in ".gz". Real values are printed with max_digits10
/// significant digits, so reading the file back gives the same Scalar values bit for bit.
/// A file that cannot be written is an InputError naming it; a malformed CSR or an
/// option the matrix cannot satisfy is an InvalidArgument.
template <class Scalar>
void write_matrix_market(const std::string& path, const CsrMatrix<Scalar, HostSpace>& a,
                         const MmWriteOptions& options = {});

/// Banner spellings ("coordinate", "real", "skew-symmetric", ...), for messages and tools.
const char* to_string(MmFormat format);
const char* to_string(MmField field);
const char* to_string(MmSymmetry symmetry);

}  // namespace ppsparse::io

// Matrix Market reader: the shared line reader (text_scan.hpp: plain and gzip files alike), a strict
// parser that refuses every malformed line with "FILE:LINE: reason", and the assembly
// of the (row, column, value) list into a sorted CSR. The banner and size line are
// matrix_market_header.cpp's.
#include <ppsparse/io/matrix_market.hpp>

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include <ppsparse/error.hpp>

#include "matrix_market_lines.hpp"
#include "text_scan.hpp"

namespace ppsparse::io {

using text::is_space;
using text::quoted;
using namespace mm;  // the shared line fields and the header (matrix_market_lines.hpp)

namespace {

// Parses one value field of the given Matrix Market field into Scalar.
template <class Scalar>
Scalar parse_value(text::Lines& in, std::string_view s, MmField field, bool allow_nonfinite) {
  constexpr const char* scalar_name = std::is_same_v<Scalar, float> ? "float" : "double";
  if (field == MmField::integer) {
    long long v = 0;
    const text::Parsed r = text::parse_integer(s, v);
    if (r == text::Parsed::not_a_number) in.fail("value " + quoted(s) + " is not an integer (the field is 'integer')");
    if (r == text::Parsed::out_of_range) in.fail("integer value " + quoted(s) + " does not fit in 64 bits");
    const Scalar x = static_cast<Scalar>(v);
    // 2^63 itself is outside long long, so test the range before converting back.
    const bool exact =
        x < static_cast<Scalar>(0x1p63) && x >= static_cast<Scalar>(-0x1p63) && static_cast<long long>(x) == v;
    if (!exact) in.fail("integer value " + std::to_string(v) + " is not exactly representable as " + scalar_name);
    return x;
  }
  errno = 0;
  char* end = nullptr;
  Scalar x;
  if constexpr (std::is_same_v<Scalar, float>)
    x = std::strtof(s.data(), &end);
  else
    x = static_cast<Scalar>(std::strtod(s.data(), &end));
  if (end != s.data() + s.size()) in.fail("value " + quoted(s) + " is not a number");
  // ERANGE also flags subnormal results, which are kept; only overflow is refused.
  if (errno == ERANGE && std::isinf(x)) in.fail("value " + quoted(s) + " overflows " + scalar_name);
  if (!allow_nonfinite && !std::isfinite(x))
    in.fail("non-finite value " + quoted(s) + " (refused unless the reader is told to allow non-finite values)");
  return x;
}

// Entries as read, in file order; (skew-)symmetric entries folded onto the lower triangle.
template <class Scalar>
struct Triplets {
  std::vector<ordinal_t> row, col;
  std::vector<Scalar> val;
  std::vector<long long> line;  // only kept for DuplicatePolicy::error, to name both lines
};

template <class Scalar>
void read_coordinate_entries(text::Lines& in, const MmHeader& h, const MmReadOptions& opt, Triplets<Scalar>& t) {
  const bool pattern = h.field == MmField::pattern;
  const bool keep_lines = opt.duplicates == DuplicatePolicy::error;
  // The size line may lie; reserve no more than a modest amount up front.
  const size_t reserve = static_cast<size_t>(std::min<long long>(h.entries, 1 << 20));
  t.row.reserve(reserve);
  t.col.reserve(reserve);
  t.val.reserve(reserve);
  if (keep_lines) t.line.reserve(reserve);

  const char* layout = pattern ? "(expected 'row column')" : "(expected 'row column value')";
  std::string_view line;
  long long read = 0;
  while (read < h.entries) {
    if (!in.next(line))
      in.fail("truncated: the file ends after " + std::to_string(read) + " of the " + std::to_string(h.entries) +
              " entries the size line announces");
    if (is_skippable(line)) continue;
    const Fields f(line);
    long long idx[2] = {0, 0};
    const long long limit[2] = {h.nrows, h.ncols};
    static const char* const names[2] = {"row", "column"};
    for (int k = 0; k < 2; ++k) {
      if (k >= f.count) in.fail(std::string("missing column index ") + layout);
      const text::Parsed r = text::parse_integer(f.field[k], idx[k]);
      if (r == text::Parsed::out_of_range)
        in.fail(std::string(names[k]) + " index " + quoted(f.field[k]) + " is too large");
      if (r != text::Parsed::ok) in.fail(std::string(names[k]) + " index " + quoted(f.field[k]) + " is not an integer");
      if (idx[k] < 1 || idx[k] > limit[k])
        in.fail(std::string(names[k]) + " index " + std::to_string(idx[k]) + " out of range 1.." +
                std::to_string(limit[k]));
    }
    Scalar v = Scalar(1);
    if (!pattern) {
      if (f.count < 3) in.fail(std::string("missing value ") + layout);
      v = parse_value<Scalar>(in, f.field[2], h.field, opt.allow_nonfinite);
    }
    const int used = pattern ? 2 : 3;
    if (f.count > used)
      in.fail("unexpected text " + quoted(f.from(used)) +
              (pattern ? " after the column index (a pattern entry has no value)" : " after the value"));
    ordinal_t i = static_cast<ordinal_t>(idx[0] - 1), j = static_cast<ordinal_t>(idx[1] - 1);
    if (h.symmetry == MmSymmetry::skew_symmetric && i == j && v != Scalar(0))
      in.fail("nonzero diagonal entry (" + std::to_string(idx[0]) + ", " + std::to_string(idx[1]) +
              ") = " + format_value(static_cast<double>(v)) + " in a skew-symmetric matrix");
    if (h.symmetry != MmSymmetry::general && i < j) {
      // An upper-triangle entry stands for its lower mirror.
      std::swap(i, j);
      if (h.symmetry == MmSymmetry::skew_symmetric) v = -v;
    }
    t.row.push_back(i);
    t.col.push_back(j);
    t.val.push_back(v);
    if (keep_lines) t.line.push_back(in.line_number());
    ++read;
  }
}

// Only comments and blank lines may follow the last announced entry.
void expect_end(text::Lines& in, const MmHeader& h) {
  std::string_view line;
  while (in.next(line)) {
    if (is_skippable(line)) continue;
    in.fail("more entries than the " + std::to_string(h.entries) + " the size line announces");
  }
}

// Sorts the triplets by (row, column), keeping file order among equal positions, and
// merges duplicates. Returns CSR arrays of the (folded) entries.
template <class Scalar>
void sort_and_merge(text::Lines& in, ordinal_t nrows, bool folded, DuplicatePolicy policy, Triplets<Scalar>& t,
                    std::vector<offset_t>& ptr, std::vector<ordinal_t>& col, std::vector<Scalar>& val) {
  const size_t n = t.row.size();
  const bool keep_lines = policy == DuplicatePolicy::error;
  // Stable counting sort by row.
  ptr.assign(static_cast<size_t>(nrows) + 1, 0);
  for (size_t k = 0; k < n; ++k) ++ptr[static_cast<size_t>(t.row[k]) + 1];
  for (ordinal_t i = 0; i < nrows; ++i) ptr[i + 1] += ptr[i];
  std::vector<offset_t> next(ptr.begin(), ptr.end() - 1);
  col.resize(n);
  val.resize(n);
  std::vector<long long> line(keep_lines ? n : 0);
  for (size_t k = 0; k < n; ++k) {
    const offset_t p = next[t.row[k]]++;
    col[p] = t.col[k];
    val[p] = t.val[k];
    if (keep_lines) line[p] = t.line[k];
  }
  t = Triplets<Scalar>();  // release the file-order copy

  // Stable sort within each row by column (rows of SuiteSparse files arrive sorted).
  std::vector<offset_t> order;
  std::vector<ordinal_t> tmp_col;
  std::vector<Scalar> tmp_val;
  std::vector<long long> tmp_line;
  for (ordinal_t i = 0; i < nrows; ++i) {
    const offset_t b = ptr[i], e = ptr[i + 1];
    if (std::is_sorted(col.begin() + b, col.begin() + e)) continue;
    order.resize(static_cast<size_t>(e - b));
    for (offset_t k = b; k < e; ++k) order[k - b] = k;
    std::stable_sort(order.begin(), order.end(), [&](offset_t x, offset_t y) { return col[x] < col[y]; });
    tmp_col.assign(col.begin() + b, col.begin() + e);
    tmp_val.assign(val.begin() + b, val.begin() + e);
    if (keep_lines) tmp_line.assign(line.begin() + b, line.begin() + e);
    for (size_t k = 0; k < order.size(); ++k) {
      col[b + k] = tmp_col[order[k] - b];
      val[b + k] = tmp_val[order[k] - b];
      if (keep_lines) line[b + k] = tmp_line[order[k] - b];
    }
  }

  if (keep_lines) {
    // Report the duplicate that comes first in the file.
    long long worst = 0, first = 0;
    ordinal_t wi = 0, wj = 0;
    for (ordinal_t i = 0; i < nrows; ++i)
      for (offset_t k = ptr[i] + 1; k < ptr[i + 1]; ++k)
        if (col[k] == col[k - 1] && (worst == 0 || line[k] < worst)) {
          worst = line[k];
          first = line[k - 1];
          wi = i;
          wj = col[k];
        }
    if (worst != 0) {
      const std::string at = "(" + std::to_string(wi + 1LL) + ", " + std::to_string(wj + 1LL) + ")";
      const std::string mirror = "(" + std::to_string(wj + 1LL) + ", " + std::to_string(wi + 1LL) + ")";
      throw InputError(in.path(), worst,
                       "duplicate entry " + at + ": line " + std::to_string(first) + " already gave " + at +
                           (folded && wi != wj ? " or its mirror " + mirror : std::string()) +
                           " (DuplicatePolicy::error)");
    }
    return;
  }
  // Sum duplicates in file order.
  offset_t out = 0;
  offset_t b = 0;
  for (ordinal_t i = 0; i < nrows; ++i) {
    const offset_t e = ptr[i + 1];
    for (offset_t k = b; k < e; ++k) {
      if (k > b && col[k] == col[out - 1]) {
        val[out - 1] += val[k];
      } else {
        col[out] = col[k];
        val[out] = val[k];
        ++out;
      }
    }
    b = e;
    ptr[i + 1] = out;
  }
  col.resize(static_cast<size_t>(out));
  val.resize(static_cast<size_t>(out));
}

// Lower-triangle CSR (sorted, unique) -> full CSR with mirrored off-diagonal entries.
template <class Scalar>
CsrMatrix<Scalar, HostSpace> expand_symmetric(ordinal_t n, bool skew, const std::vector<offset_t>& ptr,
                                              const std::vector<ordinal_t>& col, const std::vector<Scalar>& val) {
  std::vector<offset_t> len(static_cast<size_t>(n), 0);
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = ptr[i]; k < ptr[i + 1]; ++k) {
      ++len[i];
      if (col[k] != i) ++len[col[k]];
    }
  offset_t nnz = 0;
  for (ordinal_t i = 0; i < n; ++i) nnz += len[i];
  CsrMatrix<Scalar, HostSpace> a(n, n, nnz, "mtx");
  for (ordinal_t i = 0; i < n; ++i) a.row_ptr(i + 1) = a.row_ptr(i) + len[i];
  std::vector<offset_t> next(static_cast<size_t>(n));
  for (ordinal_t i = 0; i < n; ++i) next[i] = a.row_ptr(i);
  // Row i receives its own lower entries (columns <= i) while row i is visited, and the
  // mirrors (columns > i) from later rows in increasing order: every row ends up sorted.
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = ptr[i]; k < ptr[i + 1]; ++k) {
      const ordinal_t j = col[k];
      offset_t p = next[i]++;
      a.col_idx(p) = j;
      a.values(p) = val[k];
      if (j != i) {
        p = next[j]++;
        a.col_idx(p) = i;
        a.values(p) = skew ? -val[k] : val[k];
      }
    }
  return a;
}

template <class Scalar>
CsrMatrix<Scalar, HostSpace> read_coordinate(text::Lines& in, const MmHeader& h, const MmReadOptions& opt) {
  Triplets<Scalar> t;
  read_coordinate_entries(in, h, opt, t);
  expect_end(in, h);
  const ordinal_t m = static_cast<ordinal_t>(h.nrows), n = static_cast<ordinal_t>(h.ncols);
  const bool folded = h.symmetry != MmSymmetry::general;
  std::vector<offset_t> ptr;
  std::vector<ordinal_t> col;
  std::vector<Scalar> val;
  sort_and_merge(in, m, folded, opt.duplicates, t, ptr, col, val);
  if (folded) return expand_symmetric(m, h.symmetry == MmSymmetry::skew_symmetric, ptr, col, val);
  CsrMatrix<Scalar, HostSpace> a(m, n, static_cast<offset_t>(col.size()), "mtx");
  for (ordinal_t i = 0; i <= m; ++i) a.row_ptr(i) = ptr[i];
  for (size_t k = 0; k < col.size(); ++k) {
    a.col_idx(k) = col[k];
    a.values(k) = val[k];
  }
  return a;
}

// Array files list values column-major (lower triangle only when (skew-)symmetric);
// the result is dense: every position is an entry, the skew diagonal is zero.
template <class Scalar>
CsrMatrix<Scalar, HostSpace> read_array(text::Lines& in, const MmHeader& h, const MmReadOptions& opt) {
  std::vector<Scalar> stored;
  stored.reserve(static_cast<size_t>(std::min<long long>(h.entries, 1 << 20)));
  std::string_view line;
  while (static_cast<long long>(stored.size()) < h.entries) {
    if (!in.next(line))
      in.fail("truncated: the file ends after " + std::to_string(stored.size()) + " of the " +
              std::to_string(h.entries) + " values a " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
              " " + to_string(h.symmetry) + " array holds");
    if (is_skippable(line)) continue;
    const Fields f(line);
    const Scalar v = parse_value<Scalar>(in, f.field[0], h.field, opt.allow_nonfinite);
    if (f.count > 1)
      in.fail("unexpected text " + quoted(f.from(1)) + " after the value (an array file holds one value a line)");
    stored.push_back(v);
  }
  expect_end(in, h);

  const ordinal_t m = static_cast<ordinal_t>(h.nrows), n = static_cast<ordinal_t>(h.ncols);
  CsrMatrix<Scalar, HostSpace> a(m, n, static_cast<offset_t>(m) * n, "mtx");
  const long long nn = n;
  // Index of stored value (i, j), i >= j (i > j for skew), in the column-major lower triangle.
  auto lower_at = [&](long long i, long long j) -> size_t {
    if (h.symmetry == MmSymmetry::symmetric) return static_cast<size_t>(j * nn - j * (j - 1) / 2 + (i - j));
    return static_cast<size_t>(j * (nn - 1) - j * (j - 1) / 2 + (i - j - 1));
  };
  offset_t p = 0;
  for (ordinal_t i = 0; i < m; ++i) {
    for (ordinal_t j = 0; j < n; ++j, ++p) {
      a.col_idx(p) = j;
      Scalar v;
      switch (h.symmetry) {
        case MmSymmetry::general:
          v = stored[static_cast<size_t>(j) * m + i];
          break;
        case MmSymmetry::symmetric:
          v = i >= j ? stored[lower_at(i, j)] : stored[lower_at(j, i)];
          break;
        default:
          v = i == j ? Scalar(0) : i > j ? stored[lower_at(i, j)] : -stored[lower_at(j, i)];
          break;
      }
      a.values(p) = v;
    }
    a.row_ptr(i + 1) = p;
  }
  return a;
}

}  // namespace

template <class Scalar>
CsrMatrix<Scalar, HostSpace> read_matrix_market(const std::string& path, const MmReadOptions& options) {
  text::Lines in(path, "a Matrix Market file");
  const MmHeader h = parse_header(in);
  try {
    if (h.format == MmFormat::array) return read_array<Scalar>(in, h, options);
    return read_coordinate<Scalar>(in, h, options);
  } catch (const std::bad_alloc&) {  // Kokkos' allocation failure derives from it too
    throw InputError(path, "out of memory for a " + std::to_string(h.nrows) + " x " + std::to_string(h.ncols) +
                               " matrix with " + std::to_string(h.entries) + " stored entries");
  }
}

template CsrMatrix<float, HostSpace> read_matrix_market<float>(const std::string&, const MmReadOptions&);
template CsrMatrix<double, HostSpace> read_matrix_market<double>(const std::string&, const MmReadOptions&);

}  // namespace ppsparse::io

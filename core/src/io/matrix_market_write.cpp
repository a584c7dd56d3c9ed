// Matrix Market writer: checks that the matrix fits the requested field and symmetry
// before the file is touched, then streams the text through zlib (gzip for *.gz).
#include <ppsparse/io/matrix_market.hpp>

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/convert.hpp>

namespace ppsparse::io {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string at(ordinal_t i, ordinal_t j) {
  return "a(" + std::to_string(i + 1LL) + "," + std::to_string(j + 1LL) + ")";
}

std::string show(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Buffered text output through zlib: "wb" compresses, "wbT" writes the bytes as they are.
class TextSink {
 public:
  explicit TextSink(const std::string& path) : path_(path) {
    errno = 0;
    file_ = gzopen(path.c_str(), ends_with(path, ".gz") ? "wb6" : "wbT");
    if (!file_)
      throw InputError(path,
                       std::string("cannot open for writing: ") + (errno ? std::strerror(errno) : "out of memory"));
    buf_.reserve(chunk + 64);
  }
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;
  ~TextSink() {
    if (file_) gzclose(file_);
  }

  void text(const char* s) { buf_ += s; }
  void integer(long long v) {
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, static_cast<size_t>(r.ptr - tmp));
  }
  // max_digits10 significant digits: the shortest %g precision that reads back exactly.
  template <class Scalar>
  void real(Scalar v) {
    char tmp[40];
    const int n =
        std::snprintf(tmp, sizeof tmp, "%.*g", std::numeric_limits<Scalar>::max_digits10, static_cast<double>(v));
    buf_.append(tmp, static_cast<size_t>(n));
  }
  void space() { buf_ += ' '; }
  void end_line() {
    buf_ += '\n';
    if (buf_.size() >= chunk) flush();
  }

  void close() {
    flush();
    const int rc = gzclose(file_);
    file_ = nullptr;
    if (rc != Z_OK) throw InputError(path_, "write failed while closing the file");
  }

 private:
  static constexpr size_t chunk = size_t(1) << 20;

  void flush() {
    if (buf_.empty()) return;
    if (gzwrite(file_, buf_.data(), static_cast<unsigned>(buf_.size())) != static_cast<int>(buf_.size())) {
      int code = Z_OK;
      const char* msg = gzerror(file_, &code);
      throw InputError(path_, std::string("write failed: ") + (code == Z_ERRNO ? std::strerror(errno) : msg));
    }
    buf_.clear();
  }

  std::string path_;
  gzFile file_ = nullptr;
  std::string buf_;
};

// Position of (i, j) in row i of a sorted CSR, or -1.
template <class Scalar>
offset_t find(const CsrMatrix<Scalar, HostSpace>& a, ordinal_t i, ordinal_t j) {
  const ordinal_t* b = a.col_idx.data() + a.row_ptr(i);
  const ordinal_t* e = a.col_idx.data() + a.row_ptr(i + 1);
  const ordinal_t* p = std::lower_bound(b, e, j);
  return p != e && *p == j ? static_cast<offset_t>(p - a.col_idx.data()) : -1;
}

template <class Scalar>
bool same(Scalar x, Scalar y) {
  return x == y || (std::isnan(x) && std::isnan(y));
}

// Refuses (InvalidArgument) a matrix that the options cannot describe.
template <class Scalar>
void check_writable(const std::string& path, const CsrMatrix<Scalar, HostSpace>& a, const MmWriteOptions& opt) {
  const std::string who = "write_matrix_market(" + path + "): ";
  validate(a, who + "matrix");
  if (opt.field == MmField::pattern && opt.format == MmFormat::array)
    throw InvalidArgument(who + "a pattern matrix needs coordinate format, not array");
  if (opt.field == MmField::pattern && opt.symmetry == MmSymmetry::skew_symmetric)
    throw InvalidArgument(who + "a pattern matrix cannot be skew-symmetric");
  if (opt.field == MmField::integer)
    for (size_t k = 0; k < a.values.extent(0); ++k) {
      const double v = static_cast<double>(a.values(k));
      if (!(std::trunc(v) == v && v >= -0x1p63 && v < 0x1p63))
        throw InvalidArgument(who + "value " + show(v) + " (entry " + std::to_string(k) +
                              ") is not an integer; the field 'integer' cannot hold it");
    }
  if (opt.symmetry == MmSymmetry::general) return;
  const char* name = to_string(opt.symmetry);
  if (a.nrows != a.ncols)
    throw InvalidArgument(who + "a " + name + " matrix must be square, this one is " + std::to_string(a.nrows) + " x " +
                          std::to_string(a.ncols));
  const bool skew = opt.symmetry == MmSymmetry::skew_symmetric;
  const bool values = opt.field != MmField::pattern;
  for (ordinal_t i = 0; i < a.nrows; ++i)
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
      const ordinal_t j = a.col_idx(k);
      const Scalar v = a.values(k);
      if (i == j) {
        if (skew && v != Scalar(0))
          throw InvalidArgument(who + "matrix is not skew-symmetric: diagonal entry " + at(i, i) + " = " + show(v) +
                                " is nonzero");
        continue;
      }
      const offset_t m = find(a, j, i);
      if (m < 0)
        throw InvalidArgument(who + "matrix is not " + name + ": " + at(i, j) + " is an entry but " + at(j, i) +
                              " is not");
      const Scalar w = a.values(m);
      if (values && !same(w, skew ? Scalar(-v) : v))
        throw InvalidArgument(who + "matrix is not " + name + ": " + at(i, j) + " = " + show(v) + " but " + at(j, i) +
                              " = " + show(w));
    }
}

template <class Scalar>
void put_value(TextSink& out, Scalar v, MmField field) {
  if (field == MmField::integer)
    out.integer(static_cast<long long>(v));
  else
    out.real(v);
}

template <class Scalar>
void write_coordinate(TextSink& out, const CsrMatrix<Scalar, HostSpace>& a, const MmWriteOptions& opt) {
  // (Skew-)symmetric files hold the lower triangle; a skew file's explicit zero
  // diagonal entries are kept so that the pattern survives the round trip.
  const bool lower = opt.symmetry != MmSymmetry::general;
  offset_t count = 0;
  if (!lower) {
    count = a.nnz();
  } else {
    for (ordinal_t i = 0; i < a.nrows; ++i)
      for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) count += a.col_idx(k) <= i;
  }
  out.integer(a.nrows);
  out.space();
  out.integer(a.ncols);
  out.space();
  out.integer(count);
  out.end_line();
  for (ordinal_t i = 0; i < a.nrows; ++i)
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
      const ordinal_t j = a.col_idx(k);
      if (lower && j > i) continue;
      out.integer(i + 1LL);
      out.space();
      out.integer(j + 1LL);
      if (opt.field != MmField::pattern) {
        out.space();
        put_value(out, a.values(k), opt.field);
      }
      out.end_line();
    }
}

template <class Scalar>
void write_array(TextSink& out, const CsrMatrix<Scalar, HostSpace>& a, const MmWriteOptions& opt) {
  out.integer(a.nrows);
  out.space();
  out.integer(a.ncols);
  out.end_line();
  // Column-major output: walk a transposed copy, one dense column at a time.
  const size_t m = static_cast<size_t>(a.nrows), n = static_cast<size_t>(a.ncols);
  std::vector<offset_t> cptr(n + 1, 0);
  for (offset_t k = 0; k < a.nnz(); ++k) ++cptr[static_cast<size_t>(a.col_idx(k)) + 1];
  for (size_t j = 0; j < n; ++j) cptr[j + 1] += cptr[j];
  std::vector<ordinal_t> crow(static_cast<size_t>(a.nnz()));
  std::vector<Scalar> cval(static_cast<size_t>(a.nnz()));
  std::vector<offset_t> next(cptr.begin(), cptr.end() - 1);
  for (ordinal_t i = 0; i < a.nrows; ++i)
    for (offset_t k = a.row_ptr(i); k < a.row_ptr(i + 1); ++k) {
      const offset_t p = next[a.col_idx(k)]++;
      crow[p] = i;
      cval[p] = a.values(k);
    }
  std::vector<Scalar> column(m, Scalar(0));
  for (size_t j = 0; j < n; ++j) {
    for (offset_t k = cptr[j]; k < cptr[j + 1]; ++k) column[crow[k]] = cval[k];
    const size_t first = opt.symmetry == MmSymmetry::general ? 0 : opt.symmetry == MmSymmetry::symmetric ? j : j + 1;
    for (size_t i = first; i < m; ++i) {
      put_value(out, column[i], opt.field);
      out.end_line();
    }
    for (offset_t k = cptr[j]; k < cptr[j + 1]; ++k) column[crow[k]] = Scalar(0);
  }
}

}  // namespace

template <class Scalar>
void write_matrix_market(const std::string& path, const CsrMatrix<Scalar, HostSpace>& a,
                         const MmWriteOptions& options) {
  check_writable(path, a, options);
  TextSink out(path);
  out.text("%%MatrixMarket matrix ");
  out.text(to_string(options.format));
  out.text(" ");
  out.text(to_string(options.field));
  out.text(" ");
  out.text(to_string(options.symmetry));
  out.end_line();
  out.text("% written by ppsparse");
  out.end_line();
  if (options.format == MmFormat::coordinate)
    write_coordinate(out, a, options);
  else
    write_array(out, a, options);
  out.close();
}

template void write_matrix_market<float>(const std::string&, const CsrMatrix<float, HostSpace>&, const MmWriteOptions&);
template void write_matrix_market<double>(const std::string&, const CsrMatrix<double, HostSpace>&,
                                          const MmWriteOptions&);

}  // namespace ppsparse::io

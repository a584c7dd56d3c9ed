// The Matrix Market banner and size line: the names of the header's fields, and their strict
// parse (every defect "FILE:LINE: reason").
#include <limits>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/io/matrix_market.hpp>

#include "matrix_market_lines.hpp"

namespace ppsparse::io {

const char* to_string(MmFormat format) { return format == MmFormat::coordinate ? "coordinate" : "array"; }

const char* to_string(MmField field) {
  switch (field) {
    case MmField::real:
      return "real";
    case MmField::integer:
      return "integer";
    case MmField::pattern:
      return "pattern";
  }
  return "?";
}

const char* to_string(MmSymmetry symmetry) {
  switch (symmetry) {
    case MmSymmetry::general:
      return "general";
    case MmSymmetry::symmetric:
      return "symmetric";
    case MmSymmetry::skew_symmetric:
      return "skew-symmetric";
  }
  return "?";
}

namespace mm {

MmHeader parse_header(text::Lines& in) {
  std::string_view line;
  if (!in.next(line)) throw InputError(in.path(), 1, "empty file: missing %%MatrixMarket banner");
  const Fields banner(line);
  if (banner.count == 0 || !iequals(banner.field[0], "%%MatrixMarket"))
    in.fail("missing %%MatrixMarket banner (the first line must read '%%MatrixMarket matrix FORMAT FIELD SYMMETRY')");
  if (banner.count < 5)
    in.fail("banner has " + std::to_string(banner.count) +
            " of its 5 fields ('%%MatrixMarket matrix FORMAT FIELD SYMMETRY')");
  if (banner.count > 5) in.fail("unexpected text " + quoted(banner.from(5)) + " after the banner's symmetry field");

  MmHeader h;
  const std::string_view object = banner.field[1], format = banner.field[2], field = banner.field[3],
                         symmetry = banner.field[4];
  if (!iequals(object, "matrix")) in.fail("object " + quoted(object) + " is not supported (only 'matrix' is)");

  if (iequals(format, "coordinate"))
    h.format = MmFormat::coordinate;
  else if (iequals(format, "array"))
    h.format = MmFormat::array;
  else
    in.fail("unknown format " + quoted(format) + " (expected coordinate or array)");

  if (iequals(field, "real"))
    h.field = MmField::real;
  else if (iequals(field, "integer"))
    h.field = MmField::integer;
  else if (iequals(field, "pattern"))
    h.field = MmField::pattern;
  else if (iequals(field, "complex"))
    in.fail("field 'complex' is not supported (real, integer and pattern are)");
  else
    in.fail("unknown field " + quoted(field) + " (expected real, integer or pattern)");

  if (iequals(symmetry, "general"))
    h.symmetry = MmSymmetry::general;
  else if (iequals(symmetry, "symmetric"))
    h.symmetry = MmSymmetry::symmetric;
  else if (iequals(symmetry, "skew-symmetric"))
    h.symmetry = MmSymmetry::skew_symmetric;
  else if (iequals(symmetry, "hermitian"))
    in.fail("symmetry 'hermitian' is not supported (general, symmetric and skew-symmetric are)");
  else
    in.fail("unknown symmetry " + quoted(symmetry) + " (expected general, symmetric or skew-symmetric)");

  if (h.field == MmField::pattern && h.format == MmFormat::array)
    in.fail("a pattern matrix needs coordinate format, not array");
  if (h.field == MmField::pattern && h.symmetry == MmSymmetry::skew_symmetric)
    in.fail("a pattern matrix cannot be skew-symmetric (it has no values to negate)");

  // Size line: "rows cols entries" (coordinate) or "rows cols" (array).
  do {
    if (!in.next(line)) in.fail("missing size line: the file ends after the header");
  } while (is_skippable(line));
  const bool coordinate = h.format == MmFormat::coordinate;
  const int expected = coordinate ? 3 : 2;
  const char* layout = coordinate ? "'rows columns entries'" : "'rows columns'";
  const Fields size(line);
  if (size.count < expected)
    in.fail("size line has " + std::to_string(size.count) + " of its " + std::to_string(expected) + " numbers " +
            layout);
  if (size.count > expected)
    in.fail("unexpected text " + quoted(size.from(expected)) + " after the size line " + layout);
  static const char* const names[3] = {"rows", "columns", "entries"};
  long long value[3] = {0, 0, 0};
  for (int k = 0; k < expected; ++k) {
    const text::Parsed r = text::parse_integer(size.field[k], value[k]);
    if (r == text::Parsed::not_a_number)
      in.fail(std::string("size line: ") + names[k] + " " + quoted(size.field[k]) + " is not an integer");
    if (r == text::Parsed::out_of_range)
      in.fail(std::string("size line: ") + names[k] + " " + quoted(size.field[k]) + " is too large");
    if (value[k] < 0) in.fail(std::string("size line: negative ") + names[k] + " " + std::to_string(value[k]));
    if (k < 2 && value[k] > max_ordinal)
      in.fail("size line: " + std::to_string(value[k]) + " " + names[k] + " exceed the 32-bit index limit " +
              std::to_string(max_ordinal));
  }
  h.nrows = value[0];
  h.ncols = value[1];
  if (h.symmetry != MmSymmetry::general && h.nrows != h.ncols)
    in.fail(std::string(to_string(h.symmetry)) + " matrix must be square, the size line gives " +
            std::to_string(h.nrows) + " x " + std::to_string(h.ncols));
  if (coordinate) {
    h.entries = value[2];
  } else {
    const long long n = h.nrows;  // < 2^31, so the products below fit in 64 bits
    switch (h.symmetry) {
      case MmSymmetry::general:
        h.entries = h.nrows * h.ncols;
        break;
      case MmSymmetry::symmetric:
        h.entries = n * (n + 1) / 2;
        break;
      case MmSymmetry::skew_symmetric:
        h.entries = n * (n - 1) / 2;
        break;
    }
  }
  return h;
}

}  // namespace mm

MmHeader read_matrix_market_header(const std::string& path) {
  text::Lines in(path, "a Matrix Market file");
  return mm::parse_header(in);
}

}  // namespace ppsparse::io

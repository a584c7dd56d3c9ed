#pragma once
// What the Matrix Market reader's two files (matrix_market_header.cpp, matrix_market_read.cpp)
// share: the fields of a line, the lines to skip, and the parse of the banner and size line.
#include <cstdio>
#include <string>
#include <string_view>

#include <ppsparse/io/matrix_market.hpp>

#include "text_scan.hpp"

namespace ppsparse::io::mm {

using text::is_space;
using text::quoted;

// Whitespace-separated fields of a line; stops after `max` fields.
struct Fields {
  static constexpr int max = 6;
  std::string_view field[max];
  int count = 0;
  std::string_view line;

  explicit Fields(std::string_view l) : line(l) {
    size_t p = 0;
    while (count < max) {
      while (p < l.size() && is_space(l[p])) ++p;
      if (p == l.size()) break;
      const size_t b = p;
      while (p < l.size() && !is_space(l[p])) ++p;
      field[count++] = l.substr(b, p - b);
    }
  }
  // Everything from field k to the end of the line, for "unexpected text" messages.
  std::string_view from(int k) const {
    const size_t b = static_cast<size_t>(field[k].data() - line.data());
    size_t e = line.size();
    while (e > b && is_space(line[e - 1])) --e;
    return line.substr(b, e - b);
  }
};

inline bool is_skippable(std::string_view line) {
  for (char c : line) {
    if (c == '%') return true;  // comment
    if (!is_space(c)) return false;
  }
  return true;  // blank
}

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

inline std::string format_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Banner and size line, leaving the reader at the first data line; InputError naming the file
// and line of the first defect.
MmHeader parse_header(text::Lines& in);

}  // namespace ppsparse::io::mm

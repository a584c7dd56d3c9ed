#include "option_values.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <ppsparse/error.hpp>

namespace mcpi_app {

using ppsparse::InvalidArgument;

long long parse_int(const std::string& opt, const std::string& text, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    throw InvalidArgument("mcpi: " + opt + " expects an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "], got '" + text + "'");
  return v;
}

double parse_real(const std::string& opt, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw InvalidArgument("mcpi: " + opt + " expects a number, got '" + text + "'");
  return v;
}

std::vector<double> parse_real_list(const std::string& opt, const std::string& text) {
  std::vector<double> v;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) v.push_back(parse_real(opt, item));
  return v;
}

}  // namespace mcpi_app

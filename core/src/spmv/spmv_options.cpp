#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include <ppsparse/spmv/spmv.hpp>

#include "spmv_kernel.hpp"

namespace ppsparse::spmv {

SpmvOptions parse_spmv_options(const std::string& text, const SpmvOptions& base) {
  SpmvOptions o = base;
  // The options of every algorithm (declared beside it: option_keys_<id>), then the general ones.
  std::vector<detail::SpmvOptionKey> keys;
#define PPSPARSE_SPMV_ALGORITHM(id, summary) \
  for (const auto& k : detail::option_keys_##id()) keys.push_back(k);
#include <ppsparse/spmv/algorithms.def>
#undef PPSPARSE_SPMV_ALGORITHM
  const detail::SpmvOptionKey general[] = {
      {"check_structure", [](SpmvOptions& opt, long long v) { opt.check_structure = v != 0; }},
      {"persist_x", [](SpmvOptions& opt, long long v) { opt.persist_x = v != 0; }},
      {"streaming_loads",
       [](SpmvOptions& opt, long long v) { opt.matrix_loads = v != 0 ? MatrixLoads::streaming : MatrixLoads::cached; }},
  };
  keys.insert(keys.end(), std::begin(general), std::end(general));
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string pair = text.substr(start, comma - start);
    start = comma + 1;
    if (pair.empty()) {
      if (comma == text.size()) break;
      continue;
    }
    const size_t eq = pair.find('=');
    if (eq == std::string::npos) throw InvalidArgument("spmv options: '" + pair + "': expected key=value");
    const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
    const detail::SpmvOptionKey* setter = nullptr;
    std::string valid;
    for (const auto& k : keys) {
      if (k.key == key) setter = &k;
      valid += (valid.empty() ? "" : ", ") + std::string(k.key);
    }
    if (!setter) throw InvalidArgument("spmv options: '" + pair + "': unknown key (valid: " + valid + ")");
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE)
      throw InvalidArgument("spmv options: '" + pair + "': '" + value + "' is not an integer");
    if (v < -2147483648LL || v > 2147483647LL)
      throw InvalidArgument("spmv options: '" + pair + "': " + value + " is outside the 32-bit range");
    setter->set(o, v);
  }
  return o;
}

}  // namespace ppsparse::spmv

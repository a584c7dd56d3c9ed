#include <ppsparse/util/names.hpp>

#include <ppsparse/error.hpp>

namespace ppsparse::util {

void throw_unknown_name(const std::string& name, const char* const* names, std::size_t count, const char* what) {
  std::string valid;
  for (std::size_t i = 0; i < count; ++i) valid += (i ? ", " : "") + std::string(names[i]);
  throw InvalidArgument("unknown " + std::string(what) + " '" + name + "' (valid: " + valid + ")");
}

}  // namespace ppsparse::util

#pragma once
/// @file
/// Names of enumerations that users type (algorithms, variants, options): one table of names per
/// enumeration, indexed by the enumerator's value, and one way of parsing them.
#include <cstddef>
#include <string>
#include <vector>

namespace ppsparse::util {

/// Throws InvalidArgument "unknown <what> '<name>' (valid: a, b, c)".
[[noreturn]] void throw_unknown_name(const std::string& name, const char* const* names, std::size_t count,
                                     const char* what);

/// The enumerator whose name is names[value], for enumerations numbered 0, 1, ... in the order of
/// their names; InvalidArgument (throw_unknown_name) for any other name.
template <class Enum, std::size_t N>
Enum parse_name(const std::string& name, const char* const (&names)[N], const char* what) {
  for (std::size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<Enum>(i);
  throw_unknown_name(name, names, N, what);
}

/// The enumerators 0, 1, ..., count - 1 of an enumeration numbered in order, as a list.
template <class Enum>
std::vector<Enum> enumerators(std::size_t count) {
  std::vector<Enum> v;
  for (std::size_t i = 0; i < count; ++i) v.push_back(static_cast<Enum>(i));
  return v;
}

/// names[value] for an enumerator in range, else "?".
template <class Enum, std::size_t N>
const char* name_of(Enum value, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(value);
  return i < N ? names[i] : "?";
}

}  // namespace ppsparse::util

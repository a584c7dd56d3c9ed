#pragma once
// What the UGRID reader and writer share: the encodings named by the file name's suffix and the
// element sections. Private to the library.
#include <array>
#include <filesystem>
#include <string>

#include <ppsparse/mesh/ugrid_reader.hpp>

namespace ppsparse::mesh::ugrid {

struct Format {
  UgridEncoding encoding = UgridEncoding::ascii;
  bool big_endian = false;
  int real_bytes = 8;
  int int_bytes = 4;
  std::string suffix = "ascii";
};

// The encoding named by the file name's second-last suffix ("grid.lb8.ugrid"); ASCII otherwise.
inline Format format_of(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const size_t last = name.rfind('.');
  if (last == std::string::npos || last == 0) return {};
  const size_t prev = name.rfind('.', last - 1);
  if (prev == std::string::npos) return {};
  const std::string s = name.substr(prev + 1, last - prev - 1);
  using E = UgridEncoding;
  static const std::array<Format, 11> table = {{{E::c_binary, true, 8, 4, "b8"},
                                                {E::c_binary, false, 8, 4, "lb8"},
                                                {E::c_binary, true, 4, 4, "b4"},
                                                {E::c_binary, false, 4, 4, "lb4"},
                                                {E::c_binary, true, 8, 8, "b8l"},
                                                {E::c_binary, false, 8, 8, "lb8l"},
                                                {E::fortran_binary, true, 8, 4, "r8"},
                                                {E::fortran_binary, false, 8, 4, "lr8"},
                                                {E::fortran_binary, true, 4, 4, "r4"},
                                                {E::fortran_binary, false, 4, 4, "lr4"},
                                                {E::ascii, false, 8, 4, "ascii"}}};
  for (const Format& f : table)
    if (f.suffix == s) return f;
  return {};
}

using io::host_is_big_endian;
using io::swap_bytes;

inline constexpr const char* kElementSections[4] = {"tetrahedra", "pyramids", "prisms", "hexahedra"};
inline constexpr const char* kElementNames[4] = {"tetrahedron", "pyramid", "prism", "hexahedron"};
inline constexpr ElementType kElementTypes[4] = {ElementType::tetrahedron, ElementType::pyramid, ElementType::prism,
                                                 ElementType::hexahedron};
inline constexpr int kElementNodes[4] = {4, 5, 6, 8};

}  // namespace ppsparse::mesh::ugrid

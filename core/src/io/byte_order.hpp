#pragma once
// Byte order of binary files (UGRID, Gmsh MSH): whether the host is big-endian, and the swap of
// one number. Private to the library.
#include <cstdint>
#include <cstring>
#include <utility>

namespace ppsparse::io {

inline bool host_is_big_endian() {
  const std::uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 0;
}

/// Reverses the byte order of one number of `bytes` bytes in place.
inline void swap_bytes(unsigned char* b, int bytes) {
  for (int i = 0; i < bytes / 2; ++i) std::swap(b[i], b[bytes - 1 - i]);
}

}  // namespace ppsparse::io

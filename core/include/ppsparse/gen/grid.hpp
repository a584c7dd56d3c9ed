#pragma once
/// @file
/// Natural numbering of a structured nx x ny x nz grid (x fastest), shared by the
/// mesh-graph and stencil generators.
#include <ppsparse/error.hpp>
#include <ppsparse/types.hpp>
#include <string>

namespace ppsparse::gen {

/// A structured nx x ny x nz grid in natural numbering (x fastest).
struct Grid3 {
  ordinal_t nx = 0, ny = 0, nz = 0;

  /// InvalidArgument, naming `who`, unless every dimension is positive and the point
  /// count fits in ordinal_t.
  static Grid3 checked(ordinal_t nx, ordinal_t ny, ordinal_t nz, const std::string& who) {
    const std::string dims = std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz);
    if (nx <= 0 || ny <= 0 || nz <= 0) throw InvalidArgument(who + ": grid " + dims + " has a nonpositive dimension");
    // nx*ny < 2^62 cannot overflow; if it fits in 31 bits, so does the product with nz < 2^31 in 64.
    const long long nxy = static_cast<long long>(nx) * ny;
    const long long total = nxy > max_ordinal ? nxy : nxy * nz;
    if (total > max_ordinal)
      throw InvalidArgument(who + ": grid " + dims + " has more than 2^31-1 (" + std::to_string(max_ordinal) +
                            ") points");
    return Grid3{nx, ny, nz};
  }

  ordinal_t size() const { return nx * ny * nz; }
  ordinal_t index(ordinal_t i, ordinal_t j, ordinal_t k) const { return i + nx * (j + ny * k); }
  bool contains(ordinal_t i, ordinal_t j, ordinal_t k) const {
    return i >= 0 && i < nx && j >= 0 && j < ny && k >= 0 && k < nz;
  }
  /// Coordinates of point v.
  void coords(ordinal_t v, ordinal_t& i, ordinal_t& j, ordinal_t& k) const {
    i = v % nx;
    j = (v / nx) % ny;
    k = v / (nx * ny);
  }
};

}  // namespace ppsparse::gen

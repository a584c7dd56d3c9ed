#pragma once
/// @file
/// Reader for AFLR3's UGRID volume grids (FUN3D's native grid format), as documented by
/// Mississippi State's UG_IO library:
///
///   nnode ntria nquad ntet npyr nprism nhex          (7 integers)
///   x y z                                            (nnode points)
///   ntria x 3, then nquad x 4 boundary face nodes    (1-based)
///   ntria + nquad boundary face tags
///   ntet x 4, npyr x 5, nprism x 6, nhex x 8 volume element nodes (1-based)
///   [nvolume element ids]                            (optional, ignored)
///
/// The encoding is the file name's second-last suffix: `name.ugrid` is ASCII; C binary files
/// (no record markers) are `b8` (big-endian 8-byte reals, 4-byte integers), `lb8` (the same,
/// little-endian), `b4`/`lb4` (4-byte reals) and `b8l`/`lb8l` (8-byte integers); Fortran
/// unformatted files, whose two records (the counts; everything else) carry 4-byte length
/// markers, are `r8`, `lr8`, `r4`, `lr4`.
///
/// Pyramids are reordered from UGRID's node order (apex third) to the VTK order the Mesh uses
/// (base 0-3, apex 4): vtk = (u1, u0, u3, u4, u2). Boundary faces are checked (node ids in
/// range) and kept, each under the marker named by its tag ("1", "2", ...).
#include <string>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// The encodings of ugrid_reader.hpp, by name suffix.
enum class UgridEncoding { ascii, c_binary, fortran_binary };

/// Reads a UGRID volume grid. Throws InputError "FILE:LINE: reason" for malformed ASCII input,
/// "FILE: section S: reason" for malformed binary input (S: header, points, boundary faces,
/// boundary tags, tetrahedra, pyramids, prisms, hexahedra), and "FILE: cannot open file" when
/// the file cannot be read. Counts are checked against the bytes the file holds before anything
/// is allocated, so a corrupt header cannot ask for terabytes.
Mesh read_ugrid(const std::string& path);

/// Writes m as a UGRID file in the encoding of the path's suffix (for tests and conversion);
/// boundary faces are not written (their counts are 0). InvalidArgument unless m is a valid
/// 3-D mesh; Error if the file cannot be written.
void write_ugrid(const std::string& path, const Mesh& m);

}  // namespace ppsparse::mesh

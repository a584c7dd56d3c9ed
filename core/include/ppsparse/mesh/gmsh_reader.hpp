#pragma once
/// @file
/// Reader and writer of Gmsh's MSH files, versions 4.1 and 2.2, ASCII and binary, as documented
/// in the Gmsh reference manual ("MSH file format"; "Legacy formats" for 2.2).
///
///   $MeshFormat  version file-type data-size   (4.1 or 2.2; 0 ASCII, 1 binary; 8)
///                [binary: the int 1, which gives the byte order]
///   $Nodes       4.1: blocks of node tags then coordinates;  2.2: "tag x y z" per node
///   $Elements    4.1: blocks of one element type;            2.2: "tag type ntags tags... nodes"
///
///   $PhysicalNames  "dim tag \"name\"" per physical group
///   $Entities    4.1: each geometric entity's physical groups
///
/// Other sections ($Periodic, $NodeData, ...) are skipped. $Nodes must come before $Elements,
/// and $PhysicalNames and $Entities before both (Gmsh writes them so), so that elements are
/// checked, renumbered and named while they stream in: memory follows the mesh read, not the file.
///
/// Linear elements are read (Gmsh types 1 line, 2 triangle, 3 quadrangle, 4 tetrahedron,
/// 5 hexahedron, 6 prism, 7 pyramid, 15 point; their node order is VTK's). The mesh's dimension
/// is the highest among its elements (3, else 2). Elements of one dimension less are the boundary
/// faces, each under its physical group's name (4.1: its entity's first group; 2.2: its first
/// tag), "physical N" for a group without a name, or "curve N" / "surface N" for an entity in no
/// group; lower ones (points, curves of a 3-D mesh) are checked, then dropped. A 2-D mesh must lie in a plane
/// z = const; its z is dropped. Points are numbered in the order the file lists them.
///
/// A strict reader of the documented layout rather than the Gmsh library: the library reports
/// malformed input through its own logger and state, and is too heavy to fuzz (test/fuzz).
/// The tests check this reader against files the Gmsh library writes, where it is installed.
#include <string>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// The MSH versions read and written.
enum class GmshVersion { v2_2, v4_1 };

/// Reads a Gmsh MSH 4.1 or 2.2 file. Throws InputError "FILE:LINE: reason" for malformed ASCII
/// input, "FILE: section $S: reason" for malformed binary input, and "FILE: cannot open file".
/// Other versions (1, 2.0-2.1, 3, 4.0) and higher-order elements are refused with what is read.
/// Counts in binary files are checked against the bytes the file holds before anything is
/// allocated.
Mesh read_gmsh(const std::string& path);

/// Writes m as MSH `version`, ASCII or binary (for tests and conversion): one entity of the
/// mesh's dimension, node tags 1..n, the boundary faces first (each marker a physical group of
/// its name, 4.1: on an entity of its own) and then the volume elements. InvalidArgument unless
/// m is valid; Error if the file cannot be written.
void write_gmsh(const std::string& path, const Mesh& m, GmshVersion version, bool binary);

}  // namespace ppsparse::mesh

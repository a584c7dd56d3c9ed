#pragma once
/// @file
/// One entry point for mesh files: the format is recognised from the content (magic bytes or
/// the first line) and, where the content does not say, from the name.
#include <string>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// Mesh file formats ppsparse recognises and reads (CGNS where the build has the CGNS library),
/// one per line of mesh/formats.def.
enum class MeshFormat {
#define PPSPARSE_MESH_FORMAT(id, name, extensions, signature, hint, zones, read) id,
#include <ppsparse/mesh/formats.def>
#undef PPSPARSE_MESH_FORMAT
  unknown
};

/// "SU2", "AFLR3 UGRID", "Gmsh MSH", "CGNS", "unknown".
const char* to_string(MeshFormat format);

/// One line on the formats read, with their file names, for usage texts and errors:
/// "SU2 (.su2), AFLR3 UGRID (.ugrid), Gmsh MSH (.msh), CGNS (.cgns .adf .hdf)" (CGNS where the
/// build reads it).
std::string known_mesh_formats();

/// The format of the file at path: CGNS by its HDF5 or ADF signature, Gmsh by a first line
/// "$MeshFormat", SU2 by an "NDIME=" line among the first lines (or the .su2 extension), AFLR3
/// UGRID by the .ugrid extension (its content has no signature); unknown otherwise.
/// InputError "FILE: cannot open file" when the file cannot be read.
MeshFormat detect_mesh_format(const std::string& path);

/// Reads a mesh in any of these formats (read_su2, read_ugrid, read_gmsh, read_cgns); zone 0
/// reads every zone of a multizone file (SU2, CGNS), zone k >= 1 zone k only (UGRID and Gmsh
/// files have one). InputError naming the file for an unknown format, listing those read:
///   "x.dat: unknown mesh format (not SU2, AFLR3 UGRID, Gmsh MSH or CGNS); ppsparse reads ...".
Mesh read(const std::string& path, int zone = 0);

}  // namespace ppsparse::mesh

#pragma once
/// @file
/// One entry point for mesh files: the format is recognised from the content (magic bytes or
/// the first line) and, where the content does not say, from the name.
#include <string>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// Mesh file formats ppsparse recognises (readers exist for su2 and ugrid).
enum class MeshFormat { su2, ugrid, gmsh, cgns, unknown };

/// "SU2", "AFLR3 UGRID", "Gmsh MSH", "CGNS", "unknown".
const char* to_string(MeshFormat format);

/// The format of the file at path: CGNS by its HDF5 or ADF signature, Gmsh by a first line
/// "$MeshFormat", SU2 by an "NDIME=" line among the first lines (or the .su2 extension), AFLR3
/// UGRID by the .ugrid extension (its content has no signature); unknown otherwise.
/// InputError "FILE: cannot open file" when the file cannot be read.
MeshFormat detect_mesh_format(const std::string& path);

/// Reads a mesh in any format with a reader (read_su2, read_ugrid); zone 0 reads every zone of
/// a multizone file, zone k >= 1 zone k only (a UGRID file has one). InputError naming the file
/// for a format without a reader here, or an unknown one, listing the formats that are read:
///   "m.msh: a Gmsh MSH file; this build reads SU2 (.su2) and AFLR3 UGRID (.ugrid, ...) meshes".
Mesh read(const std::string& path, int zone = 0);

}  // namespace ppsparse::mesh

#pragma once
/// @file
/// Reader and writer of CGNS files (ADF or HDF5), through the CGNS library (Debian
/// `libcgns-dev`; the build's PPSPARSE_ENABLE_CGNS). The unstructured zones of the file's base
/// are read:
///
/// - Coordinates: CoordinateX, CoordinateY (and CoordinateZ), any real type.
/// - Element sections: NODE, BAR_2, TRI_3, QUAD_4, TETRA_4, PYRA_5, PENTA_6, HEXA_8, and MIXED
///   sections of them. Cells of the base's cell dimension are kept, and elements of one
///   dimension less as boundary faces: under their section's name where the section holds
///   faces only (as SU2 names them), else under the name of the ZoneBC (BC_t) that lists them
///   (by element, or by all their vertices). Lower elements are checked, then dropped. CGNS's linear node
///   orders are VTK's. Higher-order and polyhedral (NGON_n, NFACE_n) sections are refused.
/// - Zones: every zone joined into one mesh, or one zone alone. Zones are joined by the file's
///   zone-to-zone connectivity (GridConnectivity_t, Abutting1to1 at vertices, PointList or
///   PointRange with their donors): each pair of matched vertices becomes one point, at the
///   coordinates of the first. Zones with no connectivity stay disjoint parts of the mesh.
/// - A 2-D base (cell dimension 2) in 3-D space must lie in a plane z = const.
///
/// Structured zones, files with several bases and other kinds of connectivity are refused with
/// the reason; zone 0 reads every zone, zone k >= 1 zone k only (its connectivity ignored).
#include <string>
#include <vector>

#include <ppsparse/mesh/mesh.hpp>

namespace ppsparse::mesh {

/// True when this build reads and writes CGNS (configured with PPSPARSE_ENABLE_CGNS).
bool cgns_available();

/// Reads a CGNS file. Throws InputError "FILE: zone Z ('name'), section S ('name'): reason"
/// (or the part of it that applies) for malformed or refused input, with the CGNS library's
/// message where it gave one; "FILE: cannot open file" when the file cannot be read as CGNS; and
/// Error naming the build option when this build has no CGNS support.
Mesh read_cgns(const std::string& path, int zone = 0);

/// How write_cgns writes.
struct CgnsWriteOptions {
  bool hdf5 = true;    ///< HDF5 storage (CGNS's default), otherwise ADF
  bool mixed = false;  ///< one MIXED section per zone, otherwise one section per element type
};

/// Writes the meshes as the unstructured zones "zone1", "zone2", ... of one base, with no
/// connectivity between them (for tests and conversion). InvalidArgument unless every mesh is
/// valid and of one dimension; Error if the file cannot be written or this build has no CGNS.
void write_cgns(const std::string& path, const std::vector<Mesh>& zones, const CgnsWriteOptions& options = {});

}  // namespace ppsparse::mesh

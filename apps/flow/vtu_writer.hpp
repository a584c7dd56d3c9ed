#pragma once
// A mesh and its point fields as a VTK XML unstructured grid (.vtu) with its arrays appended in
// raw binary (ParaView and VisIt read it): a 3.7 M-vertex solution is a few hundred MB written at
// the disk's speed, where ASCII numbers took minutes to format.
#include <string>
#include <vector>

#include <ppsparse/mesh/mesh.hpp>

namespace flow {

/// One field on the mesh's points: `components` values per point (1: a scalar, 3: a vector).
struct PointField {
  std::string name;
  int components = 1;
  std::vector<double> values;  ///< npoints * components
};

/// Writes m's points (padded to 3-D), its cells and `fields` to `path`; the first scalar and the
/// first vector field are the active ones. ppsparse::Error naming the file if it cannot be
/// written; InvalidArgument if a field's size is not npoints * components.
void write_vtu(const std::string& path, const ppsparse::mesh::Mesh& m, const std::vector<PointField>& fields);

}  // namespace flow

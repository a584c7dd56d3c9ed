// The readers keep the boundary faces with their markers, and refinement splits them: on every
// shared mesh the faces read are exactly the element faces that only one element has.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>
#include <ppsparse/mesh/gmsh_reader.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/refine.hpp>

#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

using FaceKey = std::vector<ordinal_t>;

FaceKey sorted_key(const ordinal_t* v, int n) {
  FaceKey k(v, v + n);
  std::sort(k.begin(), k.end());
  return k;
}

// Element faces that only one element has (the boundary), and the faces the mesh lists.
void expect_faces_are_the_boundary(const Mesh& m, const std::string& what) {
  std::map<FaceKey, int> count;
  for (ordinal_t e = 0; e < m.nelements(); ++e) {
    const ordinal_t* v = m.elem_nodes.data() + m.elem_ptr[e];
    for (const auto& f : element_faces(m.types[e])) {
      std::vector<ordinal_t> nodes;
      for (int i : f) nodes.push_back(v[i]);
      ++count[sorted_key(nodes.data(), static_cast<int>(nodes.size()))];
    }
  }
  std::set<FaceKey> boundary, listed;
  for (const auto& [key, n] : count)
    if (n == 1) boundary.insert(key);
  for (ordinal_t f = 0; f < m.nfaces(); ++f)
    listed.insert(sorted_key(m.face_nodes.data() + m.face_ptr[f], nodes_per_element(m.face_types[f])));
  EXPECT_EQ(listed.size(), static_cast<size_t>(m.nfaces())) << what << ": a face listed twice";
  EXPECT_EQ(listed, boundary) << what << ": " << listed.size() << " faces listed, " << boundary.size()
                              << " on the boundary";
}

std::set<std::string> names(const Mesh& m) { return {m.marker_names.begin(), m.marker_names.end()}; }

std::string shared_mesh(const std::string& name) {
  const auto dir = test::shared_dir();
  if (dir.empty()) return {};
  return (dir / "meshes" / name).string();
}

TEST(BoundaryMarkers, Su2KeepsMarkerTags) {
  const std::string path = shared_mesh("naca0012_hybrid_2d.su2");
  if (path.empty()) GTEST_SKIP() << "no ../shared";
  const Mesh m = read(path);
  EXPECT_EQ(names(m), (std::set<std::string>{"airfoil", "farfield"}));
  expect_faces_are_the_boundary(m, path);
  const Mesh r = refine_uniform(m, 1);
  EXPECT_EQ(r.nfaces(), 2 * m.nfaces());
  expect_faces_are_the_boundary(r, path + " refined");

  const Mesh box = read(shared_mesh("brick_pyra.su2"));
  EXPECT_EQ(names(box), (std::set<std::string>{"x_m", "x_p", "y_m", "y_p", "z_m", "z_p"}));
  expect_faces_are_the_boundary(box, "brick_pyra.su2");
  expect_faces_are_the_boundary(refine_uniform(box, 1), "brick_pyra.su2 refined");
  expect_faces_are_the_boundary(read(shared_mesh("brick_hex.su2")), "brick_hex.su2");
}

TEST(BoundaryMarkers, GmshKeepsPhysicalGroups) {
  const std::string path = shared_mesh("triangular_aerofoil.msh");
  if (path.empty()) GTEST_SKIP() << "no ../shared";
  const Mesh m = read(path);
  const std::set<std::string> got = names(m);
  for (const char* want : {"inlet", "outlet", "horizontal", "airfoil", "periodic-0-l", "periodic-0-r"})
    EXPECT_EQ(got.count(want), 1u) << want;
  expect_faces_are_the_boundary(m, path);
}

TEST(BoundaryMarkers, GmshNamesAndTagsIn22) {
  // Two triangles; boundary lines in physical group 7 ("wall") and in group 8 (no name).
  const std::string path = test::write_scratch_file("ppsparse_marker_test", "two.msh",
                                                    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
                                                    "$PhysicalNames\n1\n1 7 \"wall side\"\n$EndPhysicalNames\n"
                                                    "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n"
                                                    "$Elements\n6\n1 2 2 1 1 1 2 3\n2 2 2 1 1 1 3 4\n"
                                                    "3 1 2 7 1 1 2\n4 1 2 7 1 2 3\n5 1 2 8 2 3 4\n6 1 2 8 2 4 1\n"
                                                    "$EndElements\n");
  const Mesh m = read(path);
  EXPECT_EQ(m.marker_names, (std::vector<std::string>{"wall side", "physical 8"}));
  EXPECT_EQ(m.nfaces(), 4);
  expect_faces_are_the_boundary(m, path);
}

TEST(BoundaryMarkers, CgnsKeepsBoundaryConditions) {
  if (!cgns_available()) GTEST_SKIP() << "built without CGNS";
  const std::string path = shared_mesh("bend_coarse.cgns");
  if (path.empty()) GTEST_SKIP() << "no ../shared";
  const Mesh m = read(path);
  EXPECT_EQ(names(m), (std::set<std::string>{"INLET", "OUTLET", "SYMMETRY", "WALL1", "WALL2"}));
  expect_faces_are_the_boundary(m, path);
}

TEST(BoundaryMarkers, GmshWriterKeepsThemInEveryEncoding) {
  const std::string path = shared_mesh("naca0012_hybrid_2d.su2");
  if (path.empty()) GTEST_SKIP() << "no ../shared";
  const Mesh m = read(path);
  for (GmshVersion v : {GmshVersion::v2_2, GmshVersion::v4_1})
    for (bool binary : {false, true}) {
      const std::string out = test::scratch_file("ppsparse_marker_test", "naca.msh");
      write_gmsh(out, m, v, binary);
      const Mesh r = read(out);
      EXPECT_EQ(r.marker_names, m.marker_names);
      EXPECT_EQ(r.face_nodes, m.face_nodes);
      EXPECT_EQ(r.face_marker, m.face_marker);
      EXPECT_EQ(r.elem_nodes, m.elem_nodes);
    }
}

TEST(BoundaryMarkers, RefineRefusesAFaceNoElementHas) {
  Mesh m;
  m.dim = 2;
  m.coords = {0, 0, 1, 0, 0, 1};
  m.types = {ElementType::triangle};
  m.elem_ptr = {0, 3};
  m.elem_nodes = {0, 1, 2};
  const ordinal_t ok[2] = {0, 1};
  m.add_face("wall", ElementType::line, ok);
  EXPECT_EQ(refine_uniform(m, 1).nfaces(), 2);
  m.coords.insert(m.coords.end(), {1, 1});
  const ordinal_t stray[2] = {1, 3};
  m.add_face("far", ElementType::line, stray);
  try {
    refine_uniform(m, 1);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("boundary face 1 of marker 'far' is not a face of any element"),
              std::string::npos)
        << e.what();
  }
}

TEST(BoundaryMarkers, ValidateNamesABadFace) {
  Mesh m;
  m.dim = 2;
  m.coords = {0, 0, 1, 0, 0, 1};
  m.types = {ElementType::triangle};
  m.elem_ptr = {0, 3};
  m.elem_nodes = {0, 1, 2};
  const ordinal_t bad[2] = {0, 5};
  m.add_face("wall", ElementType::line, bad);
  EXPECT_THROW(validate(m), InvalidArgument);
}

}  // namespace
}  // namespace ppsparse::mesh

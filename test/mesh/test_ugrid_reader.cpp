#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/su2_reader.hpp>
#include <ppsparse/mesh/ugrid_reader.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>

#include "mesh/mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string& name) { return test::scratch_file("ppsparse_ugrid_test", name); }

TEST(UgridReader, EveryEncodingRoundTripsAMixedMesh) {
  const Mesh m = builders::mixed_mesh(test::test_seed());
  for (const char* suffix : {"", ".b8", ".lb8", ".b4", ".lb4", ".b8l", ".lb8l", ".r8", ".lr8", ".r4", ".lr4"}) {
    SCOPED_TRACE(suffix);
    const std::string path = scratch(std::string("mixed") + suffix + ".ugrid");
    write_ugrid(path, m);
    const Mesh r = read_ugrid(path);
    ASSERT_EQ(r.npoints(), m.npoints());
    ASSERT_EQ(r.nelements(), m.nelements());
    const bool single = std::string(suffix).find('4') != std::string::npos;
    for (size_t i = 0; i < m.coords.size(); ++i)
      ASSERT_NEAR(r.coords[i], m.coords[i], single ? 1e-6 * (1 + std::abs(m.coords[i])) : 0.0);
    // Elements come back grouped by type; the pyramids keep their (positive) orientation.
    for (ordinal_t e = 0; e < r.nelements(); ++e) EXPECT_GT(element_signed_volume(r, e), 0) << e;
    EXPECT_NEAR(static_cast<double>(builders::total_volume(r)), static_cast<double>(builders::total_volume(m)), 1e-9);
    builders::expect_same_graph(r, m);
  }
}

TEST(UgridReader, SharedMeshesGiveTheSameVertexGraph) {
  builders::for_each_shared_mesh([](const std::string& stem, const Mesh& m) {
    if (m.dim != 3) return;  // UGRID holds volume grids
    for (const char* suffix : {"", ".lb8", ".r8"}) {
      SCOPED_TRACE(suffix);
      const std::string path = scratch(stem + suffix + ".ugrid");
      write_ugrid(path, m);
      builders::expect_same_graph(read_ugrid(path), m);
    }
  });
}

std::string write_text(const std::string& name, const std::string& text) {
  return test::write_scratch_file("ppsparse_ugrid_test", name, text);
}

TEST(UgridReader, MalformedAsciiNamesFileLineAndReason) {
  const std::string one_tet = "4 0 0 1 0 0 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 2 3 4\n";
  EXPECT_EQ(read_ugrid(write_text("ok.ugrid", one_tet)).nelements(), 1);
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"4 0 0 1 0 0\n", ":2: file ends before the hexahedron count"},
      {"4 0 0 -1 0 0 0\n", ":1: the tetrahedron count is negative (-1)"},
      {"4 0 0 0 0 0 0\n", ":1: no volume elements"},
      {"4 0 0 1 0 0 0\n0 0 0\n1 x 0\n", ":3: coordinate 1 of node 2: 'x' is not a number"},
      {"4 0 0 1 0 0 0\n0 0 0\n1 0 0\n0 1 0\n0 0 inf\n1 2 3 4\n",
       ":5: coordinate 2 of node 4: 'inf' is not a finite number"},
      {"4 0 0 1 0 0 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 2 3 5\n", ":6: tetrahedron 1: node 5 out of range [1, 4]"},
      {"4 0 0 1 0 0 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 2 3\n", ":7: file ends before tetrahedron 1"},
      {"4 1 0 1 0 0 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 2 0\n", ":6: boundary triangle 1: node 0 out of range [1, 4]"},
      {"99999999999 0 0 1 0 0 0\n", ":1: the node count 99999999999 exceeds 2^31 - 1"},
      {"4 0 0 1 0 0 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 2 3 3\n", ": UGRID mesh: element 0 (tetrahedron) repeats node 2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string path = write_text("bad.ugrid", c.text);
    PPSPARSE_EXPECT_THROW_MESSAGE(read_ugrid(path), InputError, std::string(path) + c.message);
  }
}

TEST(UgridReader, MalformedBinaryNamesTheSection) {
  Mesh m = builders::mixed_mesh(test::test_seed());
  const std::string good = scratch("good.lb8.ugrid");
  write_ugrid(good, m);
  const auto size = fs::file_size(good);
  // Truncated: the header's counts need more bytes than the file has, found before allocating.
  const std::string cut = scratch("cut.lb8.ugrid");
  fs::copy_file(good, cut, fs::copy_options::overwrite_existing);
  fs::resize_file(cut, size - 9);
  PPSPARSE_EXPECT_THROW_MESSAGE(read_ugrid(cut), InputError, cut + ": section header: the header's counts need");
  // A big-endian name on a little-endian file: the counts read as nonsense.
  const std::string wrong = scratch("wrong.b8.ugrid");
  fs::copy_file(good, wrong, fs::copy_options::overwrite_existing);
  PPSPARSE_EXPECT_THROW_MESSAGE(read_ugrid(wrong), InputError, wrong + ": section header: ");
  // A Fortran name on a C file: the record marker is wrong.
  const std::string notf = scratch("notf.lr8.ugrid");
  fs::copy_file(good, notf, fs::copy_options::overwrite_existing);
  PPSPARSE_EXPECT_THROW_MESSAGE(read_ugrid(notf), InputError, notf + ": section header: record marker");
  PPSPARSE_EXPECT_THROW_MESSAGE(read_ugrid(scratch("absent.ugrid")), InputError, "cannot open file");
}

}  // namespace
}  // namespace ppsparse::mesh

namespace ppsparse::mesh {
namespace {

// Files written by a script from UG_IO's documented layout, independently of write_ugrid: one
// tetrahedron, pyramid, prism and hexahedron, a boundary triangle with its tag.
TEST(UgridReader, ReadsTheDocumentedLayoutInCommittedFiles) {
  std::vector<ordinal_t> expected_nodes;
  for (ordinal_t v = 0; v < 23; ++v) expected_nodes.push_back(v);  // consecutive in VTK order
  for (const char* name : {"mixed.ugrid", "mixed.lb8.ugrid", "mixed.b8.ugrid", "mixed.r8.ugrid"}) {
    SCOPED_TRACE(name);
    const Mesh m = read_ugrid(test::data_file(std::string("ugrid/") + name).string());
    ASSERT_EQ(m.npoints(), 23);
    ASSERT_EQ(m.nelements(), 4);
    EXPECT_EQ(m.types, (std::vector<ElementType>{ElementType::tetrahedron, ElementType::pyramid, ElementType::prism,
                                                 ElementType::hexahedron}));
    EXPECT_EQ(m.elem_nodes, expected_nodes);  // the pyramid's UGRID order (apex third) became VTK's
    EXPECT_EQ(m.coords[3 * 8 + 0], 2.5);      // the apex (2.5, 0.5, 1)
    EXPECT_EQ(m.coords[3 * 8 + 2], 1.0);
    EXPECT_GT(element_signed_volume(m, 1), 0);  // base counter-clockwise seen from the apex
  }
}

}  // namespace
}  // namespace ppsparse::mesh

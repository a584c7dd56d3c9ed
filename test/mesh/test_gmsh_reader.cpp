#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/gmsh_reader.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/su2_reader.hpp>

#if PPSPARSE_TEST_HAVE_GMSH
#include <gmsh.h>
#endif

#include "mesh/mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string& name) { return test::scratch_file("ppsparse_gmsh_test", name); }

std::string write_text(const std::string& name, const std::string& text) {
  return test::write_scratch_file("ppsparse_gmsh_test", name, text);
}

struct Variant {
  GmshVersion version;
  bool binary;
  const char* name;
};
constexpr Variant kVariants[] = {{GmshVersion::v4_1, false, "v41_ascii"},
                                 {GmshVersion::v4_1, true, "v41_binary"},
                                 {GmshVersion::v2_2, false, "v22_ascii"},
                                 {GmshVersion::v2_2, true, "v22_binary"}};

// Coordinates exact (write_gmsh's ASCII has 17 digits), or to `rel` (the Gmsh library's 16).
void expect_same_mesh_up_to_element_order(const Mesh& r, const Mesh& m, double rel = 0) {
  ASSERT_EQ(r.dim, m.dim);
  ASSERT_EQ(r.npoints(), m.npoints());
  ASSERT_EQ(r.nelements(), m.nelements());
  for (size_t i = 0; i < m.coords.size(); ++i) ASSERT_NEAR(r.coords[i], m.coords[i], rel * (1 + std::abs(m.coords[i])));
  for (ordinal_t e = 0; e < r.nelements(); ++e) EXPECT_GT(element_signed_volume(r, e), 0) << e;
  builders::expect_same_graph(r, m);
}

TEST(GmshReader, EveryVersionAndEncodingRoundTripsMixedAnd2DMeshes) {
  const Mesh mixed = builders::mixed_mesh(test::test_seed());
  const Mesh plane = builders::rectangle_mesh(4, 3, 0.1, test::test_seed());
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    const std::string path = scratch(std::string("mixed_") + v.name + ".msh");
    write_gmsh(path, mixed, v.version, v.binary);
    EXPECT_EQ(detect_mesh_format(path), MeshFormat::gmsh);
    expect_same_mesh_up_to_element_order(read_gmsh(path), mixed);
    expect_same_mesh_up_to_element_order(read(path), mixed);
    const std::string flat = scratch(std::string("plane_") + v.name + ".msh");
    write_gmsh(flat, plane, v.version, v.binary);
    expect_same_mesh_up_to_element_order(read_gmsh(flat), plane);
  }
}

// Files as Gmsh writes them, by hand from the manual: sections to skip, sparse node tags in
// several blocks, parametric coordinates, and lower-dimensional elements that are dropped.
TEST(GmshReader, ReadsTheDocumentedLayoutWithWhatItSkips) {
  const std::string v41 =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$PhysicalNames\n1\n3 1 \"volume $Nodes\"\n$EndPhysicalNames\n"
      "$Entities\n1 0 0 1\n1 0 0 0 0\n1 0 0 0 1 1 1 1 1 0\n$EndEntities\n"
      "$Nodes\n3 4 10 1000000\n"
      "0 1 0 1\n10\n0 0 0\n"
      "2 2 1 2\n20\n30\n1 0 0 0.5 0.25\n0 1 0 0.1 0.2\n"
      "3 1 0 1\n1000000\n0 0 1\n$EndNodes\n"
      "$Elements\n3 3 1 3\n0 1 15 1\n1 10\n2 2 2 1\n2 10 20 30\n3 1 4 1\n3 10 20 30 1000000\n$EndElements\n"
      "$NodeData\n1\n\"p\"\n1\n0.0\n3\n0\n1\n1\n10 1.5\n$EndNodeData\n";
  const std::string v22 =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Comments\nanything $Elements\n$EndComments\n"
      "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
      "$Elements\n3\n1 1 2 0 1 1 2\n2 2 2 0 1 1 2 3\n3 4 3 7 7 1 1 2 3 4\n$EndElements\n";
  for (const std::string& text : {v41, v22}) {
    const Mesh m = read_gmsh(write_text("layout.msh", text));
    EXPECT_EQ(m.dim, 3);
    EXPECT_EQ(m.coords, (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
    EXPECT_EQ(m.types, std::vector<ElementType>{ElementType::tetrahedron});
    EXPECT_EQ(m.elem_nodes, (std::vector<ordinal_t>{0, 1, 2, 3}));
  }
}

TEST(GmshReader, MalformedAsciiNamesFileLineAndReason) {
  const std::string head = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n";
  const std::string nodes = "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"hello\n", ":1: not a Gmsh MSH file: it starts with 'hello', not $MeshFormat"},
      {"$MeshFormat\n4.0 0 8\n$EndMeshFormat\n",
       ":2: MSH version '4.0' is not read: ppsparse reads MSH 4.1 and 2.2 (gmsh -format msh41 or -format msh22)"},
      {"$MeshFormat\n2.2 2 8\n", ":2: file type 2: 0 (ASCII) or 1 (binary) expected"},
      {"$MeshFormat\n4.1 0 4\n", ":2: data size 4: ppsparse reads files whose size_t is 8 bytes"},
      {head + "$Elements\n0\n$EndElements\n", ":4: $Elements before $Nodes"},
      {head + nodes, ":10: no $Elements section"},
      {head + nodes + "$Elements\n1\n1 11 0 1 2 3 4 5 6 7 8 9 10\n$EndElements\n",
       ":13: element type 11 (10-node tetrahedron, higher order) is not read: ppsparse reads linear elements (Gmsh "
       "types 1-7 and 15)"},
      {head + nodes + "$Elements\n1\n1 4 0 1 2 3 9\n$EndElements\n",
       ":13: element 1 refers to node 9, which $Nodes does not list"},
      {head + "$Nodes\n2\n1 0 0 0\n1 1 0 0\n$EndNodes\n", ":7: node tag 1 appears twice"},
      {head + "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n",
       ":10: a node tag: '$EndNodes' is not an integer"},
      {head + "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n",
       ":9: '4' where $EndNodes belongs (more data than the counts say?)"},
      {head + "$Nodes\n1\n1 0 nan 0\n$EndNodes\n", ":6: a node coordinate: 'nan' is not a finite number"},
      {head + "$Foo\n1 2 3\n", ":4: the file ends inside $Foo (no $EndFoo line)"},
      {head + "$EndNodes\n", ":4: '$EndNodes' without its section"},
      {head + nodes + "$Elements\n1\n1 2 0 1 2 3\n$EndElements\n" + "$Nodes\n", ":15: a second $Nodes section"},
      {head + nodes + "$Elements\n1\n1 1 0 1 2\n$EndElements\n",
       ":14: no 2-D or 3-D elements (a mesh of lines or points is not read)"},
      {head + nodes + "$Elements\n1\n1 2 0 1 2 4\n$EndElements\n",
       ":14: 2-D elements, but the nodes are not in one plane z = const (node 4 in file order has z = 1.000000, the "
       "first 0.000000)"},
      {head + nodes + "$Elements\n1\n1 4 0 1 2 3 3\n$EndElements\n",
       ": Gmsh mesh: element 0 (tetrahedron) repeats node 2"},
      {"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 2\n3 1 0 1\n1\n0 0 0\n$EndNodes\n",
       ":8: the node blocks hold 1 nodes, the header says 2"},
      {"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n3 1 0 1\n2\n0 0 0\n$EndNodes\n",
       ":7: node tag 2 is outside the header's range [1, 1]"},
      {"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n" + std::string("$Nodes\n1 1 1 1\n3 1 0 1\n1\n0 0 0\n$EndNodes\n") +
           "$Elements\n1 1 1 1\n2 1 4 1\n1 1 1 1 1\n$EndElements\n",
       ":12: element block 1: element type 4 has dimension 3, its entity 2"},
      {"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 3000000000 1 1\n",
       ":5: the number of nodes 3000000000 exceeds "
       "2147483647"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string path = write_text("bad.msh", c.text);
    PPSPARSE_EXPECT_THROW_MESSAGE(read_gmsh(path), InputError, path + c.message);
  }
  PPSPARSE_EXPECT_THROW_MESSAGE(read_gmsh(scratch("absent.msh")), InputError, "absent.msh: cannot open file");
}

TEST(GmshReader, MalformedBinaryNamesTheSection) {
  const Mesh m = builders::mixed_mesh(test::test_seed());
  for (const Variant& v : kVariants) {
    if (!v.binary) continue;
    SCOPED_TRACE(v.name);
    const std::string good = scratch(std::string("good_") + v.name + ".msh");
    write_gmsh(good, m, v.version, true);
    const auto size = fs::file_size(good);
    // Cut inside the element data: the counts need more bytes than are left, found before reading.
    const std::string cut = scratch(std::string("cut_") + v.name + ".msh");
    fs::copy_file(good, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, size - 60);
    // (2.2: at a block header, 4.1: by the block's byte count)
    PPSPARSE_EXPECT_THROW_MESSAGE(read_gmsh(cut), InputError, cut + ": section $Elements: ");
    // The byte-order word is neither 1 nor 1 byte-swapped.
    std::string bytes;
    {
      std::ifstream in(good, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t one = bytes.find(" 1 8\n") + 5;
    bytes[one] = 7;
    const std::string bad = write_text(std::string("order_") + v.name + ".msh", bytes);
    PPSPARSE_EXPECT_THROW_MESSAGE(
        read_gmsh(bad), InputError,
        bad + ": section $MeshFormat: the byte-order check reads 7, not 1: not a binary MSH file");
  }
}

// A big-endian 2.2 binary file (as Gmsh writes on such a host): the byte-order word says swap.
TEST(GmshReader, ReadsBinaryOfTheOtherByteOrder) {
  const Mesh m = builders::single_element(ElementType::tetrahedron, 0.1, test::test_seed());
  std::string s = "$MeshFormat\n2.2 1 8\n";
  auto put = [&](const void* p, size_t n) {
    std::string b(static_cast<const char*>(p), n);
    std::reverse(b.begin(), b.end());
    s += b;
  };
  auto put_int = [&](std::int32_t v) { put(&v, 4); };
  put_int(1);
  s += "\n$EndMeshFormat\n$Nodes\n4\n";
  for (int p = 0; p < 4; ++p) {
    put_int(p + 1);
    for (int d = 0; d < 3; ++d) put(&m.coords[3 * p + d], 8);
  }
  s += "\n$EndNodes\n$Elements\n1\n";
  for (std::int32_t v : {4, 1, 0, 1}) put_int(v);
  for (ordinal_t v : m.elem_nodes) put_int(v + 1);
  s += "\n$EndElements\n";
  const Mesh r = read_gmsh(write_text("big_endian.msh", s));
  EXPECT_EQ(r.coords, m.coords);
  EXPECT_EQ(r.elem_nodes, m.elem_nodes);
}

TEST(GmshReader, SharedMeshesGiveTheSameVertexGraph) {
  builders::for_each_shared_mesh([](const std::string& stem, const Mesh& m) {
    for (const Variant& v : kVariants) {
      SCOPED_TRACE(v.name);
      const std::string path = scratch(stem + "_" + v.name + ".msh");
      write_gmsh(path, m, v.version, v.binary);
      builders::expect_same_graph(read_gmsh(path), m);
    }
  });
}

#if PPSPARSE_TEST_HAVE_GMSH
// The Gmsh library itself writes the mesh in each version and encoding, and reads what
// write_gmsh wrote.
TEST(GmshReader, AgreesWithTheGmshLibrary) {
  const Mesh m = builders::mixed_mesh(test::test_seed());
  gmsh::initialize(0, nullptr, false);
  gmsh::option::setNumber("General.Terminal", 0);
  gmsh::model::add("mixed");
  gmsh::model::addDiscreteEntity(3, 1);
  std::vector<std::size_t> tags;
  for (ordinal_t p = 0; p < m.npoints(); ++p) tags.push_back(static_cast<std::size_t>(p) + 1);
  gmsh::model::mesh::addNodes(3, 1, tags, m.coords);
  const std::pair<ElementType, int> types[] = {
      {ElementType::tetrahedron, 4}, {ElementType::hexahedron, 5}, {ElementType::prism, 6}, {ElementType::pyramid, 7}};
  std::size_t next = 1;
  for (const auto& [type, id] : types) {
    std::vector<std::size_t> elements, nodes;
    for (ordinal_t e = 0; e < m.nelements(); ++e) {
      if (m.types[e] != type) continue;
      elements.push_back(next++);
      for (offset_t k = m.elem_ptr[e]; k < m.elem_ptr[e + 1]; ++k) nodes.push_back(m.elem_nodes[k] + 1);
    }
    if (!elements.empty()) gmsh::model::mesh::addElementsByType(1, id, elements, nodes);
  }
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    const std::string by_gmsh = scratch(std::string("by_gmsh_") + v.name + ".msh");
    gmsh::option::setNumber("Mesh.MshFileVersion", v.version == GmshVersion::v4_1 ? 4.1 : 2.2);
    gmsh::option::setNumber("Mesh.Binary", v.binary ? 1 : 0);
    gmsh::write(by_gmsh);
    expect_same_mesh_up_to_element_order(read_gmsh(by_gmsh), m, v.binary ? 0.0 : 1e-15);
  }
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    const std::string ours = scratch(std::string("ours_") + v.name + ".msh");
    write_gmsh(ours, m, v.version, v.binary);
    gmsh::clear();
    gmsh::open(ours);
    std::vector<std::size_t> node_tags;
    std::vector<double> coords, parametric;
    gmsh::model::mesh::getNodes(node_tags, coords, parametric);
    ASSERT_EQ(node_tags.size(), static_cast<size_t>(m.npoints()));
    for (size_t i = 0; i < node_tags.size(); ++i)
      for (int d = 0; d < 3; ++d) EXPECT_EQ(coords[3 * i + d], m.coords[3 * (node_tags[i] - 1) + d]);
    std::vector<int> element_types;
    std::vector<std::vector<std::size_t>> element_tags, element_nodes;
    gmsh::model::mesh::getElements(element_types, element_tags, element_nodes, 3);
    size_t count = 0;
    for (const auto& t : element_tags) count += t.size();
    EXPECT_EQ(count, static_cast<size_t>(m.nelements()));
  }
  gmsh::finalize();
}
#endif

}  // namespace
}  // namespace ppsparse::mesh

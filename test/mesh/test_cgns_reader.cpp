#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/su2_reader.hpp>

#if PPSPARSE_TEST_HAVE_CGNS
#include <cgns_io.h>
#include <cgnslib.h>
#endif

#include "mesh/mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string& name) { return test::scratch_file("ppsparse_cgns_test", name); }

#if PPSPARSE_TEST_HAVE_CGNS

struct Variant {
  CgnsWriteOptions options;
  const char* name;
};
constexpr Variant kVariants[] = {
    {{true, false}, "hdf5"}, {{false, false}, "adf"}, {{true, true}, "hdf5_mixed"}, {{false, true}, "adf_mixed"}};

TEST(CgnsReader, AdfAndHdf5SectionsByTypeAndMixedRoundTrip) {
  const Mesh mixed = builders::mixed_mesh(test::test_seed());
  const Mesh plane = builders::rectangle_mesh(4, 3, 0.1, test::test_seed());
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    for (const Mesh* m : {&mixed, &plane}) {
      const std::string path = scratch(std::string(v.name) + (m->dim == 3 ? "_mixed" : "_plane") + ".cgns");
      write_cgns(path, {*m}, v.options);
      EXPECT_EQ(detect_mesh_format(path), MeshFormat::cgns);
      const Mesh r = read(path);
      ASSERT_EQ(r.dim, m->dim);
      EXPECT_EQ(r.coords, m->coords);
      ASSERT_EQ(r.nelements(), m->nelements());
      if (v.options.mixed) {  // one section in the mesh's order
        EXPECT_EQ(r.types, m->types);
        EXPECT_EQ(r.elem_nodes, m->elem_nodes);
      }
      for (ordinal_t e = 0; e < r.nelements(); ++e) EXPECT_GT(element_signed_volume(r, e), 0) << e;
      builders::expect_same_graph(r, *m);
    }
  }
}

// Opens a CGNS file for modification, runs edit(fn) and closes it.
void edit(const std::string& path, const std::function<void(int)>& change) {
  int fn = 0;
  ASSERT_EQ(cg_open(path.c_str(), CG_MODE_MODIFY, &fn), CG_OK) << cg_get_error();
  change(fn);
  ASSERT_EQ(cg_close(fn), CG_OK) << cg_get_error();
}

// Two boxes side by side (x in [0, 1] and [1, 2]) as two zones; their shared face's vertices
// are listed as Abutting1to1 vertex connectivity in zone 1 (and, when both_sides, in zone 2).
std::string two_zone_file(const std::string& name, bool both_sides, double shift = 0.0) {
  const Mesh left = builders::box_mesh({2, 2, 2}, builders::CellSplit::hexahedra, 0.0, 1);
  Mesh right = left;
  const double width = *std::max_element(left.coords.begin(), left.coords.end());
  for (size_t p = 0; p < right.coords.size(); p += 3) right.coords[p] += width + shift;
  const std::string path = scratch(name);
  write_cgns(path, {left, right});
  std::vector<cgsize_t> mine, donor;
  for (ordinal_t p = 0; p < left.npoints(); ++p)
    if (left.coords[3 * p] == width)
      for (ordinal_t q = 0; q < right.npoints(); ++q)
        if (right.coords[3 * q] == width + shift && right.coords[3 * q + 1] == left.coords[3 * p + 1] &&
            right.coords[3 * q + 2] == left.coords[3 * p + 2]) {
          mine.push_back(p + 1);
          donor.push_back(q + 1);
        }
  edit(path, [&](int fn) {
    int c = 0;
    EXPECT_EQ(cg_conn_write(fn, 1, 1, "to_zone2", CGNS_ENUMV(Vertex), CGNS_ENUMV(Abutting1to1), CGNS_ENUMV(PointList),
                            static_cast<cgsize_t>(mine.size()), mine.data(), "zone2", CGNS_ENUMV(Unstructured),
                            CGNS_ENUMV(PointListDonor), CGNS_ENUMV(Integer), static_cast<cgsize_t>(donor.size()),
                            donor.data(), &c),
              CG_OK)
        << cg_get_error();
    if (both_sides)
      EXPECT_EQ(cg_conn_write(fn, 1, 2, "to_zone1", CGNS_ENUMV(Vertex), CGNS_ENUMV(Abutting1to1), CGNS_ENUMV(PointList),
                              static_cast<cgsize_t>(donor.size()), donor.data(), "zone1", CGNS_ENUMV(Unstructured),
                              CGNS_ENUMV(PointListDonor), CGNS_ENUMV(Integer), static_cast<cgsize_t>(mine.size()),
                              mine.data(), &c),
                CG_OK)
          << cg_get_error();
  });
  return path;
}

// Opens a CGNS file through the low-level cgio API, deletes the child `child` of the node at
// `parent` (an absolute path), runs edit(cgio, root, parent node) and closes the file.
void edit_nodes(const std::string& path, const char* parent, const char* child,
                const std::function<void(int, double, double)>& edit) {
  int cgio = 0;
  double root = 0, node = 0, doomed = 0;
  ASSERT_EQ(cgio_open_file(path.c_str(), CGIO_MODE_MODIFY, CGIO_FILE_NONE, &cgio), CG_OK);
  ASSERT_EQ(cgio_get_root_id(cgio, &root), CG_OK);
  ASSERT_EQ(cgio_get_node_id(cgio, root, parent, &node), CG_OK) << parent;
  ASSERT_EQ(cgio_get_node_id(cgio, node, child, &doomed), CG_OK) << child;
  ASSERT_EQ(cgio_delete_node(cgio, node, doomed), CG_OK);
  edit(cgio, root, node);
  ASSERT_EQ(cgio_close_file(cgio), CG_OK);
}

// Rewrites the 32-bit integer array of node `path` as 64-bit integers, as a CGNS library built
// with 64-bit sizes writes it.
void widen_to_i8(int cgio, double root, const char* path) {
  double id = 0;
  ASSERT_EQ(cgio_get_node_id(cgio, root, path, &id), CG_OK) << path;
  int ndims = 0;
  cgsize_t dims[CGIO_MAX_DIMENSIONS] = {};
  ASSERT_EQ(cgio_get_dimensions(cgio, id, &ndims, dims), CG_OK) << path;
  size_t n = 1;
  for (int d = 0; d < ndims; ++d) n *= static_cast<size_t>(dims[d]);
  char type[CGIO_MAX_DATATYPE_LENGTH + 1] = {};
  ASSERT_EQ(cgio_get_data_type(cgio, id, type), CG_OK) << path;
  ASSERT_STREQ(type, "I4") << path;
  std::vector<int> narrow(n);
  ASSERT_EQ(cgio_read_all_data(cgio, id, narrow.data()), CG_OK) << path;
  const std::vector<long long> wide(narrow.begin(), narrow.end());
  ASSERT_EQ(cgio_set_dimensions(cgio, id, "I8", ndims, dims), CG_OK) << path;
  ASSERT_EQ(cgio_write_all_data(cgio, id, wide.data()), CG_OK) << path;
}

// A file in the layout CGNS wrote before 3.4: a MIXED section without ElementStartOffset and
// library version 3.3 (made through the low-level cgio API from a file this library writes),
// with 32-bit and with 64-bit connectivity. The 64-bit one is what a CGNS 3.3 built with 64-bit
// sizes writes; CGNS 3.4.0 with 32-bit sizes fails on its offsets in read mode (its
// cg_poly_elements_read compares the wrong array's data type, fixed in CGNS 4).
TEST(CgnsReader, MixedSectionsOfFilesWrittenBeforeCgns34AreRead) {
  const Mesh m = builders::mixed_mesh(test::test_seed());
  for (const bool hdf5 : {false, true}) {
    for (const bool wide : {false, true}) {
      const std::string name = std::string("cgns33_") + (hdf5 ? "hdf5" : "adf") + (wide ? "_i8" : "_i4");
      SCOPED_TRACE(name);
      const std::string path = scratch(name + ".cgns");
      write_cgns(path, {m}, {hdf5, true});
      edit_nodes(path, "/Base/zone1/Cells", "ElementStartOffset", [&](int cgio, double root, double) {
        if (wide) {
          widen_to_i8(cgio, root, "/Base/zone1/Cells/ElementConnectivity");
          widen_to_i8(cgio, root, "/Base/zone1/Cells/ElementRange");
        }
        double version = 0;
        ASSERT_EQ(cgio_get_node_id(cgio, root, "/CGNSLibraryVersion", &version), CG_OK);
        float v33 = 3.3f;
        ASSERT_EQ(cgio_write_all_data(cgio, version, &v33), CG_OK);
      });
      const Mesh r = read(path);
      EXPECT_EQ(r.types, m.types);
      EXPECT_EQ(r.elem_nodes, m.elem_nodes);
      builders::expect_same_graph(r, m);
    }
  }
}

TEST(CgnsReader, ZonesJoinByTheirConnectivityOrOneIsRead) {
  const Mesh whole = builders::box_mesh({4, 2, 2}, builders::CellSplit::hexahedra, 0.0, 1);
  const Mesh half = builders::box_mesh({2, 2, 2}, builders::CellSplit::hexahedra, 0.0, 1);
  for (bool both : {false, true}) {
    SCOPED_TRACE(both);
    const std::string path = two_zone_file(both ? "joined_both.cgns" : "joined.cgns", both);
    const Mesh m = read_cgns(path);
    EXPECT_EQ(m.npoints(), whole.npoints());  // the shared face's 9 vertices once
    EXPECT_EQ(m.nelements(), whole.nelements());
    EXPECT_EQ(vertex_graph(m).num_edges_directed(), vertex_graph(whole).num_edges_directed());
    EXPECT_NEAR(static_cast<double>(builders::total_volume(m)), static_cast<double>(builders::total_volume(whole)),
                1e-12);
    const Mesh second = read(path, 2);
    EXPECT_EQ(second.npoints(), half.npoints());
    EXPECT_EQ(second.nelements(), half.nelements());
    PPSPARSE_EXPECT_THROW_MESSAGE(read_cgns(path, 3), InputError, path + ": zone 3 asked, the file has 2 zones");
  }
  // Zones without connectivity stay disjoint.
  const std::string apart = scratch("apart.cgns");
  write_cgns(apart, {half, half});
  EXPECT_EQ(read_cgns(apart).npoints(), 2 * half.npoints());
  // Matched vertices that are not at the same place are an error.
  const std::string shifted = two_zone_file("shifted.cgns", false, 0.5);
  PPSPARSE_EXPECT_THROW_MESSAGE(read_cgns(shifted), InputError,
                                shifted + ": zone 1 ('zone1'), connectivity 1 ('to_zone2'): pair 1: vertex ");
}

TEST(CgnsReader, RefusedAndMalformedInputNamesZoneAndSection) {
  const Mesh tet = builders::single_element(ElementType::tetrahedron, 0.1, test::test_seed());
  auto file = [&](const std::string& name, const std::function<void(int)>& change) {
    const std::string path = scratch(name);
    write_cgns(path, {tet});
    edit(path, change);
    return path;
  };
  const std::string structured = file("structured.cgns", [](int fn) {
    cgsize_t size[9] = {2, 2, 2, 1, 1, 1, 0, 0, 0};
    int z = 0;
    ASSERT_EQ(cg_zone_write(fn, 1, "zz_block", size, CGNS_ENUMV(Structured), &z), CG_OK);
  });
  PPSPARSE_EXPECT_THROW_MESSAGE(
      read_cgns(structured), InputError,
      structured + ": zone 2 ('zz_block'): a structured zone; ppsparse reads unstructured zones");
  EXPECT_EQ(read_cgns(structured, 1).nelements(), 1);
  const std::string quadratic = file("quadratic.cgns", [](int fn) {
    std::vector<cgsize_t> conn = {1, 2, 3, 4, 1, 2, 3, 4, 1, 2};
    int s = 0;
    ASSERT_EQ(cg_section_write(fn, 1, 1, "T10", CGNS_ENUMV(TETRA_10), 2, 2, 0, conn.data(), &s), CG_OK);
  });
  PPSPARSE_EXPECT_THROW_MESSAGE(
      read_cgns(quadratic), InputError,
      quadratic + ": zone 1 ('zone1'), section 2 ('T10'): element type TETRA_10 (higher order or unknown) is not read");
  const std::string out_of_range = file("range.cgns", [](int fn) {
    std::vector<cgsize_t> conn = {1, 2, 7};
    int s = 0;
    ASSERT_EQ(cg_section_write(fn, 1, 1, "faces", CGNS_ENUMV(TRI_3), 2, 2, 0, conn.data(), &s), CG_OK);
  });
  PPSPARSE_EXPECT_THROW_MESSAGE(
      read_cgns(out_of_range), InputError,
      out_of_range + ": zone 1 ('zone1'), section 2 ('faces'): element 2: vertex 7 out of range [1, 4]");
  // A storage-layer failure (here a link to a file that is not there) is said in words first.
  const std::string dangling = file("dangling.cgns", [](int) {});
  edit_nodes(dangling, "/Base/zone1/TETRA_4", "ElementConnectivity", [](int cgio, double, double cells) {
    double link = 0;
    ASSERT_EQ(cgio_create_link(cgio, cells, "ElementConnectivity", "absent_file.cgns", "/Base/zone1/TETRA_4/x", &link),
              CG_OK);
  });
  PPSPARSE_EXPECT_THROW_MESSAGE(read_cgns(dangling), InputError,
                                dangling +
                                    ": cannot open file: the CGNS library could not read it (damaged or "
                                    "truncated, or in a layout of another CGNS version that this CGNS ");
  const std::string two_bases = file("bases.cgns", [](int fn) {
    int b = 0;
    ASSERT_EQ(cg_base_write(fn, "Other", 3, 3, &b), CG_OK);
  });
  PPSPARSE_EXPECT_THROW_MESSAGE(read_cgns(two_bases), InputError,
                                two_bases + ": 2 bases; ppsparse reads files with one base");
  const std::string not_cgns = scratch("not_cgns.cgns");
  std::ofstream(not_cgns) << "\x89HDF\r\n\x1a\n but not really";
  PPSPARSE_EXPECT_THROW_MESSAGE(read(not_cgns), InputError, not_cgns + ": cannot open file: not a CGNS file");
  PPSPARSE_EXPECT_THROW_MESSAGE(read_cgns(scratch("absent.cgns")), InputError, "absent.cgns: cannot open file");
  PPSPARSE_EXPECT_THROW_MESSAGE(read_cgns(structured, -1), InputError, "zone -1 asked: zones are numbered from 1");
}

// Damaged files: what failed and where, with the CGNS library's own words, never a crash.
TEST(CgnsReader, TruncatedFilesGiveAnErrorOrTheMeshTheyStillHold) {
  const Mesh m = builders::mixed_mesh(test::test_seed());
  for (const Variant& v : kVariants) {
    SCOPED_TRACE(v.name);
    const std::string whole = scratch(std::string("whole_") + v.name + ".cgns");
    write_cgns(whole, {m}, v.options);
    const auto size = fs::file_size(whole);
    for (int percent = 5; percent < 100; percent += 10) {
      const std::string cut = scratch(std::string("cut_") + v.name + ".cgns");
      fs::copy_file(whole, cut, fs::copy_options::overwrite_existing);
      fs::resize_file(cut, size * percent / 100);
      try {
        const Mesh r = read_cgns(cut);  // a cut in unused space (ADF's free list) may keep the mesh
        EXPECT_EQ(r.coords, m.coords) << percent << " %";
        EXPECT_EQ(r.elem_nodes.size(), m.elem_nodes.size()) << percent << " %";
      } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(cut + ": ", 0), 0u) << what;
        if (what.find("cgio_") != std::string::npos)
          EXPECT_NE(what.find("the CGNS library could not read "), std::string::npos) << what;
      }
    }
  }
}

TEST(CgnsReader, SharedMeshesGiveTheSameVertexGraph) {
  builders::for_each_shared_mesh([](const std::string& stem, const Mesh& m) {
    for (const Variant& v : kVariants) {
      SCOPED_TRACE(v.name);
      const std::string path = scratch(stem + "_" + v.name + ".cgns");
      write_cgns(path, {m}, v.options);
      builders::expect_same_graph(read_cgns(path), m);
    }
  });
}

#else

TEST(CgnsReader, ABuildWithoutCgnsSaysSo) {
  EXPECT_FALSE(cgns_available());
  PPSPARSE_EXPECT_THROW_MESSAGE(
      read_cgns("m.cgns"), Error,
      "m.cgns: this build of ppsparse reads no CGNS (configure with -DPPSPARSE_ENABLE_CGNS=ON");
}

#endif

}  // namespace
}  // namespace ppsparse::mesh

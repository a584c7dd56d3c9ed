#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/su2_reader.hpp>

#include "mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

namespace fs = std::filesystem;

fs::path corpus() { return test::data_dir() / "su2"; }

std::vector<fs::path> corpus_files(const std::string& prefix) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(corpus()))
    if (entry.path().filename().string().rfind(prefix, 0) == 0 && entry.path().extension() == ".su2")
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Every malformed file states its expected error on its first line:
// "% expect: LINE: reason". The reader must report exactly that.
TEST(Su2Reader, EveryMalformedFileInTheCorpusGivesItsError) {
  const auto files = corpus_files("bad_");
  ASSERT_GE(files.size(), 50u) << "corpus missing from " << corpus();
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    const std::string tag = "% expect: ";
    ASSERT_EQ(first.rfind(tag, 0), 0u) << "first line must be '% expect: LINE: reason'";
    const std::string expect = first.substr(tag.size());
    const size_t colon = expect.find(": ");
    const long long line = std::stoll(expect.substr(0, colon));
    const std::string reason = expect.substr(colon + 2);
    try {
      read_su2(path.string());
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path.string());
      EXPECT_EQ(e.line(), line);
      EXPECT_EQ(e.reason(), reason);
      EXPECT_EQ(std::string(e.what()), path.string() + ":" + std::to_string(line) + ": " + reason);
    }
  }
}

TEST(Su2Reader, MissingFile) {
  const std::string path = (corpus() / "no_such_file.su2").string();
  try {
    read_su2(path);
    ADD_FAILURE() << "opened a missing file";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open file: No such file or directory");
  }
  try {
    read_su2(corpus().string());
    ADD_FAILURE() << "read a directory";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), corpus().string() + ": cannot open file: it is a directory");
  }
}

TEST(Su2Reader, TwoTetsWithEveryOptionalPiece) {
  const Mesh m = read_su2((corpus() / "good_two_tets.su2").string());
  EXPECT_EQ(m.dim, 3);
  ASSERT_EQ(m.npoints(), 5);
  ASSERT_EQ(m.nelements(), 2);
  EXPECT_EQ(m.types[0], ElementType::tetrahedron);
  EXPECT_EQ(m.types[1], ElementType::tetrahedron);
  EXPECT_EQ(m.elem_nodes, (std::vector<ordinal_t>{0, 1, 2, 3, 1, 2, 3, 4}));
  EXPECT_EQ(m.elem_ptr, (std::vector<offset_t>{0, 4, 8}));
  EXPECT_EQ(m.coords, (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_NO_THROW(validate(m));
  EXPECT_DOUBLE_EQ(element_volume(m, 0), 1.0 / 6);
  EXPECT_DOUBLE_EQ(element_volume(m, 1), 1.0 / 3);
}

TEST(Su2Reader, Hybrid2d) {
  const Mesh m = read_su2((corpus() / "good_hybrid_2d.su2").string());
  EXPECT_EQ(m.dim, 2);
  ASSERT_EQ(m.npoints(), 8);
  ASSERT_EQ(m.nelements(), 4);
  EXPECT_EQ(m.types, (std::vector<ElementType>{ElementType::quadrilateral, ElementType::quadrilateral,
                                               ElementType::triangle, ElementType::triangle}));
  EXPECT_EQ(m.coords.size(), 16u);
  double area = 0;
  for (ordinal_t e = 0; e < 4; ++e) area += element_volume(m, e);
  EXPECT_DOUBLE_EQ(area, 3.0);
}

TEST(Su2Reader, SectionsInAnyOrderAndNoMarkers) {
  const Mesh m = read_su2((corpus() / "good_reordered_no_markers.su2").string());
  ASSERT_EQ(m.nelements(), 1);
  EXPECT_EQ(m.types[0], ElementType::prism);
  EXPECT_DOUBLE_EQ(element_volume(m, 0), 0.5);
}

TEST(Su2Reader, MultizoneFilesWholeOrOneZone) {
  const std::string path = (corpus() / "good_multizone.su2").string();
  const Mesh all = read_su2(path);
  ASSERT_EQ(all.npoints(), 9);  // 4 + 5 points, disjoint
  ASSERT_EQ(all.nelements(), 3);
  EXPECT_EQ(all.elem_nodes, (std::vector<ordinal_t>{0, 1, 2, 3, 4, 5, 6, 7, 5, 6, 7, 8}));
  EXPECT_EQ(all.coords[3 * 8], 1.0);  // zone 2's point 4 (1 1 1)
  const Mesh z1 = read_su2(path, 1);
  EXPECT_EQ(z1.npoints(), 4);
  EXPECT_EQ(z1.nelements(), 1);
  const Mesh z2 = read_su2(path, 2);
  EXPECT_EQ(z2.npoints(), 5);
  EXPECT_EQ(z2.elem_nodes, (std::vector<ordinal_t>{0, 1, 2, 3, 1, 2, 3, 4}));
  PPSPARSE_EXPECT_THROW_MESSAGE(read_su2(path, 3), InputError, path + ": zone 3 asked, the file has 2 zones");
  // A single-zone file is zone 1.
  const std::string single = (corpus() / "good_reordered_no_markers.su2").string();
  EXPECT_EQ(read_su2(single, 1).nelements(), 1);
  PPSPARSE_EXPECT_THROW_MESSAGE(read_su2(single, 2), InputError, single + ": zone 2 asked, the file has 1 zone");
}

// NZONE= may follow the file's NDIME=, which then serves every zone without one of its own (as
// SU2's reader takes it); a zone's own NDIME= must agree with it.
TEST(Su2Reader, MultizoneFileWithItsNdimeFirst) {
  const std::string path = (corpus() / "good_multizone_ndime_first.su2").string();
  const Mesh all = read_su2(path);
  EXPECT_EQ(all.dim, 3);
  EXPECT_EQ(all.npoints(), 9);
  EXPECT_EQ(all.nelements(), 3);
  EXPECT_EQ(read_su2(path, 1).nelements(), 1);
  EXPECT_EQ(read_su2(path, 2).nelements(), 2);
  const std::string clash = test::write_scratch_file(
      "ppsparse_su2", "ndime_clash.su2", "NDIME= 2\nNZONE= 1\nIZONE= 1\nNDIME= 3\nNELEM= 0\nNPOIN= 0\nNMARK= 0\n");
  PPSPARSE_EXPECT_THROW_MESSAGE(read_su2(clash), InputError,
                                clash + ":4: NDIME= 3 of zone 1 differs from the file's NDIME= 2 on line 1");
  const std::string late = test::write_scratch_file("ppsparse_su2", "nzone_late.su2", "NDIME= 3\nNELEM= 0\nNZONE= 1\n");
  PPSPARSE_EXPECT_THROW_MESSAGE(read_su2(late), InputError, late + ":3: NZONE= must come before the first zone");
}

TEST(Su2Reader, AllThreeDimensionalTypes) {
  const Mesh m = read_su2((corpus() / "good_all_3d_types.su2").string());
  ASSERT_EQ(m.nelements(), 4);
  EXPECT_EQ(m.types, (std::vector<ElementType>{ElementType::hexahedron, ElementType::pyramid, ElementType::prism,
                                               ElementType::tetrahedron}));
  const double want[] = {1.0, 1.0 / 3, 0.5, 1.0 / 6};
  for (ordinal_t e = 0; e < 4; ++e) {
    EXPECT_NEAR(element_signed_volume(m, e), want[e], 1e-15) << element_name(m.types[e]);
  }
}

// Writes m in SU2 with formatting chosen at random (spacing, indices, comments) and
// reads it back: the round trip is exact.
TEST(Su2Reader, RandomMeshRoundTrip) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto coin = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
  const Mesh meshes[] = {builders::box_mesh({3, 2, 2}, builders::CellSplit::hexahedra_and_pyramids, 0.2, seed),
                         builders::box_mesh({2, 3, 2}, builders::CellSplit::tetrahedra, 0.1, seed + 1),
                         builders::box_mesh({2, 2, 3}, builders::CellSplit::prisms, 0.2, seed + 2),
                         builders::rectangle_mesh(4, 3, 0.2, seed + 3)};
  const fs::path path = fs::temp_directory_path() / ("ppsparse_su2_roundtrip_" + std::to_string(seed) + ".su2");
  for (const Mesh& m : meshes) {
    {
      std::ofstream out(path);
      out.precision(17);
      auto sep = [&] { return coin() ? "\t" : "  "; };
      out << "% random round trip\n";
      out << (coin() ? "NDIME= " : "NDIME=") << m.dim << "\n";
      out << "NELEM= " << m.nelements() << (coin() ? " % volume\n" : "\n");
      for (ordinal_t e = 0; e < m.nelements(); ++e) {
        out << static_cast<int>(m.types[e]);
        for (offset_t k = m.elem_ptr[e]; k < m.elem_ptr[e + 1]; ++k) out << sep() << m.elem_nodes[k];
        if (coin()) out << sep() << e;
        out << "\n";
        if (coin() && coin() && coin()) out << "\n";
      }
      out << "NPOIN= " << m.npoints() << (coin() ? " " + std::to_string(m.npoints()) : std::string()) << "\n";
      for (ordinal_t p = 0; p < m.npoints(); ++p) {
        for (int d = 0; d < m.dim; ++d) out << (d ? sep() : "") << m.coords[static_cast<size_t>(p) * m.dim + d];
        if (coin()) out << sep() << p;
        out << "\n";
      }
      out << "NMARK= 0\n";
    }
    const Mesh r = read_su2(path.string());
    EXPECT_EQ(r.dim, m.dim);
    EXPECT_EQ(r.types, m.types);
    EXPECT_EQ(r.elem_ptr, m.elem_ptr);
    EXPECT_EQ(r.elem_nodes, m.elem_nodes);
    EXPECT_EQ(r.coords, m.coords);  // %.17g round-trips exactly
  }
  fs::remove(path);
}

// Every prefix of a valid file (cut at any line) and every single-character
// corruption either reads or throws InputError: never a crash or another exception.
TEST(Su2Reader, TruncationsAndCorruptionsFailCleanly) {
  const auto seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::ifstream in(corpus() / "good_all_3d_types.su2");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const fs::path path = fs::temp_directory_path() / ("ppsparse_su2_fuzz_" + std::to_string(seed) + ".su2");
  auto attempt = [&](const std::string& content) {
    { std::ofstream(path) << content; }
    try {
      const Mesh m = read_su2(path.string());
      validate(m);  // whatever is accepted is a valid mesh
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  };
  int truncations = 0;
  for (size_t pos = text.find('\n'); pos != std::string::npos; pos = text.find('\n', pos + 1), ++truncations)
    attempt(text.substr(0, pos + 1));
  EXPECT_GT(truncations, 20);
  std::mt19937_64 rng(seed);
  const std::string alphabet = std::string("0123456789 -.eE=%\tx\n\r\x01", 22) + std::string(1, '\0');
  for (int trial = 0; trial < 150; ++trial) {
    std::string t = text;
    t[std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng)] =
        alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)];
    attempt(t);
  }
  fs::remove(path);
}

// The real meshes of ../shared: counts as announced by the headers and the README.
TEST(Su2Reader, RealMeshes) {
  const fs::path dir = test::shared_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared dir (../shared) with real meshes";
  struct Expect {
    const char* file;
    int dim;
    ordinal_t npoints, nelements;
    std::vector<ElementType> types;  // which types occur
  };
  const Expect expects[] = {
      {"brick_tets.su2", 3, 11703, 59156, {ElementType::tetrahedron}},
      {"brick_pyra.su2", 3, 14030, 72625, {ElementType::tetrahedron, ElementType::pyramid}},
      {"brick_hex.su2", 3, 16000, 14079, {ElementType::hexahedron}},
      {"pipe.su2", 3, 9919, 41402, {ElementType::tetrahedron}},  // five zones (NZONE=5), joined
      {"naca0012_hybrid_2d.su2", 2, 23317, 38017, {ElementType::triangle, ElementType::quadrilateral}},
  };
  for (const auto& x : expects) {
    SCOPED_TRACE(x.file);
    const fs::path path = dir / "meshes" / x.file;
    if (!fs::exists(path)) {
      ADD_FAILURE() << "missing " << path;
      continue;
    }
    const Mesh m = read_su2(path.string());
    EXPECT_EQ(m.dim, x.dim);
    EXPECT_EQ(m.npoints(), x.npoints);
    EXPECT_EQ(m.nelements(), x.nelements);
    EXPECT_NO_THROW(validate(m));
    std::vector<ElementType> seen(m.types);
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    std::vector<ElementType> want = x.types;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(seen, want);
    // Every element has a real, positive measure.
    for (ordinal_t e = 0; e < m.nelements(); ++e) ASSERT_GT(element_volume(m, e), 0.0) << "element " << e;
  }
  // pipe.su2's first zone alone, as read before multizone files were read whole.
  const fs::path pipe = dir / "meshes" / "pipe.su2";
  if (fs::exists(pipe)) {
    const Mesh z1 = read_su2(pipe.string(), 1);
    EXPECT_EQ(z1.npoints(), 1983);
    EXPECT_EQ(z1.nelements(), 8250);
    PPSPARSE_EXPECT_THROW_MESSAGE(read_su2(pipe.string(), 6), InputError, "zone 6 asked, the file has 5 zones");
  }
}

}  // namespace
}  // namespace ppsparse::mesh

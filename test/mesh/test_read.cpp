#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/ugrid_reader.hpp>

#include "mesh/mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::mesh {
namespace {

std::string write_file(const std::string& name, const std::string& bytes) {
  return test::write_scratch_file("ppsparse_read_test", name, bytes);
}

const std::string kTriangleSu2 = "NDIME= 2\nNELEM= 1\n5 0 1 2 0\nNPOIN= 3\n0 0 0\n1 0 1\n0 1 2\nNMARK= 0\n";

TEST(MeshRead, RecognisesFormatsByContentThenName) {
  EXPECT_EQ(detect_mesh_format(write_file("a.su2", kTriangleSu2)), MeshFormat::su2);
  EXPECT_EQ(detect_mesh_format(write_file("no_extension", "% comment\nNDIME = 2\n")), MeshFormat::su2);
  EXPECT_EQ(detect_mesh_format(write_file("g.su2", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n")), MeshFormat::gmsh);
  EXPECT_EQ(detect_mesh_format(write_file("h.dat", std::string("\x89HDF\r\n\x1a\n", 8) + "rest")), MeshFormat::cgns);
  EXPECT_EQ(detect_mesh_format(write_file("a.adf", "xxxx@(#)ADF Database xxxx")), MeshFormat::cgns);
  EXPECT_EQ(detect_mesh_format(write_file("u.lb8.ugrid", "binary")), MeshFormat::ugrid);
  EXPECT_EQ(detect_mesh_format(write_file("m.msh", "garbage")), MeshFormat::gmsh);
  EXPECT_EQ(detect_mesh_format(write_file("x.txt", "hello")), MeshFormat::unknown);
}

TEST(MeshRead, ReadsSu2AndUgrid) {
  EXPECT_EQ(read(write_file("t.su2", kTriangleSu2)).nelements(), 1);
  const Mesh m = builders::box_mesh({2, 2, 2}, builders::CellSplit::tetrahedra, 0.0, test::test_seed());
  const std::string path = test::scratch_file("ppsparse_read_test", "box.lb8.ugrid");
  write_ugrid(path, m);
  EXPECT_EQ(read(path).nelements(), m.nelements());
}

TEST(MeshRead, EachFormatGoesToItsReaderAndUnknownOnesSayWhatIsRead) {
  const std::string gmsh = write_file("m.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n");
  PPSPARSE_EXPECT_THROW_MESSAGE(read(gmsh), InputError, gmsh + ":3: no $Nodes section");
  PPSPARSE_EXPECT_THROW_MESSAGE(read(gmsh, 2), InputError, gmsh + ": zone 2 asked: a Gmsh MSH file has one zone");
  const std::string cgns = write_file("m.cgns", std::string("\x89HDF\r\n\x1a\n", 8));
  PPSPARSE_EXPECT_THROW_MESSAGE(read(cgns), Error,
                                cgns + (cgns_available() ? ": cannot open file: not a CGNS file" : ": this build"));
  const std::string other = write_file("m.txt", "hello");
  PPSPARSE_EXPECT_THROW_MESSAGE(read(other), InputError,
                                other +
                                    ": unknown mesh format (not SU2, AFLR3 UGRID, Gmsh MSH or CGNS); ppsparse reads "
                                    "SU2 (.su2), AFLR3 UGRID (.ugrid)" +
                                    (cgns_available() ? ", Gmsh MSH (.msh) and CGNS (.cgns .adf .hdf) meshes"
                                                      : " and Gmsh MSH (.msh); this build reads no CGNS meshes"));
  PPSPARSE_EXPECT_THROW_MESSAGE(read("/nonexistent/m.su2"), InputError, "/nonexistent/m.su2: cannot open file");
}

}  // namespace
}  // namespace ppsparse::mesh

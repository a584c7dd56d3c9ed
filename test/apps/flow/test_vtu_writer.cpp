// The VTU writer (apps/flow/vtu_writer.hpp): the XML names every array with an offset into the
// appended raw data, and every array read back from there is the one written.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>

#include "test_util.hpp"
#include "vtu_writer.hpp"

namespace flow {
namespace {

// The array whose DataArray element names `name` (or, for the points, the one in <Points>): its
// bytes, read from the appended data through its offset and UInt64 byte count.
std::string array_bytes(const std::string& file, const std::string& name) {
  const std::regex element(name.empty() ? "<Points>\\s*<DataArray [^>]*offset=\"([0-9]+)\""
                                        : "<DataArray [^>]*Name=\"" + name + "\"[^>]*offset=\"([0-9]+)\"");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(file, m, element)) << name;
  const size_t start = file.find("<AppendedData encoding=\"raw\">\n_");
  EXPECT_NE(start, std::string::npos);
  const size_t at = start + std::strlen("<AppendedData encoding=\"raw\">\n_") + std::stoull(m[1].str());
  std::uint64_t bytes = 0;
  std::memcpy(&bytes, file.data() + at, sizeof bytes);
  return file.substr(at + sizeof bytes, bytes);
}

template <class T>
std::vector<T> as(const std::string& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

TEST(VtuWriter, EveryArrayReadsBackFromTheAppendedData) {
  ppsparse::mesh::Mesh m;
  m.dim = 2;
  m.coords = {0, 0, 1, 0, 1, 1, 0, 1};
  m.types = {ppsparse::mesh::ElementType::triangle, ppsparse::mesh::ElementType::triangle};
  m.elem_ptr = {0, 3, 6};
  m.elem_nodes = {0, 1, 2, 0, 2, 3};
  const std::vector<PointField> fields = {{"Density", 1, {1.0, 1.25, 0.5, 2.0}},
                                          {"Velocity", 3, {1, 2, 0, 3, 4, 0, 5, 6, 0, 7, 8, 0}}};
  const std::string path = ::testing::TempDir() + "vtu_writer_test.vtu";
  write_vtu(path, m, fields);
  std::ifstream in(path, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(file.find("NumberOfPoints=\"4\" NumberOfCells=\"2\""), std::string::npos);
  EXPECT_NE(file.find("Scalars=\"Density\" Vectors=\"Velocity\""), std::string::npos);
  EXPECT_EQ(as<double>(array_bytes(file, "Density")), fields[0].values);
  EXPECT_EQ(as<double>(array_bytes(file, "Velocity")), fields[1].values);
  EXPECT_EQ(as<double>(array_bytes(file, "")), (std::vector<double>{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(as<std::int64_t>(array_bytes(file, "connectivity")), (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(as<std::int64_t>(array_bytes(file, "offsets")), (std::vector<std::int64_t>{3, 6}));
  EXPECT_EQ(as<std::uint8_t>(array_bytes(file, "types")), (std::vector<std::uint8_t>{5, 5}));  // VTK_TRIANGLE
  EXPECT_NE(file.rfind("</AppendedData>\n</VTKFile>\n"), std::string::npos);

  PPSPARSE_EXPECT_THROW_MESSAGE(write_vtu(path, m, {{"Pressure", 1, {1.0}}}), ppsparse::InvalidArgument,
                                "flow: field 'Pressure' has 1 values for 4 points of 1 components");
  PPSPARSE_EXPECT_THROW_MESSAGE(write_vtu("/nonexistent-dir/x.vtu", m, fields), ppsparse::Error,
                                "flow: cannot write '/nonexistent-dir/x.vtu'");
}

}  // namespace
}  // namespace flow

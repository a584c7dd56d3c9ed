// libFuzzer harness of the Gmsh MSH reader (test/fuzz/README.md): versions 4.1 and 2.2, ASCII
// and binary, chosen by the file's own $MeshFormat line. Whatever the reader accepts must be a
// valid mesh.
#include <cstdint>

#include <ppsparse/mesh/gmsh_reader.hpp>
#include <ppsparse/mesh/mesh.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ppsparse::fuzz::check_reader(data, size, ".msh", [](const std::string& path) {
    const ppsparse::mesh::Mesh m = ppsparse::mesh::read_gmsh(path);
    ppsparse::mesh::validate(m, "accepted mesh");
  });
  return 0;
}

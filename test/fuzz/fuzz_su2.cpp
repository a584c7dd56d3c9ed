// libFuzzer harness of the SU2 mesh reader (test/fuzz/README.md). Whatever the reader accepts
// must be a valid mesh (mesh::validate).
#include <cstdint>

#include <ppsparse/mesh/mesh.hpp>
#include <ppsparse/mesh/su2_reader.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ppsparse::fuzz::check_reader(data, size, ".su2", [](const std::string& path) {
    const ppsparse::mesh::Mesh m = ppsparse::mesh::read_su2(path);
    ppsparse::mesh::validate(m, "accepted mesh");
  });
  return 0;
}

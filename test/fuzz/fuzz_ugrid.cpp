// libFuzzer harness of the AFLR3 UGRID reader (test/fuzz/README.md). The first byte of the input
// picks the encoding (the file name's suffix: ASCII, C or Fortran binary, each byte order and
// width); the rest is the file. Whatever the reader accepts must be a valid mesh.
#include <unistd.h>

#include <cstdint>
#include <string>

#include <ppsparse/mesh/mesh.hpp>
#include <ppsparse/mesh/ugrid_reader.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* const suffixes[] = {".ugrid",     ".b8.ugrid",  ".lb8.ugrid",  ".b4.ugrid",
                                         ".lb4.ugrid", ".b8l.ugrid", ".lb8l.ugrid", ".r8.ugrid",
                                         ".lr8.ugrid", ".r4.ugrid",  ".lr4.ugrid"};
  constexpr std::size_t kSuffixes = sizeof(suffixes) / sizeof(suffixes[0]);
  if (size == 0) return 0;
  static const std::string base = ppsparse::fuzz::scratch_path("");
  static std::string paths[kSuffixes];
  static const bool cleanup = [] {
    for (std::size_t i = 0; i < kSuffixes; ++i) paths[i] = base + suffixes[i];
    std::atexit([] {
      for (const std::string& p : paths) std::remove(p.c_str());
    });
    return true;
  }();
  (void)cleanup;
  ppsparse::fuzz::check_reader_at(paths[data[0] % kSuffixes], data + 1, size - 1, [](const std::string& path) {
    const ppsparse::mesh::Mesh m = ppsparse::mesh::read_ugrid(path);
    ppsparse::mesh::validate(m, "accepted mesh");
  });
  return 0;
}

#pragma once
// Shared parts of the libFuzzer harnesses: the input written to a file of its own (the readers
// take paths), Kokkos initialised once, and the rules every reader must keep on any input:
// either a valid result or a ppsparse::Error whose message is one line, never a crash, a hang,
// another exception or a multi-line message.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>

namespace ppsparse::fuzz {

// A per-process scratch file, rewritten for each input; removed at exit.
inline const std::string& scratch_path(const char* extension) {
  static const std::string path = [&] {
    const char* dir = std::getenv("TMPDIR");
    std::string p =
        std::string(dir && *dir ? dir : "/tmp") + "/ppsparse_fuzz_" + std::to_string(::getpid()) + extension;
    static std::string to_remove = p;
    std::atexit([] { std::remove(to_remove.c_str()); });
    return p;
  }();
  return path;
}

inline void write_input(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

inline void initialize_kokkos() {
  static const bool once = [] {
    Kokkos::initialize();
    std::atexit([] { Kokkos::finalize(); });
    return true;
  }();
  (void)once;
}

// Writes the input to `path`, runs read(path) and enforces the rules above.
template <class Read>
void check_reader_at(const std::string& path, const std::uint8_t* data, std::size_t size, Read&& read) {
  initialize_kokkos();
  write_input(path, data, size);
  try {
    read(path);
  } catch (const ppsparse::Error& e) {
    const std::string message = e.what();
    if (message.empty() || message.find('\n') != std::string::npos) {
      std::fprintf(stderr, "reader error message is not one line: '%s'\n", message.c_str());
      std::abort();
    }
  }
  // Anything else (std::bad_alloc, std::length_error, ...) escapes and libFuzzer reports it.
}

// The same on the process's scratch file with the given extension.
template <class Read>
void check_reader(const std::uint8_t* data, std::size_t size, const char* extension, Read&& read) {
  check_reader_at(scratch_path(extension), data, size, read);
}

}  // namespace ppsparse::fuzz

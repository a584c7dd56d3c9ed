#include <ppsparse/mesh/ugrid_reader.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <type_traits>
#include <vector>

#include <ppsparse/error.hpp>

#include "../io/byte_order.hpp"
#include "ugrid_format.hpp"

namespace ppsparse::mesh {
namespace {

using namespace ugrid;

// Node order: UGRID's pyramid has its apex third; VTK's (the Mesh's) has it last.
void to_vtk_order(const int type, std::array<long long, 8>& v) {
  if (type != 1) return;
  const std::array<long long, 8> u = v;
  v[0] = u[1];
  v[1] = u[0];
  v[2] = u[3];
  v[3] = u[4];
  v[4] = u[2];
}

// What a number is, for messages: a string, or a callable that builds it only when an error
// needs it (the readers describe every number, and building 10^9 strings would cost more than
// reading).
inline const std::string& text(const std::string& s) { return s; }
template <class F, class = std::enable_if_t<std::is_invocable_v<const F&>>>
std::string text(const F& f) {
  return f();
}

// Whitespace-separated numbers with their line numbers; errors are "FILE:LINE: reason".
class AsciiSource {
 public:
  AsciiSource(const std::string& path, std::istream& in) : path_(path), in_(in) {}

  template <class What>
  long long integer(const What& what) {
    const std::string t = token(what);
    long long v = 0;
    size_t used = 0;
    try {
      v = std::stoll(t, &used);
    } catch (const std::out_of_range&) {
      fail(text(what) + ": '" + t + "' is out of range");
    } catch (const std::exception&) {
      fail(text(what) + ": '" + t + "' is not an integer");
    }
    if (used != t.size()) fail(text(what) + ": '" + t + "' is not an integer");
    return v;
  }
  template <class What>
  double real(const What& what) {
    const std::string t = token(what);
    double v = 0;
    size_t used = 0;
    try {
      v = std::stod(t, &used);
    } catch (const std::exception&) {
      fail(text(what) + ": '" + t + "' is not a number");
    }
    if (used != t.size()) fail(text(what) + ": '" + t + "' is not a number");
    if (!std::isfinite(v)) fail(text(what) + ": '" + t + "' is not a finite number");
    return v;
  }
  [[noreturn]] void fail(const std::string& reason) const { throw InputError(path_, line_, reason); }

 private:
  const std::string& path_;
  std::istream& in_;
  long long line_ = 1;

  template <class What>
  std::string token(const What& what) {
    int c;
    while ((c = in_.get()) != EOF && std::isspace(c))
      if (c == '\n') ++line_;
    if (c == EOF) fail("file ends before " + text(what));
    std::string t(1, static_cast<char>(c));
    while ((c = in_.peek()) != EOF && !std::isspace(c)) {
      t.push_back(static_cast<char>(in_.get()));
      if (t.size() > 64) fail(text(what) + ": '" + t.substr(0, 32) + "...' is not a number");
    }
    return t;
  }
};

// Fixed-size numbers in a byte order; errors are "FILE: section S: reason".
class BinarySource {
 public:
  BinarySource(const std::string& path, std::istream& in, const Format& f, std::uint64_t size)
      : path_(path), in_(in), f_(f), size_(size), swap_(f.big_endian != host_is_big_endian()) {}

  void section(const std::string& s) { section_ = s; }
  template <class What>
  long long integer(const What& what) {
    if (f_.int_bytes == 8) {
      std::int64_t v;
      read(&v, 8, what);
      return v;
    }
    std::int32_t v;
    read(&v, 4, what);
    return v;
  }
  template <class What>
  double real(const What& what) {
    double v;
    if (f_.real_bytes == 8) {
      read(&v, 8, what);
    } else {
      float x;
      read(&x, 4, what);
      v = x;
    }
    if (!std::isfinite(v)) fail(text(what) + " is not a finite number");
    return v;
  }
  std::int32_t marker(const std::string& what) {
    std::int32_t v;
    read(&v, 4, what);
    return v;
  }
  [[noreturn]] void fail(const std::string& reason) const {
    throw InputError(path_, "section " + section_ + ": " + reason);
  }
  // Whether `bytes` more bytes are in the file: checked before a section is allocated.
  void check_fits(long long bytes) const {
    if (bytes < 0 || static_cast<std::uint64_t>(bytes) > size_ - offset_)
      fail("the header's counts need " + std::to_string(bytes) + " more bytes, the file has " +
           std::to_string(size_ - offset_) + " (a truncated file, or not a " + f_.suffix + " UGRID file)");
  }

 private:
  const std::string& path_;
  std::istream& in_;
  Format f_;
  std::uint64_t size_, offset_ = 0;
  bool swap_;
  std::string section_ = "header";

  template <class What>
  void read(void* out, int bytes, const What& what) {
    unsigned char b[8];
    if (!in_.read(reinterpret_cast<char*>(b), bytes)) fail("file ends before " + text(what));
    offset_ += static_cast<std::uint64_t>(bytes);
    if (swap_) swap_bytes(b, bytes);
    std::memcpy(out, b, static_cast<size_t>(bytes));
  }
};

template <class Source>
Mesh parse(Source& src, const Format& f) {
  auto section = [&](const char* s) {
    if constexpr (std::is_same_v<Source, BinarySource>) src.section(s);
  };
  const bool fortran = f.encoding == UgridEncoding::fortran_binary;
  section("header");
  if constexpr (std::is_same_v<Source, BinarySource>)
    if (fortran) {
      const std::int32_t m = src.marker("the header's record marker");
      if (m != 7 * f.int_bytes)
        src.fail("record marker " + std::to_string(m) + ", expected " + std::to_string(7 * f.int_bytes) +
                 " (7 counts): not a Fortran " + f.suffix + " UGRID file");
    }
  static const char* names[7] = {
      "the node count",        "the boundary triangle count", "the boundary quadrilateral count",
      "the tetrahedron count", "the pyramid count",           "the prism count",
      "the hexahedron count"};
  std::array<long long, 7> n{};
  for (int i = 0; i < 7; ++i) {
    n[i] = src.integer(names[i]);
    if (n[i] < 0) src.fail(std::string(names[i]) + " is negative (" + std::to_string(n[i]) + ")");
  }
  for (int i = 0; i < 3; ++i)
    if (n[i] > max_ordinal) src.fail(std::string(names[i]) + " " + std::to_string(n[i]) + " exceeds 2^31 - 1");
  long long elements = 0, entries = 0;
  for (int t = 0; t < 4; ++t) {
    elements += n[3 + t];
    if (elements > max_ordinal) src.fail("more than 2^31 - 1 volume elements");
    entries += n[3 + t] * kElementNodes[t];
  }
  if (elements == 0) src.fail("no volume elements (a surface grid is not a volume mesh)");
  if constexpr (std::is_same_v<Source, BinarySource>) {
    if (fortran) {
      src.marker("the header's closing record marker");
      src.marker("the data's record marker");
    }
    const long long R = f.real_bytes, I = f.int_bytes;
    const long long faces = n[1] + n[2];
    src.check_fits(n[0] * 3 * R + (3 * n[1] + 4 * n[2]) * I + faces * I + entries * I);
  }

  // Binary counts have been checked against the file's size: the arrays are reserved whole, so
  // that memory is the result's. ASCII counts are not trusted that far: the arrays grow.
  const bool exact = std::is_same_v<Source, BinarySource>;
  const auto reserve = [&](long long count) {
    return static_cast<size_t>(exact ? count : std::min<long long>(count, 1 << 20));
  };
  Mesh m;
  m.dim = 3;
  section("points");
  m.coords.reserve(reserve(n[0]) * 3);
  for (long long p = 0; p < n[0]; ++p)
    for (int d = 0; d < 3; ++d)
      m.coords.push_back(
          src.real([&] { return "coordinate " + std::to_string(d) + " of node " + std::to_string(p + 1); }));
  auto node = [&](const auto& what) {
    const long long id = src.integer(what);
    if (id < 1 || id > n[0])
      src.fail(text(what) + ": node " + std::to_string(id) + " out of range [1, " + std::to_string(n[0]) + "]");
    return id;
  };
  section("boundary faces");
  std::vector<ordinal_t> face_nodes;
  face_nodes.reserve(reserve(3 * n[1] + 4 * n[2]));
  for (int k = 0; k < 2; ++k) {
    const int nodes = k == 0 ? 3 : 4;
    const char* name = k == 0 ? "boundary triangle " : "boundary quadrilateral ";
    for (long long e = 0; e < n[1 + k]; ++e)
      for (int j = 0; j < nodes; ++j)
        face_nodes.push_back(static_cast<ordinal_t>(node([&] { return name + std::to_string(e + 1); }) - 1));
  }
  // The surface tags name the markers (a .mapbc file, where one exists, maps them to conditions).
  section("boundary tags");
  size_t at = 0;
  for (long long e = 0; e < n[1] + n[2]; ++e) {
    const long long tag = src.integer([&] { return "the tag of boundary face " + std::to_string(e + 1); });
    const ElementType t = e < n[1] ? ElementType::triangle : ElementType::quadrilateral;
    m.add_face(std::to_string(tag), t, face_nodes.data() + at);
    at += static_cast<size_t>(nodes_per_element(t));
  }
  m.types.reserve(reserve(elements));
  m.elem_ptr.reserve(reserve(elements) + 1);
  m.elem_nodes.reserve(reserve(entries));
  for (int t = 0; t < 4; ++t) {
    section(kElementSections[t]);
    for (long long e = 0; e < n[3 + t]; ++e) {
      std::array<long long, 8> v{};
      const auto what = [&] { return std::string(kElementNames[t]) + " " + std::to_string(e + 1); };
      for (int j = 0; j < kElementNodes[t]; ++j) v[j] = node(what) - 1;
      to_vtk_order(t, v);
      m.types.push_back(kElementTypes[t]);
      for (int j = 0; j < kElementNodes[t]; ++j) m.elem_nodes.push_back(static_cast<ordinal_t>(v[j]));
      m.elem_ptr.push_back(static_cast<offset_t>(m.elem_nodes.size()));
    }
  }
  return m;
}

}  // namespace

Mesh read_ugrid(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "cannot open file: it is a directory");
  const Format f = format_of(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file");
  Mesh m;
  if (f.encoding == UgridEncoding::ascii) {
    AsciiSource src(path, in);
    m = parse(src, f);
  } else {
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path, "cannot open file: " + ec.message());
    BinarySource src(path, in, f, size);
    m = parse(src, f);
  }
  try {
    validate(m, "UGRID mesh");
  } catch (const InvalidArgument& e) {
    throw InputError(path, e.what());
  }
  return m;
}

}  // namespace ppsparse::mesh

// AFLR3 UGRID writer (mesh/ugrid_reader.hpp): ASCII or the binary encoding the file name's
// suffix names.
#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/ugrid_reader.hpp>

#include "../io/byte_order.hpp"
#include "ugrid_format.hpp"

namespace ppsparse::mesh {

using namespace ugrid;
using io::host_is_big_endian;
using io::swap_bytes;

void write_ugrid(const std::string& path, const Mesh& m) {
  validate(m, "write_ugrid");
  if (m.dim != 3)
    throw InvalidArgument("write_ugrid: UGRID holds 3-D meshes, this one is " + std::to_string(m.dim) + "-D");
  const Format f = format_of(path);
  std::array<std::vector<ordinal_t>, 4> by_type;
  for (ordinal_t e = 0; e < m.nelements(); ++e) {
    int t = 0;
    while (t < 4 && kElementTypes[t] != m.types[e]) ++t;
    const ordinal_t* v = m.elem_nodes.data() + m.elem_ptr[e];
    std::array<ordinal_t, 8> u{};
    for (int j = 0; j < kElementNodes[t]; ++j) u[j] = v[j];
    if (t == 1) u = {v[1], v[0], v[4], v[2], v[3]};  // VTK -> UGRID pyramid order
    for (int j = 0; j < kElementNodes[t]; ++j) by_type[t].push_back(u[j] + 1);
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("write_ugrid: cannot open '" + path + "' for writing");
  const std::array<long long, 7> n = {m.npoints(),
                                      0,
                                      0,
                                      static_cast<long long>(by_type[0].size() / 4),
                                      static_cast<long long>(by_type[1].size() / 5),
                                      static_cast<long long>(by_type[2].size() / 6),
                                      static_cast<long long>(by_type[3].size() / 8)};
  if (f.encoding == UgridEncoding::ascii) {
    std::ostringstream s;
    s.precision(17);
    for (int i = 0; i < 7; ++i) s << n[i] << (i < 6 ? ' ' : '\n');
    for (ordinal_t p = 0; p < m.npoints(); ++p)
      s << m.coords[3 * p] << ' ' << m.coords[3 * p + 1] << ' ' << m.coords[3 * p + 2] << '\n';
    for (int t = 0; t < 4; ++t)
      for (size_t i = 0; i < by_type[t].size(); ++i)
        s << by_type[t][i] << ((i + 1) % kElementNodes[t] == 0 ? '\n' : ' ');
    out << s.str();
  } else {
    const bool swap = f.big_endian != host_is_big_endian();
    auto put = [&](const void* p, int bytes) {
      unsigned char b[8];
      std::memcpy(b, p, static_cast<size_t>(bytes));
      if (swap) swap_bytes(b, bytes);
      out.write(reinterpret_cast<const char*>(b), bytes);
    };
    auto put_int = [&](long long v) {
      if (f.int_bytes == 8) {
        const std::int64_t x = v;
        put(&x, 8);
      } else {
        const std::int32_t x = static_cast<std::int32_t>(v);
        put(&x, 4);
      }
    };
    auto put_real = [&](double v) {
      if (f.real_bytes == 8) {
        put(&v, 8);
      } else {
        const float x = static_cast<float>(v);
        put(&x, 4);
      }
    };
    const bool fortran = f.encoding == UgridEncoding::fortran_binary;
    auto put_marker = [&](long long bytes) {
      const std::int32_t x = static_cast<std::int32_t>(bytes);
      put(&x, 4);
    };
    if (fortran) put_marker(7LL * f.int_bytes);
    for (long long c : n) put_int(c);
    long long data = static_cast<long long>(m.coords.size()) * f.real_bytes;
    for (const auto& v : by_type) data += static_cast<long long>(v.size()) * f.int_bytes;
    if (fortran) {
      put_marker(7LL * f.int_bytes);
      put_marker(data);
    }
    for (double x : m.coords) put_real(x);
    for (const auto& v : by_type)
      for (ordinal_t id : v) put_int(id);
    if (fortran) put_marker(data);
  }
  if (!out) throw Error("write_ugrid: writing '" + path + "' failed");
}

}  // namespace ppsparse::mesh

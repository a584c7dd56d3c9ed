// Gmsh MSH writer (mesh/gmsh_reader.hpp): MSH 4.1 or 2.2, ASCII or binary.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mesh/gmsh_reader.hpp>

#include "../io/byte_order.hpp"
#include "gmsh_types.hpp"

namespace ppsparse::mesh {
namespace {

using namespace gmsh;
using io::host_is_big_endian;

// ---- writer -------------------------------------------------------------------------------
class GmshWriter {
 public:
  GmshWriter(std::ostream& out, bool binary, bool v41) : out_(out), binary_(binary), v41_(v41) {}
  void text(const std::string& s) { out_ << s; }
  // A count or tag in the encoding's size type.
  void size(long long v) {
    if (!binary_) return word(std::to_string(v));
    if (v41_) {
      const std::uint64_t x = static_cast<std::uint64_t>(v);
      out_.write(reinterpret_cast<const char*>(&x), 8);
    } else {
      integer(v);
    }
  }
  void integer(long long v) {
    if (!binary_) return word(std::to_string(v));
    const std::int32_t x = static_cast<std::int32_t>(v);
    out_.write(reinterpret_cast<const char*>(&x), 4);
  }
  void real(double v) {
    if (!binary_) {
      char b[32];
      std::snprintf(b, sizeof b, "%.17g", v);
      return word(b);
    }
    out_.write(reinterpret_cast<const char*>(&v), 8);
  }
  // "$End<name>": on a line of its own, after binary data too.
  void end_section(const char* name) {
    out_ << (binary_ ? "\n$End" : "$End") << name << '\n';
    first_ = true;
  }
  // Ends a line of ASCII data (nothing in binary).
  void end_line() {
    if (!binary_) out_ << '\n';
    first_ = true;
  }

 private:
  std::ostream& out_;
  bool binary_, v41_, first_ = true;
  void word(const std::string& s) {
    if (!first_) out_ << ' ';
    out_ << s;
    first_ = false;
  }
};

// The markers as physical groups k + 2 of dimension dim - 1 (ASCII in every encoding).
void write_physical_names(GmshWriter& w, const Mesh& m) {
  if (m.marker_names.empty()) return;
  w.text("$PhysicalNames\n" + std::to_string(m.marker_names.size()) + "\n");
  for (size_t k = 0; k < m.marker_names.size(); ++k)
    w.text(std::to_string(m.dim - 1) + " " + std::to_string(k + 2) + " \"" + m.marker_names[k] + "\"\n");
  w.text("$EndPhysicalNames\n");
}

}  // namespace

void write_gmsh(const std::string& path, const Mesh& m, GmshVersion version, bool binary) {
  validate(m, "write_gmsh");
  if (host_is_big_endian() && binary) throw Error("write_gmsh: binary MSH is written on little-endian hosts only");
  const bool v41 = version == GmshVersion::v4_1;
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("write_gmsh: cannot open '" + path + "' for writing");
  GmshWriter w(out, binary, v41);
  const long long n = m.npoints(), ne = m.nelements();
  w.text(std::string("$MeshFormat\n") + (v41 ? "4.1" : "2.2") + (binary ? " 1 8\n" : " 0 8\n"));
  if (binary) w.integer(1);  // the byte-order check
  w.end_section("MeshFormat");
  auto coord = [&](long long p, int d) { return d < m.dim ? m.coords[static_cast<size_t>(p * m.dim + d)] : 0.0; };
  if (v41) {
    // One entity of the mesh's dimension, with its bounding box.
    std::array<double, 6> box = {0, 0, 0, 0, 0, 0};
    for (int d = 0; d < 3; ++d) {
      box[d] = std::numeric_limits<double>::max();
      box[3 + d] = std::numeric_limits<double>::lowest();
      for (long long p = 0; p < n; ++p) {
        box[d] = std::min(box[d], coord(p, d));
        box[3 + d] = std::max(box[3 + d], coord(p, d));
      }
    }
    write_physical_names(w, m);
    w.text("$Entities\n");
    const long long markers = static_cast<long long>(m.marker_names.size());
    for (int d = 0; d < 4; ++d) w.size(d == m.dim ? 1 : d == m.dim - 1 ? markers : 0);
    w.end_line();
    // One entity per marker (tag k + 1, physical group k + 2), then the volume (tag 1). Their
    // boxes are the mesh's: a reader needs none tighter.
    for (long long k = 0; k < markers; ++k) {
      w.integer(k + 1);
      for (double b : box) w.real(b);
      w.size(1);
      w.integer(k + 2);
      w.size(0);  // bounding entities
      w.end_line();
    }
    w.integer(1);
    for (double b : box) w.real(b);
    w.size(0);  // physical tags
    w.size(0);  // bounding entities
    w.end_line();
    w.end_section("Entities");
    w.text("$Nodes\n");
    for (long long v : {1LL, n, 1LL, n}) w.size(v);
    w.end_line();
    w.integer(m.dim);
    w.integer(1);
    w.integer(0);
    w.size(n);
    w.end_line();
    for (long long p = 0; p < n; ++p) {
      w.size(p + 1);
      w.end_line();
    }
    for (long long p = 0; p < n; ++p) {
      for (int d = 0; d < 3; ++d) w.real(coord(p, d));
      w.end_line();
    }
    w.end_section("Nodes");
    w.text("$Elements\n");
    std::vector<ElementType> present;
    for (ElementType t : m.types)
      if (std::find(present.begin(), present.end(), t) == present.end()) present.push_back(t);
    // Blocks of boundary faces, by marker and type, then of volume elements by type.
    std::vector<std::pair<int, ElementType>> face_blocks;
    for (ordinal_t f = 0; f < m.nfaces(); ++f) {
      const std::pair<int, ElementType> b{m.face_marker[f], m.face_types[f]};
      if (std::find(face_blocks.begin(), face_blocks.end(), b) == face_blocks.end()) face_blocks.push_back(b);
    }
    const long long total = ne + m.nfaces();
    for (long long v : {static_cast<long long>(present.size() + face_blocks.size()), total, 1LL, total}) w.size(v);
    w.end_line();
    long long tag = 0;
    for (const auto& [marker, t] : face_blocks) {
      w.integer(m.dim - 1);
      w.integer(marker + 1);
      w.integer(gmsh_id(t));
      long long count = 0;
      for (ordinal_t f = 0; f < m.nfaces(); ++f) count += m.face_marker[f] == marker && m.face_types[f] == t;
      w.size(count);
      w.end_line();
      for (ordinal_t f = 0; f < m.nfaces(); ++f) {
        if (m.face_marker[f] != marker || m.face_types[f] != t) continue;
        w.size(++tag);
        for (offset_t k = m.face_ptr[f]; k < m.face_ptr[f + 1]; ++k) w.size(m.face_nodes[k] + 1);
        w.end_line();
      }
    }
    for (ElementType t : present) {
      w.integer(m.dim);
      w.integer(1);
      w.integer(gmsh_id(t));
      w.size(std::count(m.types.begin(), m.types.end(), t));
      w.end_line();
      for (long long e = 0; e < ne; ++e) {
        if (m.types[e] != t) continue;
        w.size(++tag);
        for (offset_t k = m.elem_ptr[e]; k < m.elem_ptr[e + 1]; ++k) w.size(m.elem_nodes[k] + 1);
        w.end_line();
      }
    }
    w.end_section("Elements");
  } else {
    write_physical_names(w, m);
    w.text("$Nodes\n" + std::to_string(n) + "\n");
    for (long long p = 0; p < n; ++p) {
      w.integer(p + 1);
      for (int d = 0; d < 3; ++d) w.real(coord(p, d));
      w.end_line();
    }
    w.end_section("Nodes");
    w.text("$Elements\n" + std::to_string(ne + m.nfaces()) + "\n");
    // Boundary faces first, tagged with their marker's physical group (k + 2) and entity (k + 1).
    for (ordinal_t f = 0; f < m.nfaces(); ++f) {
      const long long group = m.face_marker[f] + 2;
      if (binary) {
        for (long long v : {static_cast<long long>(gmsh_id(m.face_types[f])), 1LL, 2LL}) w.integer(v);
      }
      w.integer(ne + f + 1);
      if (!binary) {
        w.integer(gmsh_id(m.face_types[f]));
        w.integer(2);
      }
      w.integer(group);
      w.integer(group - 1);
      for (offset_t k = m.face_ptr[f]; k < m.face_ptr[f + 1]; ++k) w.integer(m.face_nodes[k] + 1);
      w.end_line();
    }
    // Tags: the physical and the elementary entity (both 1). Binary: one block per element.
    for (long long e = 0; e < ne; ++e) {
      if (binary) {
        for (long long v : {static_cast<long long>(gmsh_id(m.types[e])), 1LL, 2LL}) w.integer(v);
      }
      w.integer(e + 1);
      if (!binary) {
        w.integer(gmsh_id(m.types[e]));
        w.integer(2);
      }
      w.integer(1);
      w.integer(1);
      for (offset_t k = m.elem_ptr[e]; k < m.elem_ptr[e + 1]; ++k) w.integer(m.elem_nodes[k] + 1);
      w.end_line();
    }
    w.end_section("Elements");
  }
  if (!out) throw Error("write_gmsh: writing '" + path + "' failed");
}

}  // namespace ppsparse::mesh

#pragma once
// The Gmsh MSH reader's parser (gmsh_reader.cpp: the file, its tokens and numbers;
// gmsh_sections.cpp: the sections and the assembled mesh), private to the library.
#include <ppsparse/mesh/gmsh_reader.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include <ppsparse/error.hpp>

#include "../io/byte_order.hpp"
#include "../io/text_scan.hpp"
#include "gmsh_types.hpp"

namespace ppsparse::mesh::gmsh_detail {

using namespace gmsh;

// Why an element type is refused: Gmsh's higher-order types by name, others as unknown.
inline std::string refused_type(long long id) {
  static const std::pair<int, const char*> higher[] = {
      {8, "3-node line"},         {9, "6-node triangle"}, {10, "9-node quadrangle"}, {11, "10-node tetrahedron"},
      {12, "27-node hexahedron"}, {13, "18-node prism"},  {14, "14-node pyramid"},   {16, "8-node quadrangle"},
      {17, "20-node hexahedron"}, {18, "15-node prism"},  {19, "13-node pyramid"}};
  std::string what = "element type " + std::to_string(id);
  bool known = false;
  for (const auto& [k, name] : higher)
    if (k == id) {
      what += std::string(" (") + name + ", higher order)";
      known = true;
    }
  if (!known) what += id > 19 && id < 200 ? " (higher order or polyhedral)" : " (not a Gmsh element type)";
  return what + " is not read: ppsparse reads linear elements (Gmsh types 1-7 and 15)";
}

using io::host_is_big_endian;
using io::swap_bytes;

// The input through a large buffer: get/peek/read at memory speed, and the offset for the
// byte checks of binary sections.
class ByteStream {
 public:
  explicit ByteStream(std::istream& in) : in_(in), buf_(1 << 16) {}
  int get() {
    if (pos_ == end_ && !fill()) return EOF;
    ++offset_;
    return static_cast<unsigned char>(buf_[pos_++]);
  }
  int peek() {
    if (pos_ == end_ && !fill()) return EOF;
    return static_cast<unsigned char>(buf_[pos_]);
  }
  bool read(unsigned char* out, size_t n) {
    while (n > 0) {
      if (pos_ == end_ && !fill()) return false;
      const size_t k = std::min(n, end_ - pos_);
      std::memcpy(out, buf_.data() + pos_, k);
      pos_ += k;
      offset_ += k;
      out += k;
      n -= k;
    }
    return true;
  }
  std::uint64_t offset() const { return offset_; }

 private:
  std::istream& in_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  std::uint64_t offset_ = 0;
  bool fill() {
    in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    end_ = static_cast<size_t>(in_.gcount());
    pos_ = 0;
    return end_ > 0;
  }
};

// Gmsh node tags (positive, any order, possibly sparse) to point numbers in file order.
class TagMap {
 public:
  // The first repeated tag, or 0 when every tag is distinct.
  long long build(const std::vector<long long>& tags) {
    if (tags.empty()) return 0;
    const auto [lo, hi] = std::minmax_element(tags.begin(), tags.end());
    min_ = *lo;
    const long long n = static_cast<long long>(tags.size());
    if (*hi - *lo < 2 * n + 1024) {
      dense_.assign(static_cast<size_t>(*hi - *lo + 1), -1);
      for (long long i = 0; i < n; ++i) {
        ordinal_t& slot = dense_[static_cast<size_t>(tags[i] - min_)];
        if (slot >= 0) return tags[i];
        slot = static_cast<ordinal_t>(i);
      }
      return 0;
    }
    sparse_.reserve(tags.size());
    for (long long i = 0; i < n; ++i) sparse_.emplace_back(tags[i], static_cast<ordinal_t>(i));
    std::sort(sparse_.begin(), sparse_.end());
    for (size_t i = 1; i < sparse_.size(); ++i)
      if (sparse_[i].first == sparse_[i - 1].first) return sparse_[i].first;
    return 0;
  }
  // The point of a tag, -1 when no node has it.
  ordinal_t find(long long tag) const {
    if (!dense_.empty()) {
      if (tag < min_ || tag - min_ >= static_cast<long long>(dense_.size())) return -1;
      return dense_[static_cast<size_t>(tag - min_)];
    }
    const auto it = std::lower_bound(sparse_.begin(), sparse_.end(), std::make_pair(tag, ordinal_t{-1}));
    return it != sparse_.end() && it->first == tag ? it->second : -1;
  }

 private:
  long long min_ = 0;
  std::vector<ordinal_t> dense_;
  std::vector<std::pair<long long, ordinal_t>> sparse_;
};

// Elements of one dimension, as the Mesh holds them.
struct Elements {
  std::vector<ElementType> types;
  std::vector<offset_t> ptr{0};
  std::vector<ordinal_t> nodes;
  // Where each element comes from (physical group, 0 if none; geometric entity), for the
  // boundary faces' marker names.
  std::vector<std::pair<long long, long long>> origin;
};

class GmshParser {
 public:
  GmshParser(const std::string& path, std::istream& in, std::uint64_t size) : path_(path), in_(in), size_(size) {}

  Mesh parse();

 private:
  const std::string& path_;
  ByteStream in_;
  std::uint64_t size_;
  long long line_ = 1, token_line_ = 1;  // the line read, the line of the last token
  bool binary_ = false, v41_ = false, swap_ = false;
  std::string section_;
  // Nodes in file order: coordinates (3 per node) and their tags, then the tag map.
  std::vector<double> xyz_;
  std::vector<long long> tags_;
  TagMap map_;
  std::array<Elements, 4> by_dim_;  // 1-D to 3-D elements kept (the lower ones as boundary faces)
  std::map<std::pair<long long, long long>, std::string> physical_names_;  // (dim, tag) -> name
  std::map<std::pair<long long, long long>, long long> entity_physical_;   // (dim, entity) -> group

  [[noreturn]] void fail(const std::string& reason) const;

  // ---- ASCII tokens -------------------------------------------------------------------------
  // Skips white space; false at the end of the file.
  bool skip_space();
  std::string token(const char* what);
  static std::string printable(std::string s);
  long long ascii_integer(const char* what);
  double ascii_real(const char* what);
  // The end of the current line: only white space may remain on it.
  void rest_of_line();
  void expect_end(const std::string& name);
  // Skips to the line "$End<name>", counting lines.
  void skip_section(const std::string& name);

  // ---- binary numbers -----------------------------------------------------------------------
  template <class T>
  T binary(const char* what) {
    unsigned char b[sizeof(T)];
    if (!in_.read(b, sizeof(T))) fail(std::string("the file ends before ") + what);
    if (swap_) swap_bytes(b, static_cast<int>(sizeof(T)));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  // Whether `bytes` more bytes are in the file; checked before a block is read.
  void check_fits(long double bytes) const;

  // ---- numbers in the file's encoding -------------------------------------------------------
  // A count or tag: 4.1 binary size_t, 2.2 binary int, ASCII text.
  long long size_value(const char* what);
  long long int_value(const char* what);
  double real_value(const char* what);
  // A count: in the encoding's size type, or as text (`text`: 2.2 gives its section counts so
  // in binary files too).
  long long count(const char* what, long long limit, bool text = false);

  // ---- sections -----------------------------------------------------------------------------
  void read_format();

  void add_node(long long tag);
  void finish_nodes();
  // Binary counts have been checked against the file's size, so the arrays are reserved whole
  // (memory is then the result's); ASCII counts are not trusted that far.
  void reserve_nodes(long long n);

  void nodes_v41();

  void nodes_v22();
  // One element of type t: its node tags, checked and kept by dimension.
  void add_element(const GmshType& t, long long tag, long long physical, long long entity);
  // Room for k more elements of type t (a binary block, its bytes checked): exact when the
  // arrays must grow, with at least a quarter more so that many small blocks stay linear.
  void reserve_elements(const GmshType& t, long long k);
  const GmshType& element_type(long long id);

  void elements_v41();

  void elements_v22();

  // $PhysicalNames (text in every encoding): count, then lines `dim tag "name"`.
  void physical_names();
  // $Entities (4.1): each entity's physical groups (the first one names its faces).
  void entities();
  // A boundary face's marker: its physical group's name, else "physical N", else its geometric
  // entity, "curve N" or "surface N".
  std::string marker_name(int dim, const std::pair<long long, long long>& origin) const;

  Mesh assemble();
};

}  // namespace ppsparse::mesh::gmsh_detail

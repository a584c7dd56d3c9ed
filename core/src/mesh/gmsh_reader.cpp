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

namespace ppsparse::mesh {
namespace {

using namespace gmsh;

// Why an element type is refused: Gmsh's higher-order types by name, others as unknown.
std::string refused_type(long long id) {
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

  Mesh parse() {
    section_ = "$MeshFormat";
    const std::string first = token("the $MeshFormat line");
    if (first != "$MeshFormat") fail("not a Gmsh MSH file: it starts with '" + first + "', not $MeshFormat");
    read_format();
    bool have_nodes = false, have_elements = false;
    for (;;) {
      section_ = "(between sections)";
      if (!skip_space()) break;
      const std::string t = token("a section");
      if (t.size() < 2 || t[0] != '$') fail("'" + t + "' between sections, where a $Section line belongs");
      const std::string name = t.substr(1);
      section_ = t;
      if (name == "Nodes") {
        if (have_nodes) fail("a second $Nodes section");
        have_nodes = true;
        rest_of_line();
        v41_ ? nodes_v41() : nodes_v22();
        expect_end("Nodes");
      } else if (name == "Elements") {
        if (have_elements) fail("a second $Elements section");
        if (!have_nodes) fail("$Elements before $Nodes");
        have_elements = true;
        rest_of_line();
        v41_ ? elements_v41() : elements_v22();
        expect_end("Elements");
      } else if (name == "PhysicalNames") {
        rest_of_line();
        physical_names();
        expect_end("PhysicalNames");
      } else if (name == "Entities" && v41_) {
        rest_of_line();
        entities();
        expect_end("Entities");
      } else if (name == "MeshFormat") {
        fail("a second $MeshFormat section");
      } else if (name.compare(0, 3, "End") == 0) {
        fail("'" + t + "' without its section");
      } else {
        skip_section(name);
      }
    }
    section_ = "(end of file)";
    line_ = token_line_;
    if (!have_nodes) fail("no $Nodes section");
    if (!have_elements) fail("no $Elements section");
    return assemble();
  }

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

  [[noreturn]] void fail(const std::string& reason) const {
    if (binary_) throw InputError(path_, "section " + section_ + ": " + reason);
    throw InputError(path_, line_, reason);
  }

  // ---- ASCII tokens -------------------------------------------------------------------------
  // Skips white space; false at the end of the file.
  bool skip_space() {
    int c;
    while ((c = in_.peek()) != EOF && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v')) {
      if (c == '\n') ++line_;
      in_.get();
    }
    return c != EOF;
  }
  std::string token(const char* what) {
    if (!skip_space()) fail(std::string("the file ends before ") + what);
    token_line_ = line_;
    std::string t;
    int c;
    while ((c = in_.peek()) != EOF && !std::isspace(c)) {
      t.push_back(static_cast<char>(in_.get()));
      if (t.size() > 64) fail(std::string(what) + ": '" + printable(t.substr(0, 32)) + "...' is too long");
    }
    return t;
  }
  static std::string printable(std::string s) {
    for (char& c : s)
      if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
    return s;
  }
  long long ascii_integer(const char* what) {
    const std::string t = token(what);
    long long v = 0;
    const text::Parsed r = text::parse_integer(t, v);
    if (r == text::Parsed::out_of_range) fail(std::string(what) + ": '" + printable(t) + "' is out of range");
    if (r != text::Parsed::ok) fail(std::string(what) + ": '" + printable(t) + "' is not an integer");
    return v;
  }
  double ascii_real(const char* what) {
    const std::string t = token(what);
    double v = 0;
    const text::Parsed r = text::parse_real(t, v);
    if (r == text::Parsed::not_a_number) fail(std::string(what) + ": '" + printable(t) + "' is not a number");
    if (r != text::Parsed::ok || !std::isfinite(v))
      fail(std::string(what) + ": '" + printable(t) + "' is not a finite number");
    return v;
  }
  // The end of the current line: only white space may remain on it.
  void rest_of_line() {
    int c;
    while ((c = in_.get()) != EOF && c != '\n')
      if (c != ' ' && c != '\t' && c != '\r')
        fail("unexpected '" + printable(std::string(1, static_cast<char>(c))) + "' at the end of a line");
    if (c == '\n') ++line_;
  }
  void expect_end(const std::string& name) {
    const std::string t = token(("$End" + name).c_str());
    if (t != "$End" + name)
      fail("'" + printable(t) + "' where $End" + name + " belongs (more data than the counts say?)");
  }
  // Skips to the line "$End<name>", counting lines.
  void skip_section(const std::string& name) {
    const std::string marker = "$End" + name;
    const long long start = line_;
    size_t matched = 0;
    int prev = '\n', c;
    while ((c = in_.get()) != EOF) {
      if (matched == 0) {
        if (c == '$' && prev == '\n') matched = 1;
      } else if (c == marker[matched]) {
        if (++matched == marker.size()) {
          const int next = in_.peek();
          if (next == EOF || std::isspace(next)) return;
          matched = 0;
        }
      } else {
        matched = 0;
      }
      if (c == '\n') ++line_;
      prev = c;
    }
    line_ = start;
    fail("the file ends inside $" + name + " (no " + marker + " line)");
  }

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
  void check_fits(long double bytes) const {
    const std::uint64_t left = size_ - std::min(size_, in_.offset());
    if (bytes > static_cast<long double>(left))
      fail("the counts need " + std::to_string(static_cast<unsigned long long>(std::min<long double>(bytes, 1e19L))) +
           " more bytes, the file has " + std::to_string(left) + " (a truncated file?)");
  }

  // ---- numbers in the file's encoding -------------------------------------------------------
  // A count or tag: 4.1 binary size_t, 2.2 binary int, ASCII text.
  long long size_value(const char* what) {
    if (!binary_) return ascii_integer(what);
    if (v41_) {
      const std::uint64_t v = binary<std::uint64_t>(what);
      if (v > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()))
        fail(std::string(what) + " " + std::to_string(v) + " is out of range");
      return static_cast<long long>(v);
    }
    return binary<std::int32_t>(what);
  }
  long long int_value(const char* what) { return binary_ ? binary<std::int32_t>(what) : ascii_integer(what); }
  double real_value(const char* what) {
    if (!binary_) return ascii_real(what);
    const double v = binary<double>(what);
    if (!std::isfinite(v)) fail(std::string(what) + " is not a finite number");
    return v;
  }
  // A count: in the encoding's size type, or as text (`text`: 2.2 gives its section counts so
  // in binary files too).
  long long count(const char* what, long long limit, bool text = false) {
    const long long n = text ? ascii_integer(what) : size_value(what);
    if (n < 0) fail(std::string(what) + " is negative (" + std::to_string(n) + ")");
    if (n > limit) fail(std::string(what) + " " + std::to_string(n) + " exceeds " + std::to_string(limit));
    return n;
  }

  // ---- sections -----------------------------------------------------------------------------
  void read_format() {
    const std::string version = token("the MSH version");
    if (version == "4.1") {
      v41_ = true;
    } else if (version != "2.2") {
      fail("MSH version '" + printable(version) +
           "' is not read: ppsparse reads MSH 4.1 and 2.2 (gmsh -format msh41 or -format msh22)");
    }
    const long long file_type = ascii_integer("the file type");
    if (file_type != 0 && file_type != 1)
      fail("file type " + std::to_string(file_type) + ": 0 (ASCII) or 1 (binary) expected");
    const long long data_size = ascii_integer("the data size");
    if (data_size != 8)
      fail("data size " + std::to_string(data_size) + ": ppsparse reads files whose size_t is 8 bytes");
    rest_of_line();
    if (file_type == 1) {
      binary_ = true;
      const std::int32_t one = binary<std::int32_t>("the byte-order check (the int 1)");
      if (one != 1) {
        std::int32_t swapped = one;
        unsigned char* b = reinterpret_cast<unsigned char*>(&swapped);
        swap_bytes(b, 4);
        if (swapped != 1) fail("the byte-order check reads " + std::to_string(one) + ", not 1: not a binary MSH file");
        swap_ = true;
      }
    }
    expect_end("MeshFormat");
  }

  void add_node(long long tag) {
    if (tag <= 0) fail("node tag " + std::to_string(tag) + " is not positive");
    tags_.push_back(tag);
  }
  void finish_nodes() {
    if (const long long repeated = map_.build(tags_)) fail("node tag " + std::to_string(repeated) + " appears twice");
    tags_ = {};
  }
  // Binary counts have been checked against the file's size, so the arrays are reserved whole
  // (memory is then the result's); ASCII counts are not trusted that far.
  void reserve_nodes(long long n) {
    const size_t r = static_cast<size_t>(binary_ ? n : std::min<long long>(n, 1 << 20));
    xyz_.reserve(3 * r);
    tags_.reserve(r);
  }

  void nodes_v41() {
    const long long blocks = count("the number of node blocks", std::numeric_limits<long long>::max());
    const long long n = count("the number of nodes", max_ordinal);
    const long long min_tag = size_value("the smallest node tag");
    const long long max_tag = size_value("the largest node tag");
    if (n > 0 && (min_tag < 1 || max_tag < min_tag))
      fail("node tags [" + std::to_string(min_tag) + ", " + std::to_string(max_tag) + "] are not a positive range");
    if (binary_) check_fits(static_cast<long double>(blocks) * 20 + static_cast<long double>(n) * 32);
    reserve_nodes(n);
    long long read = 0;
    for (long long b = 0; b < blocks; ++b) {
      const long long dim = int_value("a node block's entity dimension");
      int_value("a node block's entity tag");
      const long long parametric = int_value("a node block's parametric flag");
      const long long k = count("a node block's node count", n - read);
      if (dim < 0 || dim > 3) fail("node block " + std::to_string(b + 1) + ": entity dimension " + std::to_string(dim));
      if (parametric != 0 && parametric != 1)
        fail("node block " + std::to_string(b + 1) + ": parametric flag " + std::to_string(parametric));
      const long long extra = parametric ? dim : 0;
      if (binary_) check_fits(static_cast<long double>(k) * (8 + 8 * (3 + extra)));
      for (long long i = 0; i < k; ++i) {
        const long long tag = size_value("a node tag");
        if (tag < min_tag || tag > max_tag)
          fail("node tag " + std::to_string(tag) + " is outside the header's range [" + std::to_string(min_tag) + ", " +
               std::to_string(max_tag) + "]");
        add_node(tag);
      }
      for (long long i = 0; i < k; ++i) {
        for (int d = 0; d < 3; ++d) xyz_.push_back(real_value("a node coordinate"));
        for (long long d = 0; d < extra; ++d) real_value("a node's parametric coordinate");
      }
      read += k;
    }
    if (read != n)
      fail("the node blocks hold " + std::to_string(read) + " nodes, the header says " + std::to_string(n));
    finish_nodes();
  }

  void nodes_v22() {
    const long long n = count("the number of nodes", max_ordinal, true);
    if (binary_) {
      rest_of_line();
      check_fits(static_cast<long double>(n) * 28);
    }
    reserve_nodes(n);
    for (long long i = 0; i < n; ++i) {
      add_node(int_value("a node tag"));
      for (int d = 0; d < 3; ++d) xyz_.push_back(real_value("a node coordinate"));
    }
    finish_nodes();
  }
  // One element of type t: its node tags, checked and kept by dimension.
  void add_element(const GmshType& t, long long tag, long long physical, long long entity) {
    std::array<ordinal_t, 8> v{};
    for (int j = 0; j < t.nodes; ++j) {
      const long long node = size_value("an element's node tag");
      const ordinal_t p = map_.find(node);
      if (p < 0)
        fail("element " + std::to_string(tag) + " refers to node " + std::to_string(node) +
             ", which $Nodes does not list");
      v[static_cast<size_t>(j)] = p;
    }
    if (t.dim < 1) return;
    Elements& e = by_dim_[static_cast<size_t>(t.dim)];
    if (static_cast<long long>(e.types.size()) >= max_ordinal) fail("more than 2^31 - 1 elements");
    e.origin.emplace_back(physical, entity);
    e.types.push_back(t.type);
    e.nodes.insert(e.nodes.end(), v.begin(), v.begin() + t.nodes);
    e.ptr.push_back(static_cast<offset_t>(e.nodes.size()));
  }
  // Room for k more elements of type t (a binary block, its bytes checked): exact when the
  // arrays must grow, with at least a quarter more so that many small blocks stay linear.
  void reserve_elements(const GmshType& t, long long k) {
    if (!binary_ || t.dim < 1) return;
    Elements& e = by_dim_[static_cast<size_t>(t.dim)];
    const auto grow = [](auto& v, size_t need) {
      if (v.capacity() < need) v.reserve(std::max(need, v.capacity() + v.capacity() / 4));
    };
    grow(e.types, e.types.size() + static_cast<size_t>(k));
    grow(e.ptr, e.ptr.size() + static_cast<size_t>(k));
    grow(e.nodes, e.nodes.size() + static_cast<size_t>(k) * static_cast<size_t>(t.nodes));
  }
  const GmshType& element_type(long long id) {
    const GmshType* t = linear_type(id);
    if (!t) fail(refused_type(id));
    return *t;
  }

  void elements_v41() {
    const long long blocks = count("the number of element blocks", std::numeric_limits<long long>::max());
    const long long n = count("the number of elements", std::numeric_limits<long long>::max());
    size_value("the smallest element tag");
    size_value("the largest element tag");
    if (binary_) check_fits(static_cast<long double>(blocks) * 20 + static_cast<long double>(n) * 16);
    long long read = 0;
    for (long long b = 0; b < blocks; ++b) {
      const long long dim = int_value("an element block's entity dimension");
      const long long entity = int_value("an element block's entity tag");
      const auto group = entity_physical_.find({dim, entity});
      const long long physical = group == entity_physical_.end() ? 0 : group->second;
      const GmshType& t = element_type(int_value("an element block's element type"));
      const long long k = count("an element block's element count", n - read);
      if (t.dim != dim)
        fail("element block " + std::to_string(b + 1) + ": element type " + std::to_string(t.id) + " has dimension " +
             std::to_string(t.dim) + ", its entity " + std::to_string(dim));
      if (binary_) check_fits(static_cast<long double>(k) * 8 * (1 + t.nodes));
      reserve_elements(t, k);
      for (long long i = 0; i < k; ++i) add_element(t, size_value("an element tag"), physical, entity);
      read += k;
    }
    if (read != n)
      fail("the element blocks hold " + std::to_string(read) + " elements, the header says " + std::to_string(n));
  }

  void elements_v22() {
    const long long n = count("the number of elements", max_ordinal, true);
    if (!binary_) {
      for (long long i = 0; i < n; ++i) {
        const long long tag = ascii_integer("an element tag");
        const GmshType& t = element_type(ascii_integer("an element type"));
        const long long ntags = ascii_integer("an element's number of tags");
        if (ntags < 0 || ntags > 1000) fail("element " + std::to_string(tag) + ": " + std::to_string(ntags) + " tags");
        long long tags[2] = {0, 0};  // physical group, geometric entity
        for (long long j = 0; j < ntags; ++j) {
          const long long v = ascii_integer("an element's tag");
          if (j < 2) tags[j] = v;
        }
        add_element(t, tag, tags[0], tags[1]);
      }
      return;
    }
    rest_of_line();
    for (long long read = 0; read < n;) {
      const GmshType& t = element_type(binary<std::int32_t>("an element block's type"));
      const long long k = binary<std::int32_t>("an element block's element count");
      const long long ntags = binary<std::int32_t>("an element block's number of tags");
      if (k < 1 || k > n - read)
        fail("an element block of " + std::to_string(k) + " elements, with " + std::to_string(n - read) +
             " left to read");
      if (ntags < 0 || ntags > 1000) fail("an element block with " + std::to_string(ntags) + " tags per element");
      check_fits(static_cast<long double>(k) * 4 * (1 + ntags + t.nodes));
      reserve_elements(t, k);
      for (long long i = 0; i < k; ++i) {
        const long long tag = binary<std::int32_t>("an element tag");
        long long tags[2] = {0, 0};
        for (long long j = 0; j < ntags; ++j) {
          const long long v = binary<std::int32_t>("an element's tag");
          if (j < 2) tags[j] = v;
        }
        add_element(t, tag, tags[0], tags[1]);
      }
      read += k;
    }
  }

  // $PhysicalNames (text in every encoding): count, then lines `dim tag "name"`.
  void physical_names() {
    const long long n = count("the number of physical names", 1 << 24, true);
    for (long long i = 0; i < n; ++i) {
      const long long dim = ascii_integer("a physical group's dimension");
      const long long tag = ascii_integer("a physical group's tag");
      if (dim < 0 || dim > 3) fail("physical group " + std::to_string(tag) + ": dimension " + std::to_string(dim));
      if (!skip_space() || in_.peek() != '"') fail("physical group " + std::to_string(tag) + ": no quoted name");
      in_.get();
      std::string name;
      int c;
      while ((c = in_.get()) != EOF && c != '"' && c != '\n') {
        name.push_back(static_cast<char>(c));
        if (name.size() > 256) fail("physical group " + std::to_string(tag) + ": a name of over 256 characters");
      }
      if (c != '"') fail("physical group " + std::to_string(tag) + ": the name's closing quote is missing");
      physical_names_[{dim, tag}] = printable(name);
    }
  }
  // $Entities (4.1): each entity's physical groups (the first one names its faces).
  void entities() {
    long long n[4];
    for (long long& k : n) k = count("an entity count", max_ordinal);
    for (int dim = 0; dim < 4; ++dim)
      for (long long i = 0; i < n[dim]; ++i) {
        const long long tag = int_value("an entity tag");
        for (int b = 0; b < (dim == 0 ? 3 : 6); ++b) real_value("an entity's bounding box");
        const long long groups = count("an entity's number of physical groups", 1 << 20);
        for (long long g = 0; g < groups; ++g) {
          const long long p = int_value("an entity's physical group");
          if (g == 0) entity_physical_[{dim, tag}] = p;
        }
        if (dim == 0) continue;
        const long long bounding = count("an entity's number of bounding entities", max_ordinal);
        for (long long b = 0; b < bounding; ++b) int_value("a bounding entity");
      }
  }
  // A boundary face's marker: its physical group's name, else "physical N", else its geometric
  // entity, "curve N" or "surface N".
  std::string marker_name(int dim, const std::pair<long long, long long>& origin) const {
    if (origin.first != 0) {
      const auto it = physical_names_.find({dim, origin.first});
      return it != physical_names_.end() ? it->second : "physical " + std::to_string(origin.first);
    }
    return (dim == 1 ? "curve " : "surface ") + std::to_string(origin.second);
  }

  Mesh assemble() {
    Mesh m;
    m.dim = !by_dim_[3].types.empty() ? 3 : !by_dim_[2].types.empty() ? 2 : 0;
    if (m.dim == 0) fail("no 2-D or 3-D elements (a mesh of lines or points is not read)");
    Elements& f = by_dim_[static_cast<size_t>(m.dim - 1)];
    for (size_t k = 0; k < f.types.size(); ++k)
      m.add_face(marker_name(m.dim - 1, f.origin[k]), f.types[k], f.nodes.data() + f.ptr[k]);
    Elements& e = by_dim_[static_cast<size_t>(m.dim)];
    m.types = std::move(e.types);
    m.elem_ptr = std::move(e.ptr);
    m.elem_nodes = std::move(e.nodes);
    if (m.dim == 3) {
      m.coords = std::move(xyz_);
    } else {
      const size_t n = xyz_.size() / 3;
      for (size_t p = 1; p < n; ++p)
        if (xyz_[3 * p + 2] != xyz_[2])
          fail("2-D elements, but the nodes are not in one plane z = const (node " + std::to_string(p + 1) +
               " in file order has z = " + std::to_string(xyz_[3 * p + 2]) + ", the first " + std::to_string(xyz_[2]) +
               ")");
      m.coords.resize(2 * n);
      for (size_t p = 0; p < n; ++p) {
        m.coords[2 * p] = xyz_[3 * p];
        m.coords[2 * p + 1] = xyz_[3 * p + 1];
      }
    }
    return m;
  }
};

}  // namespace

Mesh read_gmsh(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "cannot open file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file");
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path, "cannot open file: " + ec.message());
  Mesh m = GmshParser(path, in, size).parse();
  try {
    validate(m, "Gmsh mesh");
  } catch (const InvalidArgument& e) {
    throw InputError(path, e.what());
  }
  return m;
}

}  // namespace ppsparse::mesh

// The Gmsh MSH reader's sections: $MeshFormat, $Nodes and $Elements in MSH 4.1 and 2.2,
// $PhysicalNames and $Entities, and the mesh assembled from them (gmsh_parser.hpp).
#include "gmsh_parser.hpp"

namespace ppsparse::mesh::gmsh_detail {

void GmshParser::read_format() {
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
  if (data_size != 8) fail("data size " + std::to_string(data_size) + ": ppsparse reads files whose size_t is 8 bytes");
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

void GmshParser::add_node(long long tag) {
  if (tag <= 0) fail("node tag " + std::to_string(tag) + " is not positive");
  tags_.push_back(tag);
}

void GmshParser::finish_nodes() {
  if (const long long repeated = map_.build(tags_)) fail("node tag " + std::to_string(repeated) + " appears twice");
  tags_ = {};
}

void GmshParser::reserve_nodes(long long n) {
  const size_t r = static_cast<size_t>(binary_ ? n : std::min<long long>(n, 1 << 20));
  xyz_.reserve(3 * r);
  tags_.reserve(r);
}

void GmshParser::nodes_v41() {
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
  if (read != n) fail("the node blocks hold " + std::to_string(read) + " nodes, the header says " + std::to_string(n));
  finish_nodes();
}

void GmshParser::nodes_v22() {
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

void GmshParser::add_element(const GmshType& t, long long tag, long long physical, long long entity) {
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

void GmshParser::reserve_elements(const GmshType& t, long long k) {
  if (!binary_ || t.dim < 1) return;
  Elements& e = by_dim_[static_cast<size_t>(t.dim)];
  const auto grow = [](auto& v, size_t need) {
    if (v.capacity() < need) v.reserve(std::max(need, v.capacity() + v.capacity() / 4));
  };
  grow(e.types, e.types.size() + static_cast<size_t>(k));
  grow(e.ptr, e.ptr.size() + static_cast<size_t>(k));
  grow(e.nodes, e.nodes.size() + static_cast<size_t>(k) * static_cast<size_t>(t.nodes));
}

const GmshType& GmshParser::element_type(long long id) {
  const GmshType* t = linear_type(id);
  if (!t) fail(refused_type(id));
  return *t;
}

void GmshParser::elements_v41() {
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

void GmshParser::elements_v22() {
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

void GmshParser::physical_names() {
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

void GmshParser::entities() {
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

std::string GmshParser::marker_name(int dim, const std::pair<long long, long long>& origin) const {
  if (origin.first != 0) {
    const auto it = physical_names_.find({dim, origin.first});
    return it != physical_names_.end() ? it->second : "physical " + std::to_string(origin.first);
  }
  return (dim == 1 ? "curve " : "surface ") + std::to_string(origin.second);
}

Mesh GmshParser::assemble() {
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

}  // namespace ppsparse::mesh::gmsh_detail

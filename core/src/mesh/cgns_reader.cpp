#include <ppsparse/mesh/cgns_reader.hpp>

#include <ppsparse/error.hpp>

#include "cgns_common.hpp"

#if PPSPARSE_HAVE_CGNS
#include <cgnslib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <utility>

namespace ppsparse::mesh {
namespace {

using namespace cgns;

// Union-find over the vertices of every zone (zone offsets), for zone connectivity.
class Joins {
 public:
  explicit Joins(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), ordinal_t{0}); }
  ordinal_t root(ordinal_t v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  // The smaller id becomes the root: the point keeps the first zone's coordinates.
  void join(ordinal_t a, ordinal_t b) {
    a = root(a);
    b = root(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<ordinal_t> parent_;
};

class CgnsReader {
 public:
  CgnsReader(const std::string& path, int want_zone) : path_(path), want_zone_(want_zone) {}

  Mesh read() {
    if (want_zone_ < 0)
      throw InputError(path_, "zone " + std::to_string(want_zone_) + " asked: zones are numbered from 1");
    std::error_code ec;
    if (std::filesystem::is_directory(path_, ec)) throw InputError(path_, "cannot open file: it is a directory");
    if (!std::ifstream(path_)) throw InputError(path_, "cannot open file");
    int file_type = 0;
    if (cg_is_cgns(path_.c_str(), &file_type) != CG_OK)
      throw InputError(path_, "cannot open file: not a CGNS file (ADF or HDF5), or a damaged one");
    CgnsFile file(path_, CG_MODE_READ);
    if (!file.open()) fail("cannot open file: " + explained(cg_get_error(), "it"));
    fn_ = file.fn();
    int nbases = 0;
    check(cg_nbases(fn_, &nbases));
    if (nbases < 1) fail("no base (CGNSBase_t): not a mesh");
    if (nbases > 1) fail(std::to_string(nbases) + " bases; ppsparse reads files with one base");
    char name[33] = {};
    int cell_dim = 0, phys_dim = 0;
    check(cg_base_read(fn_, 1, name, &cell_dim, &phys_dim));
    if (cell_dim != 2 && cell_dim != 3)
      fail("base '" + std::string(name) + "' has cell dimension " + std::to_string(cell_dim) +
           "; ppsparse reads 2-D and 3-D meshes");
    if (phys_dim < cell_dim || phys_dim > 3)
      fail("base '" + std::string(name) + "' has physical dimension " + std::to_string(phys_dim) +
           " for cells of dimension " + std::to_string(cell_dim));
    dim_ = cell_dim;
    phys_dim_ = phys_dim;
    int nzones = 0;
    check(cg_nzones(fn_, 1, &nzones));
    if (nzones < 1) fail("base '" + std::string(name) + "' has no zone");
    if (want_zone_ > nzones)
      fail("zone " + std::to_string(want_zone_) + " asked, the file has " + std::to_string(nzones) +
           (nzones == 1 ? " zone" : " zones"));
    const int first = want_zone_ ? want_zone_ : 1, last = want_zone_ ? want_zone_ : nzones;
    for (int z = first; z <= last; ++z) read_zone(z);
    if (want_zone_ == 0 && nzones > 1) join_zones(nzones);
    section_.clear();
    zone_.clear();
    return assemble();
  }

 private:
  const std::string& path_;
  int want_zone_;
  int fn_ = -1, dim_ = 3, phys_dim_ = 3;
  std::string zone_, section_;  // where, for messages
  // Zones read: names, first vertex (offset) and vertex counts.
  std::vector<std::string> zone_names_;
  std::vector<int> zone_ids_;
  std::vector<long long> zone_offset_{0};
  std::vector<double> xyz_;  // 3 per vertex, every zone
  Mesh cells_;               // elements of dimension dim_, in global vertex numbers
  // Elements of dimension dim_ - 1 (the boundary faces) of the zone being read: their element
  // numbers and markers (the section's name, or a ZoneBC's that lists them), then kept in cells_.
  struct Face {
    long long element;
    ElementType type;
    std::array<ordinal_t, 4> nodes;
    std::string marker;
    bool own_section;  // its section holds boundary faces only, and names them
  };
  std::vector<Face> faces_;
  std::optional<Joins> joins_;

  [[noreturn]] void fail(const std::string& reason) const {
    std::string where;
    if (!zone_.empty()) where += zone_;
    if (!section_.empty()) where += (where.empty() ? "" : ", ") + section_;
    throw InputError(path_, where.empty() ? reason : where + ": " + reason);
  }
  // CGNS_VERSION is 1000 * major + 100 * minor + 10 * patch.
  static std::string library_version() {
    return std::to_string(CGNS_VERSION / 1000) + "." + std::to_string(CGNS_VERSION / 100 % 10) + "." +
           std::to_string(CGNS_VERSION / 10 % 10);
  }
  // Messages of CGNS's storage layer (ADF, HDF5) speak of node ids and groups; they are kept,
  // after what they mean for the user.
  static std::string explained(const std::string& raw, const char* what = "this part of the file") {
    const bool storage = raw.find("cgio_") != std::string::npos || raw.find("ADF") != std::string::npos ||
                         raw.find("H5") != std::string::npos;
    if (!storage) return "CGNS: " + raw;
    return std::string("the CGNS library could not read ") + what +
           " (damaged or truncated, or in a layout of another "
           "CGNS version that this CGNS " +
           library_version() + " cannot read); CGNS says: " + raw;
  }
  void check(int rc) const {
    if (rc != CG_OK) fail(explained(cg_get_error()));
  }

  void read_zone(int z) {
    char name[33] = {};
    section_.clear();
    zone_ = "zone " + std::to_string(z);
    CGNS_ENUMT(ZoneType_t) type;
    check(cg_zone_type(fn_, 1, z, &type));
    cgsize_t size[9] = {};
    check(cg_zone_read(fn_, 1, z, name, size));
    zone_ += " ('" + std::string(name) + "')";
    if (type != CGNS_ENUMV(Unstructured)) fail("a structured zone; ppsparse reads unstructured zones");
    const long long nv = size[0];
    if (nv < 1) fail("no vertices");
    if (zone_offset_.back() + nv > max_ordinal) fail("more than 2^31 - 1 vertices in the zones read");
    zone_names_.push_back(name);
    zone_ids_.push_back(z);
    read_coordinates(z, nv);
    int nsections = 0;
    check(cg_nsections(fn_, 1, z, &nsections));
    faces_.clear();
    for (int s = 1; s <= nsections; ++s) read_section(z, s, nv);
    read_boundary_conditions(z);
    for (const Face& f : faces_) cells_.add_face(f.marker, f.type, f.nodes.data());
    zone_offset_.push_back(zone_offset_.back() + nv);
  }

  void read_coordinates(int z, long long nv) {
    int ncoords = 0;
    check(cg_ncoords(fn_, 1, z, &ncoords));
    static const char* names[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
    std::array<bool, 3> present{};
    for (int c = 1; c <= ncoords; ++c) {
      CGNS_ENUMT(DataType_t) type;
      char cname[33] = {};
      check(cg_coord_info(fn_, 1, z, c, &type, cname));
      for (int d = 0; d < 3; ++d) present[d] = present[d] || std::string(cname) == names[d];
    }
    const size_t base = xyz_.size();
    xyz_.resize(base + 3 * static_cast<size_t>(nv), 0.0);
    std::vector<double> values(static_cast<size_t>(nv));
    for (int d = 0; d < phys_dim_; ++d) {
      if (!present[d])
        fail(std::string("no ") + names[d] + " (ppsparse reads Cartesian coordinates of every physical dimension)");
      cgsize_t lo = 1, hi = static_cast<cgsize_t>(nv);
      check(cg_coord_read(fn_, 1, z, names[d], CGNS_ENUMV(RealDouble), &lo, &hi, values.data()));
      for (long long v = 0; v < nv; ++v) {
        if (!std::isfinite(values[v]))
          fail(std::string(names[d]) + " of vertex " + std::to_string(v + 1) + " is not finite");
        xyz_[base + 3 * static_cast<size_t>(v) + d] = values[v];
      }
    }
  }

  void read_section(int z, int s, long long nv) {
    char name[33] = {};
    CGNS_ENUMT(ElementType_t) type;
    cgsize_t start = 0, end = 0;
    int nbndry = 0, parent_flag = 0;
    section_ = "section " + std::to_string(s);
    check(cg_section_read(fn_, 1, z, s, name, &type, &start, &end, &nbndry, &parent_flag));
    section_ += " ('" + std::string(name) + "')";
    const long long count = static_cast<long long>(end) - start + 1;
    if (start < 1 || count < 0) fail("element range [" + std::to_string(start) + ", " + std::to_string(end) + "]");
    cgsize_t data_size = 0;
    check(cg_ElementDataSize(fn_, 1, z, s, &data_size));
    if (data_size < 0) fail("negative connectivity size");
    std::vector<cgsize_t> conn(static_cast<size_t>(data_size));
    const bool mixed = type == CGNS_ENUMV(MIXED);
    const CgnsType* fixed = nullptr;
    if (mixed) {
      // A MIXED connectivity prefixes each element with its type, in every CGNS version, so the
      // element boundaries come from walking it. Files older than CGNS 3.4 have no
      // ElementStartOffset, and CGNS 3.4.0 fails to give it for 64-bit connectivity in read
      // mode: it is not asked for.
      check(cg_poly_elements_read(fn_, 1, z, s, conn.data(), nullptr, nullptr));
    } else {
      fixed = linear_type(type);
      if (!fixed) fail(refused(type));
      if (data_size != count * fixed->nodes)
        fail("connectivity of " + std::to_string(data_size) + " entries for " + std::to_string(count) + " " +
             type_name(type) + " elements");
      check(cg_elements_read(fn_, 1, z, s, conn.data(), nullptr));
    }
    const long long base = zone_offset_.back();
    const size_t first_face = faces_.size();
    const ordinal_t first_cell = cells_.nelements();
    size_t at = 0;
    for (long long e = 0; e < count; ++e) {
      const CgnsType* t = fixed;
      size_t stop = at + (fixed ? static_cast<size_t>(fixed->nodes) : 0);
      if (mixed) {
        if (at >= conn.size())
          fail("MIXED element " + std::to_string(start + e) + ": the connectivity (" + std::to_string(data_size) +
               " entries) ends before it");
        t = linear_type(conn[at]);
        if (!t) fail("MIXED element " + std::to_string(start + e) + ": " + refused(conn[at]));
        ++at;
        stop = at + static_cast<size_t>(t->nodes);
        if (stop > conn.size())
          fail("MIXED element " + std::to_string(start + e) + ": the connectivity (" + std::to_string(data_size) +
               " entries) ends inside this " + type_name(t->cgns));
      }
      const bool kept = t->dim == dim_;
      const bool face = t->dim == dim_ - 1;
      if (face) faces_.push_back({start + e, t->type, {}, name, true});
      if (t->dim > dim_)
        fail("element " + std::to_string(start + e) + " is a " + type_name(t->cgns) + " in a base of cell dimension " +
             std::to_string(dim_));
      for (; at < stop; ++at) {
        const long long v = conn[at];
        if (v < 1 || v > nv)
          fail("element " + std::to_string(start + e) + ": vertex " + std::to_string(v) + " out of range [1, " +
               std::to_string(nv) + "]");
        if (kept) cells_.elem_nodes.push_back(static_cast<ordinal_t>(base + v - 1));
        if (face)
          faces_.back().nodes[at - (stop - static_cast<size_t>(t->nodes))] = static_cast<ordinal_t>(base + v - 1);
      }
      if (kept) {
        if (cells_.nelements() >= max_ordinal) fail("more than 2^31 - 1 cells");
        cells_.types.push_back(t->type);
        cells_.elem_ptr.push_back(static_cast<offset_t>(cells_.elem_nodes.size()));
      }
    }
    if (mixed && at != conn.size())
      fail("the connectivity has " + std::to_string(data_size) + " entries, its " + std::to_string(count) +
           " elements use " + std::to_string(at));
    if (cells_.nelements() > first_cell)
      for (size_t f = first_face; f < faces_.size(); ++f) faces_[f].own_section = false;
  }

  // A face is named by its section when the section holds boundary faces only (as SU2 names
  // them); otherwise by the ZoneBC that lists it: by element (ElementRange/List, or
  // PointRange/List at face or edge centres), or by vertex (the faces all of whose vertices it
  // lists).
  void read_boundary_conditions(int z) {
    int nbocos = 0;
    check(cg_nbocos(fn_, 1, z, &nbocos));
    const long long base = zone_offset_.back();
    for (int b = 1; b <= nbocos; ++b) {
      char name[33] = {};
      CGNS_ENUMT(BCType_t) bctype;
      CGNS_ENUMT(PointSetType_t) ptset;
      CGNS_ENUMT(DataType_t) normal_type;
      CGNS_ENUMT(GridLocation_t) location;
      cgsize_t npnts = 0, normal_size = 0;
      int normal_index[3] = {}, ndataset = 0;
      section_ = "boundary condition " + std::to_string(b);
      check(cg_boco_info(fn_, 1, z, b, name, &bctype, &ptset, &npnts, normal_index, &normal_size, &normal_type,
                         &ndataset));
      check(cg_boco_gridlocation_read(fn_, 1, z, b, &location));
      section_ += " ('" + std::string(name) + "')";
      if (npnts < 0) fail("a negative point count");
      std::vector<cgsize_t> points(static_cast<size_t>(npnts));
      check(cg_boco_read(fn_, 1, z, b, points.data(), nullptr));
      const bool range = ptset == CGNS_ENUMV(PointRange) || ptset == CGNS_ENUMV(ElementRange);
      if (range && npnts != 2) fail("a range of " + std::to_string(npnts) + " values");
      const bool by_vertex =
          location == CGNS_ENUMV(Vertex) && ptset != CGNS_ENUMV(ElementRange) && ptset != CGNS_ENUMV(ElementList);
      auto listed = [&](long long id) {
        if (range) return id >= points[0] && id <= points[1];
        return std::binary_search(points.begin(), points.end(), static_cast<cgsize_t>(id));
      };
      if (!range) std::sort(points.begin(), points.end());
      for (Face& f : faces_) {
        if (f.own_section) continue;
        bool in = true;
        if (by_vertex) {
          for (int i = 0; i < nodes_per_element(f.type); ++i) in = in && listed(f.nodes[i] - base + 1);
        } else {
          in = listed(f.element);
        }
        if (in) f.marker = name;
      }
    }
    section_.clear();
  }

  static std::string refused(long long type) {
    const bool poly = type == CGNS_ENUMV(NGON_n) || type == CGNS_ENUMV(NFACE_n);
    return "element type " + type_name(type) + (poly ? " (polyhedral)" : " (higher order or unknown)") +
           " is not read: ppsparse reads NODE, BAR_2, TRI_3, QUAD_4, TETRA_4, PYRA_5, PENTA_6, HEXA_8 and MIXED "
           "sections of them";
  }

  // Joins matched vertices of the zones' Abutting1to1 vertex connectivity.
  void join_zones(int nzones) {
    joins_.emplace(static_cast<size_t>(zone_offset_.back()));
    double extent = 0;
    for (size_t i = 0; i + 3 <= xyz_.size(); i += 3)
      for (int d = 0; d < 3; ++d) extent = std::max(extent, std::abs(xyz_[i + d]));
    for (int z = 1; z <= nzones; ++z) {
      zone_ = "zone " + std::to_string(z) + " ('" + zone_names_[z - 1] + "')";
      int nconns = 0;
      check(cg_nconns(fn_, 1, z, &nconns));
      for (int c = 1; c <= nconns; ++c) join_connection(z, c, extent);
    }
  }

  void join_connection(int z, int c, double extent) {
    char name[33] = {}, donor[33] = {};
    CGNS_ENUMT(GridLocation_t) location;
    CGNS_ENUMT(GridConnectivityType_t) type;
    CGNS_ENUMT(PointSetType_t) ptset, donor_ptset;
    CGNS_ENUMT(ZoneType_t) donor_zone_type;
    CGNS_ENUMT(DataType_t) donor_data_type;
    cgsize_t npnts = 0, ndonor = 0;
    section_ = "connectivity " + std::to_string(c);
    check(cg_conn_info(fn_, 1, z, c, name, &location, &type, &ptset, &npnts, donor, &donor_zone_type, &donor_ptset,
                       &donor_data_type, &ndonor));
    section_ += " ('" + std::string(name) + "')";
    if (type != CGNS_ENUMV(Abutting1to1) || location != CGNS_ENUMV(Vertex))
      fail("connectivity of type " + enum_name(GridConnectivityTypeName, NofValidGridConnectivityTypes, type) + " at " +
           enum_name(GridLocationName, NofValidGridLocation, location) +
           "; ppsparse joins zones by Abutting1to1 connectivity at vertices (read one zone with --zone)");
    const auto d = std::find(zone_names_.begin(), zone_names_.end(), std::string(donor));
    if (d == zone_names_.end()) fail("donor zone '" + std::string(donor) + "' is not a zone of the base");
    const size_t dz = static_cast<size_t>(d - zone_names_.begin());
    const bool range = ptset == CGNS_ENUMV(PointRange);
    if (!range && ptset != CGNS_ENUMV(PointList))
      fail("point set " + enum_name(PointSetTypeName, NofValidPointSetTypes, ptset) +
           "; PointList or PointRange expected");
    if (range && npnts != 2) fail("a PointRange of " + std::to_string(npnts) + " values");
    if (npnts < 0 || ndonor < 0) fail("negative point counts");
    std::vector<cgsize_t> points(static_cast<size_t>(npnts)), donors(static_cast<size_t>(ndonor));
    check(cg_conn_read(fn_, 1, z, c, points.data(), kSizeType, donors.data()));
    if (range) {
      const cgsize_t lo = points[0], hi = points[1];
      if (hi < lo || static_cast<long long>(hi) - lo + 1 != ndonor)
        fail("PointRange [" + std::to_string(lo) + ", " + std::to_string(hi) + "] for " + std::to_string(ndonor) +
             " donor points");
      points.resize(static_cast<size_t>(ndonor));
      std::iota(points.begin(), points.end(), lo);
    }
    if (points.size() != donors.size())
      fail(std::to_string(points.size()) + " points and " + std::to_string(donors.size()) + " donor points");
    const size_t here = static_cast<size_t>(z - 1);
    const long long nv = zone_offset_[here + 1] - zone_offset_[here], nd = zone_offset_[dz + 1] - zone_offset_[dz];
    for (size_t i = 0; i < points.size(); ++i) {
      if (points[i] < 1 || points[i] > nv || donors[i] < 1 || donors[i] > nd)
        fail("pair " + std::to_string(i + 1) + ": vertex " + std::to_string(points[i]) + " of " + std::to_string(nv) +
             ", donor vertex " + std::to_string(donors[i]) + " of " + std::to_string(nd));
      const ordinal_t a = static_cast<ordinal_t>(zone_offset_[here] + points[i] - 1);
      const ordinal_t b = static_cast<ordinal_t>(zone_offset_[dz] + donors[i] - 1);
      double dist = 0;
      for (int k = 0; k < 3; ++k) dist = std::max(dist, std::abs(xyz_[3 * size_t(a) + k] - xyz_[3 * size_t(b) + k]));
      if (dist > 1e-9 * std::max(extent, 1e-300) + 1e-300)
        fail("pair " + std::to_string(i + 1) + ": vertex " + std::to_string(points[i]) + " and donor vertex " +
             std::to_string(donors[i]) + " of zone '" + zone_names_[dz] + "' are " + std::to_string(dist) + " apart");
      joins_->join(a, b);
    }
  }

  Mesh assemble() {
    const size_t n = xyz_.size() / 3;
    std::vector<ordinal_t> number(n);
    ordinal_t points = 0;
    for (size_t v = 0; v < n; ++v) {
      const ordinal_t r = joins_ ? joins_->root(static_cast<ordinal_t>(v)) : static_cast<ordinal_t>(v);
      number[v] = r == static_cast<ordinal_t>(v) ? points++ : number[r];
    }
    Mesh m = std::move(cells_);
    m.dim = dim_;
    if (m.nelements() == 0) fail("no cells of the base's cell dimension " + std::to_string(dim_));
    for (ordinal_t& v : m.elem_nodes) v = number[v];
    for (ordinal_t& v : m.face_nodes) v = number[v];
    m.coords.assign(static_cast<size_t>(points) * dim_, 0.0);
    for (size_t v = 0; v < n; ++v) {
      if (joins_ && joins_->root(static_cast<ordinal_t>(v)) != static_cast<ordinal_t>(v)) continue;
      if (dim_ == 2 && xyz_[3 * v + 2] != xyz_[2])
        fail("a 2-D base whose vertices are not in one plane z = const (vertex " + std::to_string(v + 1) +
             " has z = " + std::to_string(xyz_[3 * v + 2]) + ", the first " + std::to_string(xyz_[2]) + ")");
      for (int d = 0; d < dim_; ++d) m.coords[static_cast<size_t>(number[v]) * dim_ + d] = xyz_[3 * v + d];
    }
    return m;
  }
};

}  // namespace

bool cgns_available() { return true; }

Mesh read_cgns(const std::string& path, int zone) {
  Mesh m = CgnsReader(path, zone).read();
  try {
    validate(m, "CGNS mesh");
  } catch (const InvalidArgument& e) {
    throw InputError(path, e.what());
  }
  return m;
}

}  // namespace ppsparse::mesh

#else  // no CGNS library in this build

namespace ppsparse::mesh {

bool cgns_available() { return false; }
Mesh read_cgns(const std::string& path, int) { cgns::no_cgns(path); }

}  // namespace ppsparse::mesh

#endif

#include <ppsparse/mesh/su2_reader.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string_view>

#include <ppsparse/error.hpp>

#include "../io/text_scan.hpp"

namespace ppsparse::mesh {
namespace {

using text::Parsed;
using text::quoted;
using text::split;
using text::trim;

// A line "KEY= value": KEY is upper-case letters, digits and '_' (SU2 keywords).
bool split_keyword(std::string_view line, std::string_view& key, std::string_view& value) {
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos) return false;
  key = trim(line.substr(0, eq));
  if (key.empty()) return false;
  for (char c : key)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  value = trim(line.substr(eq + 1));
  return true;
}

std::string type_label(ElementType t) {
  return std::string(element_name(t)) + " (type " + std::to_string(static_cast<int>(t)) + ")";
}

class Su2Parser {
 public:
  Su2Parser(const std::string& path, int zone) : path_(path), want_zone_(zone) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(path, "cannot open file: it is a directory");
    if (zone < 0) throw InputError(path, "zone " + std::to_string(zone) + " asked: zones are numbered from 1");
    lines_ = std::make_unique<text::Lines>(path, "an SU2 file");
  }

  Mesh parse() {
    std::string_view line, key, value;
    while (next(line)) {
      const bool is_key = split_keyword(line, key, value);
      if (is_key && key == "NZONE") {
        read_nzone(value);
        continue;
      }
      if (is_key && key == "IZONE") {
        start_zone(value);
        continue;
      }
      // Once a zone's markers are read, what follows up to the next IZONE= (NPERIODIC=, FFD_
      // boxes, ...) carries nothing we use.
      if (zone_complete()) continue;
      if (!is_key) fail("unexpected line outside any section: " + quoted(line));
      if (key == "NDIME") {
        first_seen(ndime_line_, "NDIME");
        read_ndime(value);
      } else if (key == "NELEM") {
        first_seen(nelem_line_, "NELEM");
        read_elements(value);
      } else if (key == "NPOIN") {
        first_seen(npoin_line_, "NPOIN");
        read_points(value);
      } else if (key == "NMARK") {
        first_seen(nmark_line_, "NMARK");
        read_markers(value);
      }
      // Other keywords before the end of the zone carry nothing we use.
    }
    finish_zone();
    if (nzone_line_ && zones_read_ != nzone_)
      fail_at(nzone_line_, "NZONE= " + std::to_string(nzone_) + " but the file has " + std::to_string(zones_read_) +
                               " zone" + (zones_read_ == 1 ? "" : "s") + " (IZONE= sections)");
    if (want_zone_ > zones_read_)
      throw InputError(path_, "zone " + std::to_string(want_zone_) + " asked, the file has " +
                                  std::to_string(zones_read_) + (zones_read_ == 1 ? " zone" : " zones"));
    return std::move(all_);
  }

 private:
  // The largest node id seen before NPOIN= was known, and where it was.
  struct DeferredMax {
    long long id = -1;
    long long line = 0;
  };

  std::string path_;
  int want_zone_ = 0;  // 0: every zone, joined as disjoint parts; k: zone k only
  std::unique_ptr<text::Lines> lines_;
  long long lineno_ = 0;
  std::vector<std::string_view> tokens_;
  Mesh mesh_;
  long long ndime_line_ = 0, nelem_line_ = 0, npoin_line_ = 0, nmark_line_ = 0;
  long long npoints_ = -1;  // known once NPOIN= is read
  DeferredMax elem_max_, marker_max_;
  // Zones: NZONE= (0 when absent), the zone being read (1-based), those finished, the result.
  long long nzone_ = 0, nzone_line_ = 0;
  int zone_ = 1, zones_read_ = 0;
  long long izone_line_ = 0;
  int file_ndime_ = 0;  // a multizone file's NDIME= before its first IZONE= (file_level_ndime)
  long long file_ndime_line_ = 0;
  Mesh all_;

  [[noreturn]] void fail(const std::string& reason) const { throw InputError(path_, lineno_, reason); }
  [[noreturn]] void fail_at(long long line, const std::string& reason) const { throw InputError(path_, line, reason); }
  [[noreturn]] void fail_at_end(const std::string& reason) const {
    throw InputError(path_, std::max<long long>(lineno_, 1), reason + " (end of file)");
  }

  bool zone_complete() const { return ndime_line_ && nelem_line_ && npoin_line_ && nmark_line_; }

  // Next line with content, comment removed and trimmed; false at end of file.
  bool next(std::string_view& line) {
    std::string_view s;
    while (lines_->next(s)) {
      lineno_ = lines_->line_number();
      const size_t pct = s.find('%');
      if (pct != std::string_view::npos) s = s.substr(0, pct);
      s = trim(s);
      if (!s.empty()) {
        line = s;
        return true;
      }
    }
    return false;
  }

  std::string zone_label() const { return izone_line_ ? " of zone " + std::to_string(zone_) : std::string(); }

  void read_nzone(std::string_view value) {
    if (nzone_line_) fail("duplicate NZONE= (first on line " + std::to_string(nzone_line_) + ")");
    if (izone_line_)
      fail("NZONE= must come before the first zone (IZONE= on line " + std::to_string(izone_line_) + ")");
    // An NDIME= before NZONE= is the file's dimension, as SU2 reads it: see file_level_ndime().
    if (ndime_line_ && (nelem_line_ || npoin_line_ || nmark_line_))
      fail("NZONE= must come before the first zone (a zone's sections start on line " +
           std::to_string(std::min({nelem_line_ ? nelem_line_ : lineno_, npoin_line_ ? npoin_line_ : lineno_,
                                    nmark_line_ ? nmark_line_ : lineno_})) +
           ")");
    nzone_ = single_count("NZONE", value);
    if (nzone_ < 1) fail("NZONE= must be at least 1, got " + std::to_string(nzone_));
    nzone_line_ = lineno_;
  }

  // IZONE= k: zone k begins; the previous one (if any) is complete.
  void start_zone(std::string_view value) {
    const long long k = single_count("IZONE", value);
    if (!izone_line_ && nzone_line_ && ndime_line_ && !nelem_line_ && !npoin_line_ && !nmark_line_) file_level_ndime();
    if (!izone_line_ && ndime_line_)
      fail("IZONE= after a zone that has none (NDIME= on line " + std::to_string(ndime_line_) +
           "): give every zone its IZONE=");
    const int expected = izone_line_ ? zone_ + 1 : 1;
    if (izone_line_) finish_zone();
    if (k != expected)
      fail("IZONE= " + std::to_string(k) + " where zone " + std::to_string(expected) +
           " comes next: zones are numbered 1, 2, ... in order");
    if (nzone_line_ && k > nzone_)
      fail("IZONE= " + std::to_string(k) + " but NZONE= " + std::to_string(nzone_) + " on line " +
           std::to_string(nzone_line_));
    zone_ = static_cast<int>(k);
    izone_line_ = lineno_;
    if (file_ndime_line_) mesh_.dim = file_ndime_;
  }

  // An NDIME= of a multizone file before its first IZONE= (before or after NZONE=): the
  // dimension of every zone that gives none of its own.
  void file_level_ndime() {
    file_ndime_ = mesh_.dim;
    file_ndime_line_ = ndime_line_;
    ndime_line_ = 0;
  }

  // The zone read so far: checked, then appended to all_ (node ids offset) when it is wanted.
  void finish_zone() {
    const std::string z = zone_label();
    if (!ndime_line_ && file_ndime_line_) {
      mesh_.dim = file_ndime_;
    } else if (ndime_line_ && file_ndime_line_ && mesh_.dim != file_ndime_) {
      fail_at(ndime_line_, "NDIME= " + std::to_string(mesh_.dim) + z + " differs from the file's NDIME= " +
                               std::to_string(file_ndime_) + " on line " + std::to_string(file_ndime_line_));
    }
    if (!ndime_line_ && !file_ndime_line_) fail_at_end("missing NDIME= header" + z);
    if (!nelem_line_) fail_at_end("missing NELEM= section" + z);
    if (!npoin_line_) fail_at_end("missing NPOIN= section" + z);
    check_deferred_range(elem_max_);
    check_deferred_range(marker_max_);
    ++zones_read_;
    if (want_zone_ == 0 || want_zone_ == zone_) {
      if (all_.types.empty() && all_.coords.empty()) {
        all_ = std::move(mesh_);
      } else {
        if (mesh_.dim != all_.dim)
          fail_at(ndime_line_, "NDIME= " + std::to_string(mesh_.dim) + z + " differs from the earlier zones' " +
                                   std::to_string(all_.dim));
        const ordinal_t base = all_.npoints();
        if (static_cast<long long>(base) + npoints_ > max_ordinal)
          fail_at(npoin_line_, "the zones hold more than 2^31 - 1 points together");
        all_.coords.insert(all_.coords.end(), mesh_.coords.begin(), mesh_.coords.end());
        all_.types.insert(all_.types.end(), mesh_.types.begin(), mesh_.types.end());
        const offset_t first = static_cast<offset_t>(all_.elem_nodes.size());
        for (ordinal_t v : mesh_.elem_nodes) all_.elem_nodes.push_back(v + base);
        for (size_t e = 1; e < mesh_.elem_ptr.size(); ++e) all_.elem_ptr.push_back(first + mesh_.elem_ptr[e]);
        std::vector<ordinal_t> face(8);
        for (ordinal_t f = 0; f < mesh_.nfaces(); ++f) {
          const ordinal_t* v = mesh_.face_nodes.data() + mesh_.face_ptr[f];
          const int nv = nodes_per_element(mesh_.face_types[f]);
          for (int i = 0; i < nv; ++i) face[i] = v[i] + base;
          all_.add_face(mesh_.marker_names[mesh_.face_marker[f]], mesh_.face_types[f], face.data());
        }
      }
    }
    mesh_ = Mesh();
    ndime_line_ = nelem_line_ = npoin_line_ = nmark_line_ = 0;
    npoints_ = -1;
    elem_max_ = marker_max_ = DeferredMax();
  }

  void first_seen(long long& where, const char* key) {
    if (where)
      fail(std::string("duplicate ") + key + "= section" + zone_label() + " (first on line " + std::to_string(where) +
           (std::string(key) == "NDIME" && !izone_line_ ? "; a multizone file needs IZONE= before each zone)" : ")"));
    where = lineno_;
  }

  void require_ndime(const char* key) {
    if (!ndime_line_ && !file_ndime_line_) fail(std::string(key) + "= comes before NDIME=");
  }

  void read_ndime(std::string_view value) {
    long long d = 0;
    if (text::parse_integer(value, d) != Parsed::ok || (d != 2 && d != 3))
      fail("NDIME must be 2 or 3, got " + quoted(value));
    mesh_.dim = static_cast<int>(d);
  }

  long long parse_count(const char* key, std::string_view token) {
    long long n = 0;
    const Parsed p = text::parse_integer(token, n);
    if (p == Parsed::out_of_range || (p == Parsed::ok && n > max_ordinal))
      fail(std::string(key) + " count " + quoted(token) + " is past the 32-bit limit " + std::to_string(max_ordinal));
    if (p != Parsed::ok || n < 0) fail(std::string(key) + " count " + quoted(token) + " is not a non-negative integer");
    return n;
  }

  // "KEY= n": exactly one count.
  long long single_count(const char* key, std::string_view value) {
    split(value, tokens_);
    if (tokens_.empty()) fail(std::string(key) + "= has no count");
    if (tokens_.size() > 1) fail("trailing garbage " + quoted(tokens_[1]) + " after " + key + " count");
    return parse_count(key, tokens_[0]);
  }

  // Reserve for a count without trusting it: a lying header must not allocate gigabytes.
  static size_t reserve_hint(long long count) { return static_cast<size_t>(std::min<long long>(count, 1 << 20)); }

  // Next data line of a section announced on line `header` with `count` items; what
  // names the items ("elements", "points", ...).
  void next_data_line(std::string_view& line, long long done, long long count, const std::string& what,
                      long long header) {
    const std::string progress = std::to_string(done) + " of " + std::to_string(count) + " " + what +
                                 " announced on line " + std::to_string(header);
    if (!next(line)) fail_at_end("file ends after " + progress);
    std::string_view key, value;
    if (split_keyword(line, key, value)) fail(std::string(key) + "= found after " + progress);
  }

  // The first token from tokens_[first] on that is not the one optional trailing
  // index (a non-negative integer); empty when there is none.
  std::string_view garbage_after(size_t first) const {
    long long index = 0;
    if (text::parse_integer(tokens_[first], index) != Parsed::ok || index < 0) return tokens_[first];
    return first + 1 < tokens_.size() ? tokens_[first + 1] : std::string_view();
  }

  // Parses "type n0 n1 ... [index]" into the mesh (volume) or nowhere (boundary).
  // want_dim is the element dimension this section accepts.
  void parse_element(std::string_view line, int want_dim, bool boundary, DeferredMax& deferred,
                     const std::string* marker = nullptr) {
    split(line, tokens_);
    long long id = 0;
    if (text::parse_integer(tokens_[0], id) != Parsed::ok)
      fail("element type " + quoted(tokens_[0]) + " is not an integer");
    if (!is_element_type_id(id)) fail("unknown element type " + std::to_string(id));
    const auto t = static_cast<ElementType>(id);
    if (element_dimension(t) != want_dim)
      fail(type_label(t) + " is not a " + (boundary ? "boundary" : "volume") + " element of a " +
           std::to_string(mesh_.dim) + "-D mesh");
    const int npe = nodes_per_element(t);
    const int given = static_cast<int>(tokens_.size()) - 1;
    if (given < npe) fail(type_label(t) + " needs " + std::to_string(npe) + " node ids, got " + std::to_string(given));
    if (given > npe) {
      const std::string_view junk = garbage_after(npe + 1);
      if (!junk.empty())
        fail("trailing garbage " + quoted(junk) + " after the " + std::to_string(npe) + " node ids of a " +
             element_name(t));
    }
    ordinal_t nodes[8];
    for (int i = 0; i < npe; ++i) {
      long long v = 0;
      const Parsed p = text::parse_integer(tokens_[i + 1], v);
      if (p == Parsed::not_a_number) fail("node id " + quoted(tokens_[i + 1]) + " is not an integer");
      if (p == Parsed::ok && v < 0) fail("node index " + std::to_string(v) + " is negative");
      if (p == Parsed::out_of_range || v > max_ordinal)
        fail("node index " + std::string(tokens_[i + 1]) + " out of range (past the 32-bit limit)");
      if (npoints_ >= 0 && v >= npoints_)
        fail("node index " + std::to_string(v) + " out of range [0, " + std::to_string(npoints_) +
             ") of NPOIN= on line " + std::to_string(npoin_line_));
      if (v > deferred.id) deferred = {v, lineno_};
      nodes[i] = static_cast<ordinal_t>(v);
      for (int j = 0; j < i; ++j)
        if (nodes[j] == nodes[i]) fail(std::string(element_name(t)) + " repeats node " + std::to_string(v));
    }
    if (boundary) {
      mesh_.add_face(*marker, t, nodes);
      return;
    }
    mesh_.types.push_back(t);
    mesh_.elem_nodes.insert(mesh_.elem_nodes.end(), nodes, nodes + npe);
    mesh_.elem_ptr.push_back(static_cast<offset_t>(mesh_.elem_nodes.size()));
  }

  void read_elements(std::string_view value) {
    require_ndime("NELEM");
    const long long header = lineno_;
    const long long count = single_count("NELEM", value);
    mesh_.types.reserve(reserve_hint(count));
    mesh_.elem_ptr.reserve(reserve_hint(count) + 1);
    std::string_view line;
    for (long long e = 0; e < count; ++e) {
      next_data_line(line, e, count, "elements", header);
      parse_element(line, mesh_.dim, false, elem_max_);
    }
  }

  void read_points(std::string_view value) {
    require_ndime("NPOIN");
    const long long header = lineno_;
    split(value, tokens_);
    if (tokens_.empty()) fail("NPOIN= has no count");
    if (tokens_.size() > 2) fail("trailing garbage " + quoted(tokens_[2]) + " after NPOIN counts");
    const std::string_view second = tokens_.size() == 2 ? tokens_[1] : std::string_view();
    const long long count = parse_count("NPOIN", tokens_[0]);
    if (!second.empty()) {
      // SU2 may add the number of points owned by this domain (the rest are halo points).
      long long owned = 0;
      if (text::parse_integer(second, owned) != Parsed::ok || owned < 0 || owned > count)
        fail("NPOIN second count " + quoted(second) + " is not an integer in [0, " + std::to_string(count) + "]");
    }
    const int dim = mesh_.dim;
    mesh_.coords.reserve(reserve_hint(count) * dim);
    std::string_view line;
    for (long long p = 0; p < count; ++p) {
      next_data_line(line, p, count, "points", header);
      split(line, tokens_);
      const int given = static_cast<int>(tokens_.size());
      if (given < dim) fail("point needs " + std::to_string(dim) + " coordinates, got " + std::to_string(given));
      if (given > dim) {
        const std::string_view junk = garbage_after(dim);
        if (!junk.empty())
          fail("trailing garbage " + quoted(junk) + " after the " + std::to_string(dim) + " coordinates of a point");
      }
      for (int d = 0; d < dim; ++d) {
        double x = 0;
        const Parsed r = text::parse_real(tokens_[d], x);
        if (r == Parsed::not_a_number) fail("coordinate " + quoted(tokens_[d]) + " is not a number");
        if (r == Parsed::out_of_range || !std::isfinite(x))
          fail("coordinate " + quoted(tokens_[d]) + " is not a finite number");
        mesh_.coords.push_back(x);
      }
    }
    npoints_ = count;
  }

  void read_markers(std::string_view value) {
    require_ndime("NMARK");
    const long long header = lineno_;
    const long long nmark = single_count("NMARK", value);
    std::string_view line, key, tag;
    for (long long k = 0; k < nmark; ++k) {
      const std::string which = "marker " + std::to_string(k + 1) + " of " + std::to_string(nmark);
      if (!next(line))
        fail_at_end("file ends before MARKER_TAG= of " + which + " announced on line " + std::to_string(header));
      if (!split_keyword(line, key, tag) || key != "MARKER_TAG")
        fail("expected MARKER_TAG= of " + which + ", got " + quoted(line));
      if (tag.empty()) fail("MARKER_TAG= of " + which + " has no name");
      const std::string name(tag);
      if (!next(line)) fail_at_end("file ends before MARKER_ELEMS= of marker '" + name + "'");
      std::string_view count_text;
      if (!split_keyword(line, key, count_text) || key != "MARKER_ELEMS")
        fail("expected MARKER_ELEMS= after MARKER_TAG= " + name + ", got " + quoted(line));
      const long long elems_header = lineno_;
      const long long count = single_count("MARKER_ELEMS", count_text);
      for (long long e = 0; e < count; ++e) {
        next_data_line(line, e, count, "elements of marker '" + name + "'", elems_header);
        parse_element(line, mesh_.dim - 1, true, marker_max_, &name);
      }
    }
  }

  // Node ids read before NPOIN= was known are checked once it is.
  void check_deferred_range(const DeferredMax& m) const {
    if (m.id >= npoints_)
      fail_at(m.line, "node index " + std::to_string(m.id) + " out of range [0, " + std::to_string(npoints_) +
                          ") of NPOIN= on line " + std::to_string(npoin_line_));
  }
};

}  // namespace

Mesh read_su2(const std::string& path, int zone) { return Su2Parser(path, zone).parse(); }

}  // namespace ppsparse::mesh

#include "boundary_conditions.hpp"

#include <fnmatch.h>

#include <ppsparse/error.hpp>

namespace flow {
namespace {
constexpr BoundaryKind kKinds[] = {
    BoundaryKind::wall,   BoundaryKind::symmetry,         BoundaryKind::farfield,         BoundaryKind::inlet,
    BoundaryKind::outlet, BoundaryKind::supersonic_inlet, BoundaryKind::supersonic_outlet};

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

const char* name(BoundaryKind kind) {
  switch (kind) {
    case BoundaryKind::wall:
      return "wall";
    case BoundaryKind::symmetry:
      return "symmetry";
    case BoundaryKind::farfield:
      return "farfield";
    case BoundaryKind::inlet:
      return "inlet";
    case BoundaryKind::outlet:
      return "outlet";
    case BoundaryKind::supersonic_inlet:
      return "supersonic_inlet";
    case BoundaryKind::supersonic_outlet:
      return "supersonic_outlet";
  }
  return "?";
}

std::string boundary_kind_names() {
  std::vector<std::string> names;
  for (BoundaryKind k : kKinds) names.push_back(name(k));
  return join(names);
}

BoundaryRule parse_boundary_rule(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw ppsparse::InvalidArgument("--bc '" + text + "': expected NAME=TYPE (TYPE one of " + boundary_kind_names() +
                                    ")");
  BoundaryRule r;
  r.pattern = text.substr(0, eq);
  const std::string type = text.substr(eq + 1);
  if (r.pattern.empty()) throw ppsparse::InvalidArgument("--bc '" + text + "': the marker name is empty");
  for (BoundaryKind k : kKinds)
    if (type == name(k)) {
      r.kind = k;
      return r;
    }
  throw ppsparse::InvalidArgument("--bc '" + text + "': unknown type '" + type + "' (one of " + boundary_kind_names() +
                                  ")");
}

std::vector<BoundaryKind> assign_boundaries(const std::vector<std::string>& markers,
                                            const std::vector<BoundaryRule>& rules, const std::string& mesh_name) {
  if (markers.empty())
    throw ppsparse::InvalidArgument("flow: " + mesh_name +
                                    " has no boundary markers; a flow needs its boundary faces grouped by name "
                                    "(SU2 MARKER_TAG, Gmsh physical groups, CGNS boundary sections, UGRID tags)");
  std::vector<BoundaryKind> kinds(markers.size(), BoundaryKind::wall);
  std::vector<std::string> missing;
  std::vector<bool> used(rules.size(), false);
  for (size_t m = 0; m < markers.size(); ++m) {
    bool found = false;
    for (size_t r = 0; r < rules.size() && !found; ++r)
      if (fnmatch(rules[r].pattern.c_str(), markers[m].c_str(), 0) == 0) {
        kinds[m] = rules[r].kind;
        used[r] = found = true;
      }
    if (!found) missing.push_back(markers[m]);
  }
  for (size_t r = 0; r < rules.size(); ++r)
    if (!used[r]) {
      bool matches = false;
      for (const auto& m : markers) matches = matches || fnmatch(rules[r].pattern.c_str(), m.c_str(), 0) == 0;
      if (!matches)
        throw ppsparse::InvalidArgument("--bc " + rules[r].pattern + "=" + name(rules[r].kind) + ": no marker of " +
                                        mesh_name + " matches '" + rules[r].pattern +
                                        "' (its markers: " + join(markers) + ")");
    }
  if (!missing.empty())
    throw ppsparse::InvalidArgument("flow: no --bc NAME=TYPE for marker" +
                                    std::string(missing.size() > 1 ? "s " : " ") + join(missing) + " of " + mesh_name +
                                    " (TYPE one of " + boundary_kind_names() + ")");
  return kinds;
}

}  // namespace flow

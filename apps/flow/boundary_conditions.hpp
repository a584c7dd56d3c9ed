#pragma once
// Which boundary condition each marker of a mesh gets, from --bc NAME=TYPE options.
#include <string>
#include <vector>

#include "euler.hpp"

namespace flow {

/// One --bc option: markers matching `pattern` (a shell glob: * ? [...]) get `kind`.
struct BoundaryRule {
  std::string pattern;
  BoundaryKind kind = BoundaryKind::wall;
};

/// "wall", "symmetry", "farfield", "inlet", "outlet", "supersonic_inlet", "supersonic_outlet".
const char* name(BoundaryKind kind);
/// The kinds' names, comma separated, for messages.
std::string boundary_kind_names();

/// Parses "NAME=TYPE"; InvalidArgument naming the option's text for a missing '=', an empty
/// name or an unknown type (listing the types).
BoundaryRule parse_boundary_rule(const std::string& text);

/// The kind of every marker (the first rule that matches it wins). InvalidArgument listing every
/// marker no rule matches (and the mesh's markers), or naming a rule that matches no marker.
std::vector<BoundaryKind> assign_boundaries(const std::vector<std::string>& markers,
                                            const std::vector<BoundaryRule>& rules, const std::string& mesh_name);

}  // namespace flow

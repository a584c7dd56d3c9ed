// --bc NAME=TYPE: parsing, globs, and the errors that list what is missing.
#include <gtest/gtest.h>

#include <ppsparse/error.hpp>

#include "boundary_conditions.hpp"

namespace flow {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ppsparse::InvalidArgument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BoundaryConditions, ParsesEveryKind) {
  for (const char* t : {"wall", "symmetry", "farfield", "inlet", "outlet", "supersonic_inlet", "supersonic_outlet"}) {
    const BoundaryRule r = parse_boundary_rule(std::string("a=") + t);
    EXPECT_EQ(r.pattern, "a");
    EXPECT_STREQ(name(r.kind), t);
  }
  EXPECT_NE(error_of([] { parse_boundary_rule("airfoil"); }).find("expected NAME=TYPE"), std::string::npos);
  EXPECT_NE(error_of([] { parse_boundary_rule("=wall"); }).find("the marker name is empty"), std::string::npos);
  const std::string unknown = error_of([] { parse_boundary_rule("airfoil=slip"); });
  EXPECT_NE(unknown.find("unknown type 'slip'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("supersonic_outlet"), std::string::npos) << unknown;
}

TEST(BoundaryConditions, GlobsAndFirstMatchWins) {
  const std::vector<std::string> markers{"airfoil", "periodic-0-l", "periodic-0-r", "inlet"};
  const auto kinds = assign_boundaries(
      markers, {parse_boundary_rule("periodic-*=symmetry"), parse_boundary_rule("*=farfield")}, "m.msh");
  EXPECT_EQ(kinds, (std::vector<BoundaryKind>{BoundaryKind::farfield, BoundaryKind::symmetry, BoundaryKind::symmetry,
                                              BoundaryKind::farfield}));
}

TEST(BoundaryConditions, ListsEveryMarkerWithoutACondition) {
  const std::string e = error_of([] {
    assign_boundaries({"airfoil", "farfield", "wake"}, {parse_boundary_rule("airfoil=wall")}, "naca.su2");
  });
  EXPECT_NE(e.find("no --bc NAME=TYPE for markers farfield, wake of naca.su2"), std::string::npos) << e;
}

TEST(BoundaryConditions, NamesARuleThatMatchesNoMarker) {
  const std::string e = error_of([] {
    assign_boundaries({"airfoil", "farfield"},
                      {parse_boundary_rule("airfoil=wall"), parse_boundary_rule("farfield=farfield"),
                       parse_boundary_rule("wing=wall")},
                      "naca.su2");
  });
  EXPECT_NE(e.find("--bc wing=wall: no marker of naca.su2 matches 'wing' (its markers: airfoil, farfield)"),
            std::string::npos)
      << e;
  EXPECT_NE(error_of([] { assign_boundaries({}, {}, "bare.su2"); }).find("bare.su2 has no boundary markers"),
            std::string::npos);
}

}  // namespace
}  // namespace flow

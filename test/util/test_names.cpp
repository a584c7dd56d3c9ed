#include <gtest/gtest.h>

#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/util/names.hpp>

#include "test_util.hpp"

namespace ppsparse::util {
namespace {

enum class Colour { red, green, blue };
constexpr const char* kColourNames[] = {"red", "green", "blue"};

TEST(Names, ParseIsTheInverseOfNameOf) {
  for (Colour c : {Colour::red, Colour::green, Colour::blue})
    EXPECT_EQ(parse_name<Colour>(name_of(c, kColourNames), kColourNames, "colour"), c);
  EXPECT_STREQ(name_of(Colour::blue, kColourNames), "blue");
}

TEST(Names, UnknownNamesListTheValidOnes) {
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_name<Colour>("Red", kColourNames, "colour"), InvalidArgument,
                                "unknown colour 'Red' (valid: red, green, blue)");
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_name<Colour>("", kColourNames, "colour"), InvalidArgument,
                                "unknown colour '' (valid: red, green, blue)");
}

TEST(Names, OutOfRangeValuesHaveNoName) { EXPECT_STREQ(name_of(static_cast<Colour>(7), kColourNames), "?"); }

}  // namespace
}  // namespace ppsparse::util

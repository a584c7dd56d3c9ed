#include <ppsparse/mcpi/tuning.hpp>

#include <string>

#include <ppsparse/error.hpp>

namespace ppsparse::mcpi {

void check_tuning(const KernelTuning& t) {
  if (t.row_slots != 0 && t.row_slots != 1 && t.row_slots != 2 && t.row_slots != 4)
    throw InvalidArgument("mcpi tuning: row_slots = " + std::to_string(t.row_slots) +
                          " must be 0 (the rule), 1, 2 or 4");
  if (t.wide_split != 0 && t.wide_split != 1 && t.wide_split != 4)
    throw InvalidArgument("mcpi tuning: wide_split = " + std::to_string(t.wide_split) +
                          " must be 0 (the rule), 1 or 4");
  if (t.unroll != 0 && t.unroll != 2 && t.unroll != 4)
    throw InvalidArgument("mcpi tuning: unroll = " + std::to_string(t.unroll) + " must be 0 (the rule), 2 or 4");
  const int mode = static_cast<int>(t.small_color);
  if (mode < 0 || mode > 2)
    throw InvalidArgument("mcpi tuning: small_color = " + std::to_string(mode) + " is not a SmallColor");
}

const char* to_string(KernelTuning::SmallColor mode) {
  switch (mode) {
    case KernelTuning::SmallColor::automatic:
      return "automatic";
    case KernelTuning::SmallColor::off:
      return "off";
    case KernelTuning::SmallColor::always:
      return "always";
  }
  return "?";
}

KernelTuning::SmallColor parse_small_color(const std::string& text) {
  if (text == "automatic" || text.empty()) return KernelTuning::SmallColor::automatic;
  if (text == "off" || text == "0") return KernelTuning::SmallColor::off;
  if (text == "always" || text == "all") return KernelTuning::SmallColor::always;
  throw InvalidArgument("mcpi tuning: small_color '" + text + "' must be automatic, off or always");
}

}  // namespace ppsparse::mcpi

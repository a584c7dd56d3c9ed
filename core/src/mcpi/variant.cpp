#include <ppsparse/mcpi/variant.hpp>

#include <ppsparse/error.hpp>

namespace ppsparse::mcpi {

const char* name(Variant v) {
  switch (v) {
    case Variant::warp_per_row: return "warp_per_row";
    case Variant::rows_per_warp: return "rows_per_warp";
    case Variant::rows_per_warp_prefetch: return "rows_per_warp_prefetch";
    case Variant::split: return "split";
  }
  return "?";
}

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> v = {Variant::warp_per_row, Variant::rows_per_warp,
                                         Variant::rows_per_warp_prefetch, Variant::split};
  return v;
}

Variant parse_variant(const std::string& s) {
  std::string valid;
  for (Variant v : all_variants()) {
    if (s == name(v)) return v;
    valid += (valid.empty() ? "" : ", ") + std::string(name(v));
  }
  throw InvalidArgument("unknown MCPI variant '" + s + "' (valid: " + valid + ")");
}

}  // namespace ppsparse::mcpi

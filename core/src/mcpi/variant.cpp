#include <ppsparse/mcpi/variant.hpp>

#include <ppsparse/error.hpp>

namespace ppsparse::mcpi {

const char* name(Variant v) {
  switch (v) {
    case Variant::warp_per_row:
      return "warp_per_row";
    case Variant::rows_per_warp:
      return "rows_per_warp";
    case Variant::rows_per_warp_prefetch:
      return "rows_per_warp_prefetch";
    case Variant::split:
      return "split";
    case Variant::warp_per_row_l2:
      return "warp_per_row_l2";
    case Variant::warp_per_row_l2_async:
      return "warp_per_row_l2_async";
    case Variant::rows_per_warp_l2:
      return "rows_per_warp_l2";
    case Variant::rows_per_warp_l2_async:
      return "rows_per_warp_l2_async";
  }
  return "?";
}

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> v = {Variant::warp_per_row,           Variant::rows_per_warp,
                                         Variant::rows_per_warp_prefetch, Variant::split,
                                         Variant::warp_per_row_l2,        Variant::warp_per_row_l2_async,
                                         Variant::rows_per_warp_l2,       Variant::rows_per_warp_l2_async};
  return v;
}

Variant base_variant(Variant v) {
  switch (v) {
    case Variant::warp_per_row_l2:
    case Variant::warp_per_row_l2_async:
      return Variant::warp_per_row;
    case Variant::rows_per_warp_l2:
    case Variant::rows_per_warp_l2_async:
      return Variant::rows_per_warp;
    default:
      return v;
  }
}

bool uses_l2_window(Variant v) {
  return v == Variant::warp_per_row_l2 || v == Variant::warp_per_row_l2_async || v == Variant::rows_per_warp_l2 ||
         v == Variant::rows_per_warp_l2_async;
}

bool uses_async_copy(Variant v) { return v == Variant::warp_per_row_l2_async || v == Variant::rows_per_warp_l2_async; }

Variant parse_variant(const std::string& s) {
  std::string valid;
  for (Variant v : all_variants()) {
    if (s == name(v)) return v;
    valid += (valid.empty() ? "" : ", ") + std::string(name(v));
  }
  throw InvalidArgument("unknown MCPI variant '" + s + "' (valid: " + valid + ")");
}

}  // namespace ppsparse::mcpi

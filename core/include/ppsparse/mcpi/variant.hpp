#pragma once
// The MCPI kernel variants, selectable by name on every backend.
#include <string>
#include <vector>

namespace ppsparse::mcpi {

enum class Variant {
  warp_per_row,           // seeds' 11_0: one vector group (nw warps, table I) per block row, lanes on block entries
  rows_per_warp,          // seeds' 16_0: one vector group handles floor(W/nb) block rows, nb lanes per row
  rows_per_warp_prefetch, // 16_0 with dQ prefetched into two team-scratch buffers (seed 000, fig. 9)
  split,                  // unfused: block SpMV kernel, then a substitution kernel (two launches per colour)
};

const char* name(Variant v);
// InvalidArgument listing the valid names when the name is unknown.
Variant parse_variant(const std::string& s);
const std::vector<Variant>& all_variants();

}  // namespace ppsparse::mcpi

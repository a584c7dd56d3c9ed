#pragma once
// The MCPI kernel variants, selectable by name on every backend.
#include <string>
#include <vector>

namespace ppsparse::mcpi {

enum class Variant {
  warp_per_row,            // seeds' 11_0: one vector group (nw warps, table I) per block row, lanes on block entries
  rows_per_warp,           // seeds' 16_0: one vector group handles floor(W/nb) block rows, nb lanes per row
  rows_per_warp_prefetch,  // 16_0 with dQ prefetched into two team-scratch buffers (seed 000, fig. 9)
  split,                   // unfused: block SpMV kernel, then a substitution kernel (two launches per colour)
  // Seed 000's hardware variants: the base kernel with a persisting-L2 window for dQ (11_1,
  // 16_1), and also with D copied asynchronously to shared memory (11_2, 16_2). Where the
  // backend lacks a feature they run the base kernel and say so.
  warp_per_row_l2,
  warp_per_row_l2_async,
  rows_per_warp_l2,
  rows_per_warp_l2_async,
};

// The portable kernel a variant is built on (itself for the four base variants).
Variant base_variant(Variant v);
bool uses_l2_window(Variant v);
bool uses_async_copy(Variant v);

const char* name(Variant v);
// InvalidArgument listing the valid names when the name is unknown.
Variant parse_variant(const std::string& s);
const std::vector<Variant>& all_variants();

}  // namespace ppsparse::mcpi

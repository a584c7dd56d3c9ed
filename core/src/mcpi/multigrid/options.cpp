// The multigrid's options checked (mcpi/multigrid.hpp), each bad field named with its value.
#include <algorithm>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/multigrid.hpp>

namespace ppsparse::mcpi {

void check_multigrid_options(const MultigridOptions& o) {
  auto bad = [](const std::string& what) { throw InvalidArgument("mcpi multigrid: " + what); };
  if (o.max_levels < 1) bad("max_levels must be >= 1, got " + std::to_string(o.max_levels));
  if (o.coarse_rows < 1) bad("coarse_rows must be >= 1, got " + std::to_string(o.coarse_rows));
  if (o.matching_passes < 1) bad("matching_passes must be >= 1, got " + std::to_string(o.matching_passes));
  if (o.pre_sweeps < 0 || o.post_sweeps < 0)
    bad("pre_sweeps and post_sweeps must be >= 0, got " + std::to_string(o.pre_sweeps) + " and " +
        std::to_string(o.post_sweeps));
  if (o.coarse_sweeps < 1) bad("coarse_sweeps must be >= 1, got " + std::to_string(o.coarse_sweeps));
  if (o.cycle_every < 1) bad("cycle_every must be >= 1, got " + std::to_string(o.cycle_every));
  if (o.cycle_min_rows < 0) bad("cycle_min_rows must be >= 0, got " + std::to_string(o.cycle_min_rows));
  const int cycle = static_cast<int>(o.cycle);
  if (cycle < 0 || cycle > 2) bad("cycle must be v, w or k, got the value " + std::to_string(cycle));
  const int scaling = static_cast<int>(o.scaling);
  if (scaling < 0 || scaling > 3)
    bad("scaling must be automatic, none, energy or residual, got the value " + std::to_string(scaling));
  if (o.coarse_o_format) {
    const auto& all = all_o_formats();
    if (std::find(all.begin(), all.end(), *o.coarse_o_format) == all.end()) {
      std::string names;
      for (const OFormat f : all) names += std::string(names.empty() ? "" : ", ") + name(f);
      bad("coarse_o_format must be one of " + names + ", got the value " +
          std::to_string(static_cast<int>(*o.coarse_o_format)));
    }
  }
}

OFormat coarse_o_format(const MultigridOptions& o, const OFormat finest) {
  return o.coarse_o_format.value_or(finest == OFormat::fp32 ? OFormat::bf16 : finest);
}

}  // namespace ppsparse::mcpi

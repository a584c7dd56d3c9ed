#include "multigrid_options.hpp"

#include <ppsparse/error.hpp>

#include "option_values.hpp"

namespace mcpi_app {

std::string multigrid_options_help(const ppsparse::mcpi::MultigridOptions& defaults, int indent) {
  using Cycle = ppsparse::mcpi::MultigridOptions::Cycle;
  const auto d = [](auto v) { return std::to_string(v); };
  const std::string cycle = defaults.cycle == Cycle::v ? "v" : defaults.cycle == Cycle::w ? "w" : "k";
  const std::string lines = R"(  --mg-cycle v|w|k       the multigrid's cycle: one coarse correction per level (v), two
                         (w), or up to two Krylov (GCR) steps on the coarse system (k);
                         default )" +
                            cycle + R"(
  --mg-cycle-every N     the w or k cycle's corrections at every N-th level only, the V-cycle's
                         between (default 1: every level)
  --mg-cycle-min-rows N  the w or k cycle's corrections only on levels of N block rows or more,
                         the V-cycle's below (default 0: every level)
  --mg-scaling S         how each coarse correction is scaled: energy (symmetric systems),
                         residual (the flows'), none, or auto (the default: energy where O
                         is nearly symmetric, residual otherwise)
  --mg-levels N          at most N levels, the finest included (default )" +
                            d(defaults.max_levels) + R"()
  --mg-coarse-rows N     stop coarsening at N block rows or fewer (default )" +
                            d(defaults.coarse_rows) + R"()
  --mg-passes N          pairwise matchings per level: aggregates of up to 2^N block rows
                         (default )" +
                            d(defaults.matching_passes) + R"()
  --mg-sweeps PRE[,POST] MCPI sweeps before and after each coarse correction (default )" +
                            d(defaults.pre_sweeps) + "," + d(defaults.post_sweeps) + R"()
  --mg-coarse-sweeps N   MCPI sweeps on the coarsest level (default )" +
                            d(defaults.coarse_sweeps) + R"()
  --mg-o-format F        the coarse levels' O: fp32, bf16, fp16 or int8 (default bf16 where
                         the finest level's O is fp32, else the finest level's format)
)";
  std::string out;
  for (size_t at = 0; at < lines.size();) {
    const size_t end = lines.find('\n', at);
    out += std::string(static_cast<size_t>(indent), ' ') + lines.substr(at, end - at + 1);
    at = end + 1;
  }
  return out;
}

bool parse_multigrid_option(const std::string& opt, const std::function<std::string()>& value,
                            ppsparse::mcpi::MultigridOptions& mg) {
  if (opt == "--mg-cycle") {
    const std::string v = value();
    if (v == "v") {
      mg.cycle = ppsparse::mcpi::MultigridOptions::Cycle::v;
    } else if (v == "w") {
      mg.cycle = ppsparse::mcpi::MultigridOptions::Cycle::w;
    } else if (v == "k") {
      mg.cycle = ppsparse::mcpi::MultigridOptions::Cycle::k;
    } else {
      throw ppsparse::InvalidArgument("mcpi: --mg-cycle is v, w or k, got '" + v + "'");
    }
  } else if (opt == "--mg-scaling") {
    using Scaling = ppsparse::mcpi::MultigridOptions::Scaling;
    const std::string v = value();
    if (v == "auto") {
      mg.scaling = Scaling::automatic;
    } else if (v == "none") {
      mg.scaling = Scaling::none;
    } else if (v == "energy") {
      mg.scaling = Scaling::energy;
    } else if (v == "residual") {
      mg.scaling = Scaling::residual;
    } else {
      throw ppsparse::InvalidArgument("mcpi: --mg-scaling is auto, none, energy or residual, got '" + v + "'");
    }
  } else if (opt == "--mg-cycle-every") {
    mg.cycle_every = static_cast<int>(parse_int(opt, value(), 1, 64));
  } else if (opt == "--mg-cycle-min-rows") {
    mg.cycle_min_rows = static_cast<ppsparse::ordinal_t>(parse_int(opt, value(), 0, 2147483647));
  } else if (opt == "--mg-levels") {
    mg.max_levels = static_cast<int>(parse_int(opt, value(), 1, 64));
  } else if (opt == "--mg-coarse-rows") {
    mg.coarse_rows = static_cast<ppsparse::ordinal_t>(parse_int(opt, value(), 1, 2147483647));
  } else if (opt == "--mg-passes") {
    mg.matching_passes = static_cast<int>(parse_int(opt, value(), 1, 8));
  } else if (opt == "--mg-sweeps") {
    const std::string v = value();
    const auto comma = v.find(',');
    mg.pre_sweeps = static_cast<int>(parse_int(opt, v.substr(0, comma), 0, 1000));
    mg.post_sweeps =
        comma == std::string::npos ? mg.pre_sweeps : static_cast<int>(parse_int(opt, v.substr(comma + 1), 0, 1000));
  } else if (opt == "--mg-coarse-sweeps") {
    mg.coarse_sweeps = static_cast<int>(parse_int(opt, value(), 1, 100000));
  } else if (opt == "--mg-o-format") {
    const std::string v = value();
    try {
      mg.coarse_o_format = ppsparse::mcpi::parse_o_format(v);
    } catch (const ppsparse::InvalidArgument& e) {
      throw ppsparse::InvalidArgument("mcpi: --mg-o-format: " + std::string(e.what()));
    }
  } else {
    return false;
  }
  return true;
}

std::string describe(const ppsparse::mcpi::MultigridOptions& mg, ppsparse::mcpi::OFormat finest) {
  using Cycle = ppsparse::mcpi::MultigridOptions::Cycle;
  return std::string(mg.cycle == Cycle::v   ? "V"
                     : mg.cycle == Cycle::w ? "W"
                                            : "K") +
         "-cycle" +
         (mg.cycle != Cycle::v && mg.cycle_every > 1 ? " at every " + std::to_string(mg.cycle_every) + " levels"
                                                     : std::string()) +
         (mg.cycle != Cycle::v && mg.cycle_min_rows > 0
              ? " of at least " + std::to_string(mg.cycle_min_rows) + " block rows (V below)"
              : std::string()) +
         ", " + std::to_string(mg.pre_sweeps) + "+" + std::to_string(mg.post_sweeps) + " MCPI sweeps per level, " +
         std::to_string(mg.coarse_sweeps) + " on the coarsest, aggregates of up to " +
         std::to_string(1 << mg.matching_passes) + " block rows" +
         (mg.scaling == ppsparse::mcpi::MultigridOptions::Scaling::automatic ? ""
          : mg.scaling == ppsparse::mcpi::MultigridOptions::Scaling::none    ? ", corrections unscaled"
          : mg.scaling == ppsparse::mcpi::MultigridOptions::Scaling::energy  ? ", corrections scaled in energy"
                                                                             : ", corrections scaled by residual") +
         ", coarse levels' O in " + ppsparse::mcpi::name(ppsparse::mcpi::coarse_o_format(mg, finest));
}

}  // namespace mcpi_app

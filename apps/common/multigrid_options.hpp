#pragma once
// The multigrid preconditioner's command-line options, shared by mcpi's step mode and its flow
// mode (mcpi/multigrid.hpp).
#include <functional>
#include <string>

#include <ppsparse/mcpi/multigrid.hpp>

namespace mcpi_app {

/// The options' help lines with `defaults` as their defaults, each indented by `indent` more
/// spaces.
std::string multigrid_options_help(const ppsparse::mcpi::MultigridOptions& defaults, int indent = 0);
/// If `opt` is a multigrid option: its value (from `value`) into mg, true. InvalidArgument
/// naming the option for a bad value.
bool parse_multigrid_option(const std::string& opt, const std::function<std::string()>& value,
                            ppsparse::mcpi::MultigridOptions& mg);
/// "K-cycle, 2+2 MCPI sweeps per level, 20 on the coarsest, aggregates of up to 4 block rows,
/// coarse levels' O in bf16" for a finest level whose O is in `finest`.
std::string describe(const ppsparse::mcpi::MultigridOptions& mg, ppsparse::mcpi::OFormat finest);

}  // namespace mcpi_app

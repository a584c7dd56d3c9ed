// The checks of what a user hands to the MCPI solver and to FGMRES, and the stop reasons' names.
#include <cmath>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/solver.hpp>

namespace ppsparse::mcpi {

void check_system(const BlockSystem<HostSpace>& s, const Coloring& coloring, int index_base) {
  const auto user = [index_base](long long i) { return std::to_string(i + index_base); };
  const std::string from1 = index_base ? " (numbered from 1)" : "";
  if (s.nb < 1 || s.nb > 64)
    throw InvalidArgument("mcpi: block size nb = " + std::to_string(s.nb) + " is outside the supported 1..64");
  if (s.n < 0) throw InvalidArgument("mcpi: negative number of block rows");
  const size_t nb2 = static_cast<size_t>(s.nb) * s.nb;
  if (s.O.nb != s.nb || s.O.nblockrows != s.n || s.O.nblockcols != s.n)
    throw InvalidArgument("mcpi: O is not an n x n block matrix with the system's block size");
  if (s.D.extent(0) != static_cast<size_t>(s.n) * nb2)
    throw InvalidArgument("mcpi: D has " + std::to_string(s.D.extent(0)) + " entries, expected n*nb*nb");
  if (s.R.extent(0) != static_cast<size_t>(s.n) * s.nb)
    throw InvalidArgument("mcpi: R has " + std::to_string(s.R.extent(0)) + " entries, expected n*nb");
  if (coloring.perm.size() != s.n || coloring.color.size() != static_cast<size_t>(s.n) ||
      coloring.color_offsets.size() != static_cast<size_t>(coloring.ncolors) + 1 ||
      (s.n > 0 && coloring.color_offsets.back() != s.n))
    throw InvalidArgument("mcpi: the colouring does not describe " + std::to_string(s.n) + " block rows");
  validate(s.O, "mcpi: O");
  for (ordinal_t i = 0; i < s.n; ++i) {
    for (offset_t k = s.O.ia(i); k < s.O.ia(i + 1); ++k) {
      const ordinal_t j = s.O.ja(k);
      if (j == i)
        throw InvalidArgument("mcpi: O holds a diagonal block in block row " + user(i) + from1 + " (D holds those)");
      if (coloring.color[i] == coloring.color[j])
        throw InvalidArgument("mcpi: invalid colouring: coupled block rows " + user(i) + " and " + user(j) + from1 +
                              " share colour " + std::to_string(coloring.color[i]));
      for (size_t e = 0; e < nb2; ++e) {
        const float v = s.O.values(static_cast<size_t>(k) * nb2 + e);
        if (!std::isfinite(v))
          throw NumericalError("mcpi: O block (" + user(i) + ", " + user(j) + ")" + from1 + " holds a NaN or Inf");
      }
    }
    for (int e = 0; e < s.nb; ++e)
      if (!std::isfinite(s.R(static_cast<size_t>(i) * s.nb + e)))
        throw NumericalError("mcpi: R holds a NaN or Inf in block row " + user(i) + from1);
  }
}

const char* name(StopReason r) {
  switch (r) {
    case StopReason::converged:
      return "converged";
    case StopReason::max_sweeps:
      return "max_sweeps";
    case StopReason::diverged:
      return "diverged";
    case StopReason::not_finite:
      return "not_finite";
  }
  return "unknown";
}

namespace {
// The criteria Control and FgmresControl share; `who` prefixes the message.
void check_stopping(const std::string& who, double rtol, double atol, double divergence_factor,
                    InitialGuess initial_guess) {
  if (!(rtol >= 0 && rtol < HUGE_VAL))
    throw InvalidArgument(who + "rtol must be finite and >= 0, got " + std::to_string(rtol));
  if (!(atol >= 0 && atol < HUGE_VAL))
    throw InvalidArgument(who + "atol must be finite and >= 0, got " + std::to_string(atol));
  if (!(divergence_factor > 1))
    throw InvalidArgument(who + "divergence_factor must be > 1, got " + std::to_string(divergence_factor));
  if (initial_guess != InitialGuess::zero && initial_guess != InitialGuess::given)
    throw InvalidArgument(who + "initial_guess is neither zero nor given");
}
}  // namespace

void check_control(const Control& c) {
  const std::string who = "mcpi control: ";
  if (c.max_sweeps < 0) throw InvalidArgument(who + "max_sweeps must be >= 0, got " + std::to_string(c.max_sweeps));
  if (c.check_interval < 0)
    throw InvalidArgument(who + "check_interval must be >= 0, got " + std::to_string(c.check_interval));
  check_stopping(who, c.rtol, c.atol, c.divergence_factor, c.initial_guess);
}

void check_fgmres_control(const FgmresControl& c) {
  const std::string who = "mcpi fgmres control: ";
  if (c.restart < 1) throw InvalidArgument(who + "restart must be >= 1, got " + std::to_string(c.restart));
  if (c.max_iterations < 0)
    throw InvalidArgument(who + "max_iterations must be >= 0, got " + std::to_string(c.max_iterations));
  if (c.sweeps < 1) throw InvalidArgument(who + "sweeps must be >= 1, got " + std::to_string(c.sweeps));
  check_stopping(who, c.rtol, c.atol, c.divergence_factor, c.initial_guess);
}

}  // namespace ppsparse::mcpi

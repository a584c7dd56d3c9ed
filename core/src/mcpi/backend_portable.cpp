// The portable implementation of the MCPI backend hooks, linked when no device backend
// supplies one (see mcpi/backend.hpp).
#if !defined(PPSPARSE_HAVE_MCPI_BACKEND)
#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/backend.hpp>

namespace ppsparse::mcpi::backend {

Features features() {
  Features f;
  f.name = "portable";
  f.why_not = std::string("no persisting-L2 window or asynchronous-copy kernels on ") + DefaultExecSpace::name();
  return f;
}

bool has_kernel(Variant, int) { return false; }

void run_colour(Variant v, const ColourArgs&) {
  throw InvalidArgument(std::string("mcpi backend: no specialised kernel for ") + name(v));
}

}  // namespace ppsparse::mcpi::backend
#endif

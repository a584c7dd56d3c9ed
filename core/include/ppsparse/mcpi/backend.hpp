#pragma once
// Hooks through which a device backend (backends/cuda, backends/hip) supplies specialised
// MCPI kernels and hardware features. Exactly one implementation is linked: the backend's
// when it provides one (PPSPARSE_HAVE_MCPI_BACKEND), else core's portable one, which has no
// specialised kernels and no features, so every variant runs the portable Kokkos kernels.
// Backend kernels run on the default instance of the device execution space.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::backend {

struct Features {
  std::string name;           // "portable", "cuda", "hip"
  bool l2_persistence = false;
  bool async_copy = false;
  std::string why_not;        // one line: what this backend lacks, for fallback notes
};
Features features();

// One colour's rows [row_begin, row_end) in colour order; device pointers.
struct ColourArgs {
  int nb = 0;
  ordinal_t row_begin = 0, row_end = 0;
  const offset_t* ia = nullptr;
  const ordinal_t* ja = nullptr;
  const float* O = nullptr;
  const double* D = nullptr;  // LU factors
  const double* R = nullptr;
  float* dq = nullptr;
};

// Whether the backend has a specialised kernel for (v, nb).
bool has_kernel(Variant v, int nb);
// Launches it (asynchronously). Precondition: has_kernel(v, a.nb).
void run_colour(Variant v, const ColourArgs& a);

// A whole sweep in one launch (a backend's single-launch sweep): thread blocks take slices of
// rows in colour order from a counter and start a slice once the slices of earlier colours
// that hold its neighbours are done, so that one colour's tail overlaps the next colour's
// start. The plan (the slices and their dependencies, and the device counters) is the
// backend's, built once per solver; nullptr where the backend has no such sweep for nb.
class SweepPlan {
 public:
  virtual ~SweepPlan() = default;
  virtual std::string description() const = 0;  // one line, for Result::note
};
// ia (n + 1) and ja: the off-diagonal pattern in colour order, on the host; colour_offsets:
// colour c is rows [colour_offsets[c], colour_offsets[c + 1]).
std::shared_ptr<SweepPlan> make_sweep_plan(int nb, ordinal_t n, const offset_t* ia, const ordinal_t* ja,
                                           const std::vector<ordinal_t>& colour_offsets);
// Whether run_sweep runs `v` (the plan's kernels cover its base variant).
bool sweeps_in_one_launch(Variant v);
// One sweep over every colour (asynchronously); a covers the whole system (rows 0..n).
void run_sweep(Variant v, const ColourArgs& a, SweepPlan& plan);
// Throws Error if a sweep of the plan gave up waiting on a dependency (its results are
// invalid; the ticket order makes this impossible while thread blocks are not preempted).
// Synchronises with the device.
void check_sweeps(SweepPlan& plan);

// The persisting-L2 window (backend/l2_window.hpp), for dQ.
using ppsparse::backend::L2Window;
using ppsparse::backend::l2_window_begin;
using ppsparse::backend::l2_window_end;

}  // namespace ppsparse::mcpi::backend

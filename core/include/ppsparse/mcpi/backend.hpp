#pragma once
// Hooks through which a device backend (backends/cuda, backends/hip) supplies specialised
// MCPI kernels and hardware features. Exactly one implementation is linked: the backend's
// when it provides one (PPSPARSE_HAVE_MCPI_BACKEND), else core's portable one, which has no
// specialised kernels and no features, so every variant runs the portable Kokkos kernels.
// Backend kernels run on the default instance of the device execution space.
#include <cstddef>
#include <string>

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

// The persisting-L2 window (backend/l2_window.hpp), for dQ.
using ppsparse::backend::L2Window;
using ppsparse::backend::l2_window_begin;
using ppsparse::backend::l2_window_end;

}  // namespace ppsparse::mcpi::backend

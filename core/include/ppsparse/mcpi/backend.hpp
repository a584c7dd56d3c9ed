#pragma once
/// @file
/// Hooks through which a device backend supplies specialised MCPI kernels and hardware
/// features, chosen by overloading on the execution-space type (ArborX's way): the templates
/// below are the portable fallback (no specialised kernels, no features, so every variant runs
/// the portable Kokkos kernels); backends/cuda overloads them for Kokkos::Cuda and
/// backends/hip for Kokkos::HIP. The hooks take the caller's execution-space instance and
/// launch on its stream.
#include <cstddef>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mcpi/tuning.hpp>
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::backend {

/// What a device backend offers the MCPI solver.
struct Features {
  std::string name;  ///< "portable", "cuda", "hip"
  bool l2_persistence = false;
  bool async_copy = false;
  std::string why_not;  ///< one line: what this backend lacks, for fallback notes
};

/// One colour's rows [row_begin, row_end) in colour order; device pointers.
struct ColorArgs {
  int nb = 0;
  ordinal_t row_begin = 0, row_end = 0;
  const offset_t* ia = nullptr;
  const ordinal_t* ja = nullptr;
  /// O in its stored format (mcpi/o_formats.def): O for fp32; for a coded format its codec's
  /// entries (mcpi/detail/o_codecs/) at o_coded, with the scale exponents o_scale where the
  /// codec has them (fp16: per block row; int8: per column of each block).
  OFormat o_format = OFormat::fp32;
  const float* O = nullptr;
  const void* o_coded = nullptr;
  const std::int8_t* o_scale = nullptr;
  const double* D = nullptr;  ///< LU factors
  /// D's LU factors rounded to FP32 (OStorage::lu_fp32): when set, the kernels read these
  /// instead of D (arithmetic stays FP64).
  const float* d_lu32 = nullptr;
  const double* R = nullptr;
  float* dq = nullptr;
  /// A checked sweep (has_residual_kernel): when set, the kernel also adds each row's squared
  /// residual ||R - (D + O) dQ||^2, dQ as read just before the row's update, to
  /// residual_sq[w % residual_slots] for some w (the caller sums the slots).
  double* residual_sq = nullptr;
  int residual_slots = 0;
};

/// The features of the backend of `exec`.
template <class ExecSpace>
Features features(const ExecSpace&) {
  Features f;
  f.name = "portable";
  f.why_not = std::string("no persisting-L2 window or asynchronous-copy kernels on ") + ExecSpace::name();
  return f;
}

/// Whether the backend of `exec` has a specialised kernel for (k, nb) with O stored in `format`.
template <class ExecSpace>
bool has_kernel(const ExecSpace&, Kernel, int, OFormat = OFormat::fp32) {
  return false;
}

/// Whether the backend's kernel for (k, nb, format) can also form the residual (ColorArgs::residual_sq).
template <class ExecSpace>
bool has_residual_kernel(const ExecSpace&, Kernel, int, OFormat = OFormat::fp32) {
  return false;
}

/// Launches the specialised kernel of v.kernel with v's hardware features that the backend has
/// (features(exec)) on exec's stream, asynchronously. Precondition: has_kernel(exec, v.kernel,
/// a.nb), and tuning passed check_tuning. The L2 window itself is the caller's
/// (l2_window_begin).
template <class ExecSpace>
void run(const ExecSpace&, const Variant& v, const ColorArgs&, const KernelTuning&) {
  throw InvalidArgument("mcpi backend: no specialised kernel for " + name(v) + " on " + ExecSpace::name());
}

/// The persisting-L2 window (backend/l2_window.hpp), for dQ.
using ppsparse::backend::l2_window_begin;
using ppsparse::backend::l2_window_end;
using ppsparse::backend::L2Window;

}  // namespace ppsparse::mcpi::backend

// The backends' overloads (backend/backends.hpp): a backend's features, and its specialised
// kernels where it has them.
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_MCPI_FEATURES_HOOKS(Exec, NAME) Features features(const Exec& exec);
#define PPSPARSE_MCPI_KERNELS_HOOKS(Exec, NAME)                                            \
  bool has_kernel(const Exec& exec, Kernel k, int nb, OFormat f = OFormat::fp32);          \
  bool has_residual_kernel(const Exec& exec, Kernel k, int nb, OFormat f = OFormat::fp32); \
  void run(const Exec& exec, const Variant& v, const ColorArgs& a, const KernelTuning& tuning);
namespace ppsparse::mcpi::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(MCPI_FEATURES, PPSPARSE_MCPI_FEATURES_HOOKS)
PPSPARSE_DECLARE_BACKEND_HOOKS(MCPI_KERNELS, PPSPARSE_MCPI_KERNELS_HOOKS)
}  // namespace ppsparse::mcpi::backend

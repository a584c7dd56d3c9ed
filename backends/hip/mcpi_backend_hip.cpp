// The MCPI backend hooks (core/include/ppsparse/mcpi/backend.hpp) for Kokkos::HIP.
//
// No specialised kernels: every variant runs core's portable Kokkos kernels, laid out for
// 64-wide wavefronts by make_geometry (compat::vector_width_for<Kokkos::HIP>() == 64 on
// CDNA). Neither hardware feature of Walden et al. (2021) exists in HIP (device_features.hpp), so the
// _l2 and _l2_async variants fall back to their base kernels and the solver's note says why,
// naming the device's architecture.
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/hip/device_features.hpp>
#include <ppsparse/mcpi/backend.hpp>

namespace ppsparse::mcpi::backend {
namespace {

// The device's feature lines, or why the device could not be asked.
hip::FeatureSupport device_support() {
  try {
    return hip::feature_support(hip::kokkos_device().arch);
  } catch (const Error& e) {
    hip::FeatureSupport f;
    f.l2_note = f.async_note = e.what();
    return f;
  }
}

}  // namespace

Features features(const Kokkos::HIP&) {
  const hip::FeatureSupport s = device_support();
  Features f;
  f.name = "hip";
  f.l2_persistence = s.l2_persistence;
  f.async_copy = s.async_copy;
  f.why_not = s.l2_note == s.async_note ? s.l2_note : s.l2_note + "; " + s.async_note;
  return f;
}

// has_kernel and run: core's portable templates (mcpi/backend.hpp) answer for
// Kokkos::HIP, as no specialised kernel exists here.

}  // namespace ppsparse::mcpi::backend

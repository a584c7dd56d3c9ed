#pragma once
/// @file
/// What an AMD GPU offers for the two CUDA-specific features of Walden et al. (2021): a persisting-L2
/// access-policy window (11_1, 16_1) and asynchronous global->shared copies (11_2, 16_2).
/// HIP builds only (backends/hip). backends/hip/README.md gives the sources behind each note.
#include <cstddef>
#include <string>

namespace ppsparse::hip {

/// The properties of a HIP device that the MCPI backend reports.
struct DeviceInfo {
  int device = -1;
  std::string name;   ///< e.g. "AMD Instinct MI250X"
  std::string arch;   ///< gcnArchName without target features, e.g. "gfx90a"
  int wavefront = 0;  ///< lanes per wavefront (64 on CDNA)
  int compute_units = 0;
  std::size_t l2_bytes = 0;   ///< as HIP reports it: one GCD's (MI200) or one XCD's (MI300) L2
  std::size_t lds_bytes = 0;  ///< LDS per workgroup
};

/// The device Kokkos runs on. ppsparse::Error naming the HIP call when none is visible.
DeviceInfo kokkos_device();

/// "gfx90a:sramecc+:xnack-" -> "gfx90a".
std::string base_arch(const std::string& gcn_arch_name);

/// Whether HIP, as compiled here, offers each feature on `arch`, and one line each saying
/// what the hardware has and what runs instead.
struct FeatureSupport {
  bool l2_persistence = false;
  bool async_copy = false;
  std::string l2_note;
  std::string async_note;
};
FeatureSupport feature_support(const std::string& arch);

}  // namespace ppsparse::hip

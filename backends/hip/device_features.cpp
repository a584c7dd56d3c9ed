// AMD device properties and the CUDA features of Walden et al. (2021) on AMD architectures (see
// backends/hip/README.md for what each statement rests on).
#include <hip/hip_runtime.h>

#include <Kokkos_Core.hpp>

#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/hip/device_features.hpp>

namespace ppsparse::hip {
namespace {

void check(hipError_t e, const char* what) {
  if (e != hipSuccess) throw Error(std::string("hip: ") + what + " failed: " + hipGetErrorString(e));
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// CDNA2 (MI200) and CDNA3 (MI300; gfx940/941 were its early names).
bool is_cdna2(const std::string& arch) { return arch == "gfx90a"; }
bool is_cdna3(const std::string& arch) { return arch == "gfx940" || arch == "gfx941" || arch == "gfx942"; }

}  // namespace

std::string base_arch(const std::string& gcn_arch_name) { return gcn_arch_name.substr(0, gcn_arch_name.find(':')); }

DeviceInfo kokkos_device() {
  DeviceInfo d;
  d.device = Kokkos::HIP().hip_device();
  hipDeviceProp_t p{};
  check(hipGetDeviceProperties(&p, d.device), "hipGetDeviceProperties");
  d.name = p.name;
  d.arch = base_arch(p.gcnArchName);
  d.wavefront = p.warpSize;
  d.compute_units = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize > 0 ? static_cast<std::size_t>(p.l2CacheSize) : 0;
  d.lds_bytes = p.sharedMemPerBlock;
  return d;
}

FeatureSupport feature_support(const std::string& arch) {
  FeatureSupport f;
  // L2: HIP has no set-aside limit and no stream access-policy window that changes how an
  // AMD L2 replaces lines (ROCm 5.2 documents hipDeviceAttributePersistingL2CacheMaxSize
  // as CUDA-only and has no hipStreamSetAttribute). dQ is cached like all other data.
  f.l2_persistence = false;
  if (is_cdna2(arch)) {
    f.l2_note =
        "gfx90a (MI200) has no persisting-L2 control in HIP; dQ shares the 8 MB L2 of the GCD with the streamed blocks";
  } else if (is_cdna3(arch)) {
    f.l2_note = arch +
                " (MI300) has no persisting-L2 control in HIP; dQ shares the 4 MB L2 of each XCD and the 256 MB "
                "Infinity Cache with the streamed blocks";
  } else {
    f.l2_note = arch + " has no persisting-L2 control in HIP";
  }
  // Asynchronous copies: HIP has no memcpy_async / cp.async. CDNA's LDS DMA (buffer or
  // global loads with the lds bit, 4 bytes a lane) is reached only through compiler builtins
  // that ROCm 5.2's clang 15 lacks, so D is read from global memory by the kernel itself.
  f.async_copy = false;
  if (is_cdna2(arch)) {
    f.async_note =
        "gfx90a: no asynchronous global-to-LDS copy in HIP (the ISA's buffer_load ... lds needs builtins newer than "
        "clang 15)";
  } else if (is_cdna3(arch)) {
    f.async_note = arch +
                   ": no asynchronous global-to-LDS copy in HIP (global_load_lds needs "
                   "__builtin_amdgcn_global_load_lds, newer than clang 15)";
  } else {
    f.async_note = arch + ": no asynchronous global-to-LDS copy in HIP";
  }
  if (!starts_with(arch, "gfx")) {
    f.l2_note = "unknown AMD architecture '" + arch + "': no persisting-L2 control in HIP";
    f.async_note = "unknown AMD architecture '" + arch + "': no asynchronous global-to-LDS copy in HIP";
  }
  return f;
}

}  // namespace ppsparse::hip

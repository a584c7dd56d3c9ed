#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <Kokkos_Core.hpp>

#include <ppsparse/dist/transport.hpp>

namespace ppsparse::dist {

std::string name(Transport t) {
  switch (t) {
    case Transport::automatic:
      return "automatic";
    case Transport::staged:
      return "staged";
    case Transport::mpi_device:
      return "mpi_device";
    case Transport::nccl:
      return "nccl";
  }
  return "?";
}

bool mpi_is_device_aware() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(KOKKOS_ENABLE_HIP) && defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  return MPIX_Query_rocm_support() == 1;
#else
  return false;
#endif
}

}  // namespace ppsparse::dist

// Whether the MPI library takes HIP device pointers (dist/device_messenger.hpp).
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <ppsparse/distributed/device_messenger.hpp>

namespace ppsparse::distributed {

bool mpi_is_device_aware(const Kokkos::HIP&) {
#if defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  return MPIX_Query_rocm_support() == 1;
#else
  return false;
#endif
}

}  // namespace ppsparse::distributed

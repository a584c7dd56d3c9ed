// Whether the MPI library takes CUDA device pointers (dist/device_messenger.hpp).
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <ppsparse/distributed/device_messenger.hpp>

namespace ppsparse::distributed {

bool mpi_is_device_aware(const Kokkos::Cuda&) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace ppsparse::distributed

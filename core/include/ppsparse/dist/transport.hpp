#pragma once
/// @file
/// How a distributed solver's messages travel, chosen at run time and reported.
#include <string>

namespace ppsparse::dist {

/// The exchange's transport.
enum class Transport {
  automatic,   ///< GPU-aware MPI where the library is, else NCCL where usable, else staged
  staged,      ///< through pinned host buffers: works everywhere
  mpi_device,  ///< device buffers handed to a GPU-aware MPI
  nccl,        ///< NCCL point-to-point on the solver's stream (one rank per GPU)
};

/// "automatic", "staged", "mpi_device", "nccl".
std::string name(Transport t);

/// Whether the MPI library takes device pointers of this build's GPU backend (Open MPI's
/// MPIX_Query_cuda_support / MPIX_Query_rocm_support); false on CPU builds. Call after MPI_Init.
bool mpi_is_device_aware();

}  // namespace ppsparse::dist

#pragma once
/// @file
/// How a distributed solver's messages travel, chosen at run time and reported.
#include <string>

namespace ppsparse::distributed {

/// The exchange's transport.
enum class Transport {
  automatic,   ///< GPU-aware MPI where the library is, else NCCL where usable, else staged
  staged,      ///< through pinned host buffers: works everywhere
  mpi_device,  ///< device buffers handed to a GPU-aware MPI
  nccl,        ///< NCCL point-to-point on the solver's stream (one rank per GPU)
  peer,        ///< device-initiated copies into the neighbours' memory (GPUs of one node, CUDA IPC)
};

/// "automatic", "staged", "mpi_device", "nccl", "peer".
std::string name(Transport t);

}  // namespace ppsparse::distributed

#pragma once
/// @file
/// Memory that another library allocated and hands to ppsparse by address (CuPy, Numba or
/// PyTorch arrays through Python's __cuda_array_interface__): where it lives, and how to order
/// ppsparse's work after the stream its producer wrote it on.
///
/// Chosen by overloading on the execution space: the templates answer for host backends
/// (every address is host memory; there are no streams); backends/cuda and backends/hip ask
/// their runtime.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace ppsparse::backend {

/// What the runtime of an execution space knows of an address.
enum class MemoryKind {
  host,     ///< host memory, or an address the runtime did not allocate
  device,   ///< memory of one GPU
  managed,  ///< managed (unified) memory, reachable from the host and the GPUs
};

/// Where an address lives.
struct MemoryLocation {
  MemoryKind kind = MemoryKind::host;
  int device = -1;  ///< the GPU of device memory (-1 for host memory)
};

/// Where `address` lives, for exec's runtime; host backends: host memory.
template <class ExecSpace>
MemoryLocation locate_memory(const ExecSpace& /*exec*/, const void* /*address*/) {
  return {};
}

/// The GPU exec runs on; -1 for host backends.
template <class ExecSpace>
int device_of(const ExecSpace& /*exec*/) {
  return -1;
}

/// Work enqueued on exec after this call starts after all work enqueued on `stream` before it,
/// without blocking the host where the backend can. `stream` is a stream of exec's runtime as
/// __cuda_array_interface__ (version 3) gives it: a handle, 1 for the legacy default stream or 2
/// for the per-thread default stream. Host backends have no streams: nothing to do.
template <class ExecSpace>
void order_after_stream(const ExecSpace& /*exec*/, std::uintptr_t /*stream*/) {}

}  // namespace ppsparse::backend

// The backends' overloads (backend/backends.hpp).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_FOREIGN_MEMORY_HOOKS(Exec, NAME)                      \
  MemoryLocation locate_memory(const Exec& exec, const void* address); \
  int device_of(const Exec& exec);                                     \
  void order_after_stream(const Exec& exec, std::uintptr_t stream);
namespace ppsparse::backend {
PPSPARSE_DECLARE_BACKEND_HOOKS(FOREIGN_MEMORY, PPSPARSE_FOREIGN_MEMORY_HOOKS)
}  // namespace ppsparse::backend

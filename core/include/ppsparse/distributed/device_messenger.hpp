#pragma once
/// @file
/// Device-to-device messages enqueued on an execution-space instance's stream (NCCL's
/// point-to-point on CUDA), for the GPUs of one node when the MPI library is not GPU-aware.
/// Chosen by overloading on the execution space (mcpi/backend.hpp's way): the template is the
/// portable fallback (none); backends/cuda/dist defines the Kokkos::Cuda overload.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

namespace ppsparse::distributed {

/// One message: `bytes` bytes at `offset` of a buffer, to or from rank `peer`.
struct Message {
  int peer = 0;
  std::size_t offset = 0;
  std::size_t bytes = 0;
  /// A send only, to a messenger that gathers(): the message is rows rows[0], rows[1], ... of
  /// the send buffer, each `row_bytes` long (bytes / row_bytes of them; a device array), rather
  /// than the bytes at offset. The messenger reads them in place, so the caller packs nothing.
  const ordinal_t* rows = nullptr;
  std::size_t row_bytes = 0;
};

/// Posts messages on a stream (see the file comment). Collective over its communicator.
template <class ExecSpace>
class DeviceMessenger {
 public:
  virtual ~DeviceMessenger() = default;
  /// Enqueues on exec's stream, as one group, every receive into recv and every send from send
  /// (device buffers); later work on exec's stream sees the received bytes. The group's device
  /// time is kept under `slot` until elapsed(slot) reads it; slot < 0: not timed (the exchange
  /// is being recorded into a device graph, where nothing may be read back).
  virtual void exchange(const ExecSpace& exec, const void* send, const std::vector<Message>& sends, void* recv,
                        const std::vector<Message>& recvs, int slot) = 0;
  /// Whether exchange() needs the colour of an untimed exchange (slot < 0): the peer messenger
  /// keys its mapped buffers by colour; then exchange_untimed is called instead.
  virtual void exchange_untimed(const ExecSpace& exec, const void* send, const std::vector<Message>& sends, void* recv,
                                const std::vector<Message>& recvs, int colour) {
    (void)colour;
    exchange(exec, send, sends, recv, recvs, -1);
  }
  /// The device time of the last exchange under `slot` not read yet (waiting for the peers
  /// included), then 0; synchronises with that exchange.
  virtual double elapsed(int slot) = 0;
  /// "NCCL 2.28.9", ...
  virtual std::string name() const = 0;
  /// Whether exchange() takes sends given by rows (Message::rows): the peer messenger writes
  /// them straight from dQ; NCCL needs each message consecutive.
  virtual bool gathers() const { return false; }
  /// Throws Error where an exchange enqueued earlier failed on the device (the peer messenger's
  /// wait that timed out); synchronises where it has something to read.
  virtual void check() {}
};

/// The backend's messenger for exec's device over comm (collective: every rank calls it and
/// every rank gets one, or none with the same reason in why_not).
template <class ExecSpace>
std::unique_ptr<DeviceMessenger<ExecSpace>> make_device_messenger(const ExecSpace&, MPI_Comm, std::string& why_not) {
  why_not = std::string("no device messenger on ") + ExecSpace::name();
  return nullptr;
}

/// Device-initiated exchanges between the GPUs of one node (each rank writes its messages into
/// its neighbours' memory, mapped once by CUDA IPC): collective over comm; none, with the reason
/// in why_not (the same on every rank), where the backend or the ranks' GPUs do not allow it.
template <class ExecSpace>
std::unique_ptr<DeviceMessenger<ExecSpace>> make_peer_messenger(const ExecSpace&, MPI_Comm, std::string& why_not) {
  why_not = std::string("no peer messenger on ") + ExecSpace::name();
  return nullptr;
}

/// Whether the MPI library takes exec's device pointers (a GPU-aware MPI); false here, where
/// no backend says otherwise (the CUDA and HIP backends ask Open MPI's MPIX_Query_*_support).
/// Call after MPI_Init.
template <class ExecSpace>
bool mpi_is_device_aware(const ExecSpace&) {
  return false;
}

}  // namespace ppsparse::distributed

// The backends' overloads (backend/backends.hpp): whether the MPI library takes the device's
// pointers, and the device-initiated messengers (NCCL; peer copies between the GPUs of a node).
#include <ppsparse/backend/backends.hpp>
#define PPSPARSE_DEVICE_AWARE_MPI_HOOKS(Exec, NAME) bool mpi_is_device_aware(const Exec& exec);
#define PPSPARSE_DEVICE_MESSENGER_HOOKS(Exec, NAME)                                                                    \
  std::unique_ptr<DeviceMessenger<Exec>> make_device_messenger(const Exec& exec, MPI_Comm comm, std::string& why_not); \
  std::unique_ptr<DeviceMessenger<Exec>> make_peer_messenger(const Exec& exec, MPI_Comm comm, std::string& why_not);
namespace ppsparse::distributed {
PPSPARSE_DECLARE_BACKEND_HOOKS(DEVICE_AWARE_MPI, PPSPARSE_DEVICE_AWARE_MPI_HOOKS)
PPSPARSE_DECLARE_BACKEND_HOOKS(DEVICE_MESSENGER, PPSPARSE_DEVICE_MESSENGER_HOOKS)
}  // namespace ppsparse::distributed

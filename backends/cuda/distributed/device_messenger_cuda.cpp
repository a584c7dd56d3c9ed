// NCCL point-to-point for the distributed MCPI on CUDA (dist/device_messenger.hpp).
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#if defined(PPSPARSE_HAVE_NCCL)
#include <nccl.h>
#endif

#include <ppsparse/distributed/collective.hpp>
#include <ppsparse/distributed/device_messenger.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::distributed {

#if defined(PPSPARSE_HAVE_NCCL)
namespace {

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string("NCCL: ") + what + ": " + ncclGetErrorString(r));
}
void check_cuda(cudaError_t r, const char* what) {
  if (r != cudaSuccess) throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(r));
}

class NcclMessenger final : public DeviceMessenger<Kokkos::Cuda> {
 public:
  NcclMessenger(const ncclUniqueId& id, int rank, int size) {
    check_nccl(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
    int version = 0;
    ncclGetVersion(&version);
    name_ = "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
            std::to_string(version % 100);
  }
  ~NcclMessenger() override {
    for (Slot& s : slots_) {
      cudaEventDestroy(s.begin);
      cudaEventDestroy(s.end);
    }
    ncclCommDestroy(comm_);
  }
  void exchange(const Kokkos::Cuda& exec, const void* send, const std::vector<Message>& sends, void* recv,
                const std::vector<Message>& recvs, int slot) override {
    const cudaStream_t stream = exec.cuda_stream();
    Slot* t = slot >= 0 ? &this->slot(slot) : nullptr;
    if (t) cudaEventRecord(t->begin, stream);
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (const Message& m : recvs)
      check_nccl(ncclRecv(static_cast<char*>(recv) + m.offset, m.bytes, ncclUint8, m.peer, comm_, stream), "ncclRecv");
    for (const Message& m : sends)
      check_nccl(ncclSend(static_cast<const char*>(send) + m.offset, m.bytes, ncclUint8, m.peer, comm_, stream),
                 "ncclSend");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    if (t) {
      cudaEventRecord(t->end, stream);
      t->pending = true;
    }
  }
  double elapsed(int slot) override {
    if (slot < 0 || static_cast<size_t>(slot) >= slots_.size() || !slots_[slot].pending) return 0.0;
    Slot& t = slots_[slot];
    t.pending = false;
    check_cuda(cudaEventSynchronize(t.end), "cudaEventSynchronize");
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, t.begin, t.end);
    return 1e-3 * ms;
  }
  std::string name() const override { return name_; }

 private:
  struct Slot {
    cudaEvent_t begin = nullptr, end = nullptr;
    bool pending = false;
  };
  Slot& slot(int i) {
    while (slots_.size() <= static_cast<size_t>(i)) {
      Slot t;
      check_cuda(cudaEventCreate(&t.begin), "cudaEventCreate");
      check_cuda(cudaEventCreate(&t.end), "cudaEventCreate");
      slots_.push_back(t);
    }
    return slots_[i];
  }
  ncclComm_t comm_ = nullptr;
  std::vector<Slot> slots_;
  std::string name_;
};

}  // namespace
#endif

std::unique_ptr<DeviceMessenger<Kokkos::Cuda>> make_device_messenger(const Kokkos::Cuda& exec, MPI_Comm comm,
                                                                     std::string& why_not) {
#if defined(PPSPARSE_HAVE_NCCL)
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // NCCL takes one rank per GPU: the GPUs' UUIDs of every rank, compared.
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, exec.cuda_device());
  std::vector<char> uuids(static_cast<size_t>(size) * sizeof prop.uuid.bytes);
  MPI_Allgather(prop.uuid.bytes, sizeof prop.uuid.bytes, MPI_BYTE, uuids.data(), sizeof prop.uuid.bytes, MPI_BYTE,
                comm);
  const size_t w = sizeof prop.uuid.bytes;
  for (int a = 0; a < size; ++a)
    for (int b = a + 1; b < size; ++b)
      if (std::memcmp(uuids.data() + a * w, uuids.data() + b * w, w) == 0) {
        why_not = "ranks " + std::to_string(a) + " and " + std::to_string(b) +
                  " share a GPU, and NCCL takes one rank per GPU";
        return nullptr;
      }
  // Rank 0's unique id (or its failure) to every rank, then the communicator.
  struct {
    int result;
    ncclUniqueId id;
  } boot{};
  if (rank == 0) boot.result = static_cast<int>(ncclGetUniqueId(&boot.id));
  MPI_Bcast(&boot, sizeof boot, MPI_BYTE, 0, comm);
  if (boot.result != ncclSuccess)
    throw Error(std::string("NCCL: ncclGetUniqueId on rank 0: ") +
                ncclGetErrorString(static_cast<ncclResult_t>(boot.result)));
  std::unique_ptr<DeviceMessenger<Kokkos::Cuda>> m;
  collectively(comm, [&] { m = std::make_unique<NcclMessenger>(boot.id, rank, size); });
  why_not.clear();
  return m;
#else
  (void)exec;
  (void)comm;
  why_not = "ppsparse was built without NCCL";
  return nullptr;
#endif
}

}  // namespace ppsparse::distributed

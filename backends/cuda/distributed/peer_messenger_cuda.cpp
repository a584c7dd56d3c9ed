// Device-initiated exchanges between the GPUs of one node (dist/device_messenger.hpp's
// make_peer_messenger): at a colour's first exchange each rank maps, by CUDA IPC, the receive
// buffer and the flags of every rank it sends to. From then on an exchange is one kernel on the
// exchange's stream and no host step: its first blocks gather each message's rows from dQ and
// write them straight into the receiver's ghost slots over NVLink, then raise the receiver's
// flag for (colour, sender) with release semantics; its last block waits, with acquire
// semantics, for the flags of the messages this rank receives. So the exchange can be recorded
// into a device graph, as one node.
//
// Flags count exchanges: a sender's n-th exchange of a colour sets the flag to n, and the
// receiver's n-th wait for it returns once it reads n. Both counters live on the devices, so a
// graph replays them correctly. The sender may overwrite a colour's ghost slots only after the
// receiver has read them: that holds by the sweep's own order (the receiver's rows that read a
// ghost are boundary rows that the sender itself waits for before it computes that colour again).
// A wait that sees no flag for 30 s records an error instead of spinning on, which the next
// elapsed() or check() reports. The waiting block cannot starve the writing blocks of the same
// kernel: it holds one block's resources, and the writers of the other ranks depend on nothing
// of this rank's.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cuda/atomic>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <ppsparse/distributed/collective.hpp>
#include <ppsparse/distributed/device_messenger.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::distributed {

namespace {

constexpr int kMaxColours = 256;  // flags per sender; a colouring has a few dozen colours at most
constexpr unsigned long long kWaitLimitNs = 30ull * 1000 * 1000 * 1000;

void check_cuda(cudaError_t r, const char* what) {
  if (r != cudaSuccess) throw Error(std::string("peer exchange: ") + what + ": " + cudaGetErrorString(r));
}

/// One message to write: words of 4 bytes (dQ's entries are float or double).
struct Copy {
  const unsigned* source;  // the message's first word, or dQ where rows is set
  const ordinal_t* rows;   // null, or the message's rows of dQ, row_words words each
  unsigned row_words;
  unsigned* target;  // in the receiver's buffer, mapped here
  unsigned long long words;
  unsigned long long* flag;     // the receiver's flag for (colour, this rank), mapped here
  unsigned long long* arrived;  // blocks of this rank's exchanges of the colour with that receiver that are done
};

// Blocks that write one message: one SM's stores alone reach a fraction of the link's
// bandwidth, so a message of a big colour is spread over up to this many SMs.
constexpr int kMaxBlocksPerMessage = 16;
constexpr int kExchangeThreads = 256;

/// One message to wait for.
struct Wait {
  unsigned long long* flag;   // this rank's flag for (colour, sender)
  unsigned long long* count;  // this rank's waits for it
};

/// One colour's exchange, as the kernel reads it.
struct Exchange {
  const Copy* copies;
  int ncopies;
  int blocks_per_message;  // X
  const Wait* waits;
  int nwaits;
  int* timed_out;
};

// Blocks [0, ncopies * X) write: block x of message y writes words x*T + t, (x + X)*T + t, ...;
// the last of the message's X blocks to finish raises the flag. Exchange n of the message is
// complete when n * X blocks have arrived (the exchanges of one stream run one after the other).
// The blocks after them wait, one thread per message received.
__global__ void exchange_messages(const Exchange e) {
  const int writers = e.ncopies * e.blocks_per_message;
  if (static_cast<int>(blockIdx.x) >= writers) {
    const int m = (blockIdx.x - writers) * blockDim.x + threadIdx.x;
    if (m >= e.nwaits) return;
    const Wait w = e.waits[m];
    const unsigned long long want = ++*w.count;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> flag(*w.flag);
    unsigned long long start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (flag.load(cuda::memory_order_acquire) < want) {
      __nanosleep(64);
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      if (now - start > kWaitLimitNs) {
        atomicExch(e.timed_out, 1);
        return;
      }
    }
    return;
  }
  const Copy c = e.copies[blockIdx.x / e.blocks_per_message];
  const unsigned long long x = blockIdx.x % e.blocks_per_message;
  const unsigned long long stride = static_cast<unsigned long long>(e.blocks_per_message) * blockDim.x;
  if (c.rows) {
    for (unsigned long long i = x * blockDim.x + threadIdx.x; i < c.words; i += stride) {
      const unsigned long long r = i / c.row_words;
      c.target[i] = c.source[static_cast<unsigned long long>(c.rows[r]) * c.row_words + (i - r * c.row_words)];
    }
  } else {
    for (unsigned long long i = x * blockDim.x + threadIdx.x; i < c.words; i += stride) c.target[i] = c.source[i];
  }
  __threadfence_system();  // every thread's writes before its block's arrival
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned long long done = atomicAdd(c.arrived, 1ull) + 1;
    if (done % e.blocks_per_message == 0) {
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> flag(*c.flag);
      flag.store(done / e.blocks_per_message, cuda::memory_order_release);
    }
  }
}

/// What a receiver tells a sender of one message, once per colour.
struct Landing {
  cudaIpcMemHandle_t buffer;  // the allocation holding the receive buffer
  unsigned long long offset;  // of the message's first byte in that allocation
  unsigned long long bytes;
  cudaIpcMemHandle_t flags;
  unsigned long long flag;  // index of the flag for (colour, sender)
};

/// The allocation holding a device address, and the address's offset in it.
void allocation_of(const void* p, void*& base, unsigned long long& offset) {
  CUdeviceptr b = 0;
  size_t size = 0;
  if (cuMemGetAddressRange(&b, &size, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS)
    throw Error("peer exchange: cuMemGetAddressRange failed on a receive buffer");
  base = reinterpret_cast<void*>(b);
  offset = static_cast<unsigned long long>(reinterpret_cast<CUdeviceptr>(p) - b);
}

class PeerMessenger final : public DeviceMessenger<Kokkos::Cuda> {
 public:
  PeerMessenger(MPI_Comm comm, int size) : size_(size) {
    MPI_Comm_dup(comm, &comm_);
    check_cuda(cudaMalloc(&flags_, sizeof(unsigned long long) * kMaxColours * size_), "cudaMalloc");
    check_cuda(cudaMemset(flags_, 0, sizeof(unsigned long long) * kMaxColours * size_), "cudaMemset");
    // Counters: sends then waits, per (colour, peer).
    check_cuda(cudaMalloc(&counts_, 2 * sizeof(unsigned long long) * kMaxColours * size_), "cudaMalloc");
    check_cuda(cudaMemset(counts_, 0, 2 * sizeof(unsigned long long) * kMaxColours * size_), "cudaMemset");
    check_cuda(cudaMalloc(&timed_out_, sizeof(int)), "cudaMalloc");
    check_cuda(cudaMemset(timed_out_, 0, sizeof(int)), "cudaMemset");
    check_cuda(cudaIpcGetMemHandle(&flags_handle_, flags_), "cudaIpcGetMemHandle (flags)");
  }
  ~PeerMessenger() override {
    // Colours never exchanged have no events. A destructor cannot throw: the runtime's last
    // error is cleared, so that no later call is blamed for a failure here.
    for (auto& [key, p] : mapped_) cudaIpcCloseMemHandle(p);
    for (Colour& c : colours_) {
      cudaFree(c.copies);
      cudaFree(c.waits);
      if (c.begin) cudaEventDestroy(c.begin);
      if (c.end) cudaEventDestroy(c.end);
    }
    cudaFree(flags_);
    cudaFree(counts_);
    cudaFree(timed_out_);
    (void)cudaGetLastError();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }

  void exchange(const Kokkos::Cuda& exec, const void* send, const std::vector<Message>& sends, void* recv,
                const std::vector<Message>& recvs, int slot) override {
    if (slot < 0) throw std::logic_error("peer exchange: an untimed exchange needs its colour (exchange_untimed)");
    enqueue(exec, send, sends, recv, recvs, slot, true);
  }
  void exchange_untimed(const Kokkos::Cuda& exec, const void* send, const std::vector<Message>& sends, void* recv,
                        const std::vector<Message>& recvs, int colour) override {
    enqueue(exec, send, sends, recv, recvs, colour, false);
  }

  double elapsed(int slot) override {
    report_failure();
    if (slot < 0 || static_cast<size_t>(slot) >= colours_.size() || !colours_[slot].pending) return 0.0;
    Colour& c = colours_[slot];
    c.pending = false;
    check_cuda(cudaEventSynchronize(c.end), "cudaEventSynchronize");
    float ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&ms, c.begin, c.end), "cudaEventElapsedTime");
    report_timeout();
    return 1e-3 * ms;
  }
  std::string name() const override { return "device-initiated peer copies (CUDA IPC)"; }
  bool gathers() const override { return true; }
  void check() override { report_failure(); }

 private:
  struct Colour {
    bool ready = false, pending = false;
    const void* send = nullptr;
    void* recv = nullptr;
    Copy* copies = nullptr;  // device arrays
    Wait* waits = nullptr;
    int ncopies = 0, nwaits = 0;
    unsigned blocks_per_message = 1;  // fixed at the first exchange: the arrival counts depend on it
    cudaEvent_t begin = nullptr, end = nullptr;
  };

  void report_failure() {
    if (!setup_failure_.empty()) throw Error(setup_failure_);
    report_timeout();
  }
  void report_timeout() {
    int flag = 0;
    check_cuda(cudaMemcpy(&flag, timed_out_, sizeof flag, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (flag)
      throw Error(
          "peer exchange: a message did not arrive within 30 s (a neighbour stopped, or the ranks "
          "exchange in different orders)");
  }

  void* map(int peer, const cudaIpcMemHandle_t& h) {
    std::string key(reinterpret_cast<const char*>(&h), sizeof h);
    key += std::to_string(peer);
    auto it = mapped_.find(key);
    if (it != mapped_.end()) return it->second;
    void* p = nullptr;
    check_cuda(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
    mapped_.emplace(key, p);
    return p;
  }

  /// A colour's first exchange: every receiver tells its senders where their messages land (MPI,
  /// host), and the copies and waits are built on the device.
  void set_up(Colour& c, int colour, const void* send, const std::vector<Message>& sends, void* recv,
              const std::vector<Message>& recvs) {
    std::vector<Landing> out(recvs.size()), in(sends.size());
    std::vector<MPI_Request> requests;
    requests.reserve(sends.size() + recvs.size());
    const int tag = 7000 + colour;
    void* base = nullptr;
    unsigned long long offset = 0;
    for (size_t k = 0; k < recvs.size(); ++k) {
      const Message& m = recvs[k];
      allocation_of(static_cast<char*>(recv) + m.offset, base, offset);
      check_cuda(cudaIpcGetMemHandle(&out[k].buffer, base), "cudaIpcGetMemHandle (receive buffer)");
      out[k].offset = offset;
      out[k].bytes = m.bytes;
      out[k].flags = flags_handle_;
      out[k].flag = static_cast<unsigned long long>(colour) * size_ + m.peer;
      requests.emplace_back();
      MPI_Isend(&out[k], sizeof(Landing), MPI_BYTE, m.peer, tag, comm_, &requests.back());
    }
    for (size_t k = 0; k < sends.size(); ++k) {
      requests.emplace_back();
      MPI_Irecv(&in[k], sizeof(Landing), MPI_BYTE, sends[k].peer, tag, comm_, &requests.back());
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    std::vector<Copy> copies(sends.size());
    for (size_t k = 0; k < sends.size(); ++k) {
      const Message& m = sends[k];
      if (in[k].bytes != m.bytes || m.bytes % 4 != 0 || m.offset % 4 != 0 || m.row_bytes % 4 != 0 ||
          (m.rows && (m.row_bytes == 0 || m.bytes % m.row_bytes != 0)))
        throw std::logic_error("peer exchange: a message's sizes differ between its sender and its receiver");
      char* target = static_cast<char*>(map(m.peer, in[k].buffer)) + in[k].offset;
      auto* flags = static_cast<unsigned long long*>(map(m.peer, in[k].flags));
      copies[k] = {reinterpret_cast<const unsigned*>(static_cast<const char*>(send) + (m.rows ? 0 : m.offset)),
                   m.rows,
                   static_cast<unsigned>(m.row_bytes / 4),
                   reinterpret_cast<unsigned*>(target),
                   m.bytes / 4,
                   flags + in[k].flag,
                   counts_ + static_cast<size_t>(colour) * size_ + m.peer};
    }
    std::vector<Wait> waits(recvs.size());
    for (size_t k = 0; k < recvs.size(); ++k)
      waits[k] = {flags_ + static_cast<size_t>(colour) * size_ + recvs[k].peer,
                  counts_ + static_cast<size_t>(kMaxColours + colour) * size_ + recvs[k].peer};
    unsigned long long longest = 0;
    for (const Message& m : sends) longest = std::max<unsigned long long>(longest, m.bytes / 4);
    c.blocks_per_message = static_cast<unsigned>(std::clamp<unsigned long long>(
        (longest + 8ull * kExchangeThreads - 1) / (8ull * kExchangeThreads), 1, kMaxBlocksPerMessage));
    c.ncopies = static_cast<int>(copies.size());
    c.nwaits = static_cast<int>(waits.size());
    if (c.ncopies) {
      check_cuda(cudaMalloc(&c.copies, sizeof(Copy) * copies.size()), "cudaMalloc");
      check_cuda(cudaMemcpy(c.copies, copies.data(), sizeof(Copy) * copies.size(), cudaMemcpyHostToDevice),
                 "cudaMemcpy");
    }
    if (c.nwaits) {
      check_cuda(cudaMalloc(&c.waits, sizeof(Wait) * waits.size()), "cudaMalloc");
      check_cuda(cudaMemcpy(c.waits, waits.data(), sizeof(Wait) * waits.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    check_cuda(cudaEventCreate(&c.begin), "cudaEventCreate");
    check_cuda(cudaEventCreate(&c.end), "cudaEventCreate");
    c.send = send;
    c.recv = recv;
    c.ready = true;
  }

  void enqueue(const Kokkos::Cuda& exec, const void* send, const std::vector<Message>& sends, void* recv,
               const std::vector<Message>& recvs, int colour, bool timed) {
    if (colour < 0 || colour >= kMaxColours)
      throw InvalidArgument("peer exchange: colour " + std::to_string(colour) + " of more than " +
                            std::to_string(kMaxColours));
    if (!setup_failure_.empty()) return;
    if (static_cast<size_t>(colour) >= colours_.size()) colours_.resize(colour + 1);
    Colour& c = colours_[colour];
    if (!c.ready) {
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      check_cuda(cudaStreamIsCapturing(exec.cuda_stream(), &capturing), "cudaStreamIsCapturing");
      if (capturing != cudaStreamCaptureStatusNone)
        throw std::logic_error("peer exchange: a colour's first exchange inside a recording");
      // A mapping that fails here (no peer access between two of the GPUs) is this rank's
      // alone: it sends nothing from now on, and report_failure() throws it, while the ranks
      // that wait for its messages time out. MpiHalo::sum then agrees it on every rank.
      try {
        set_up(c, colour, send, sends, recv, recvs);
      } catch (const std::exception& e) {
        setup_failure_ = e.what();
      }
    } else if (c.send != send || c.recv != recv) {
      throw std::logic_error("peer exchange: a colour's buffers moved since its first exchange");
    }
    if (!setup_failure_.empty()) return;
    const cudaStream_t stream = exec.cuda_stream();
    if (timed) check_cuda(cudaEventRecord(c.begin, stream), "cudaEventRecord");
    const int blocks =
        c.ncopies * static_cast<int>(c.blocks_per_message) + (c.nwaits + kExchangeThreads - 1) / kExchangeThreads;
    if (blocks > 0) {
      // An error left by an earlier call is not this launch's: say so rather than blame it.
      const cudaError_t earlier = cudaGetLastError();
      if (earlier != cudaSuccess)
        throw Error(std::string("peer exchange: a CUDA call before colour ") + std::to_string(colour) +
                    "'s exchange failed: " + cudaGetErrorString(earlier));
      const Exchange e{c.copies, c.ncopies, static_cast<int>(c.blocks_per_message), c.waits, c.nwaits, timed_out_};
      exchange_messages<<<blocks, kExchangeThreads, 0, stream>>>(e);
      const cudaError_t launched = cudaGetLastError();
      if (launched != cudaSuccess) {
        int current = -1;
        cudaGetDevice(&current);
        throw Error("peer exchange: colour " + std::to_string(colour) + "'s kernel (" + std::to_string(blocks) +
                    " blocks) on device " + std::to_string(exec.cuda_device()) + " (current device " +
                    std::to_string(current) + "): " + cudaGetErrorString(launched));
      }
    }
    if (timed) {
      check_cuda(cudaEventRecord(c.end, stream), "cudaEventRecord");
      c.pending = true;
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int size_ = 1;
  unsigned long long* flags_ = nullptr;   // [colour][sender]
  unsigned long long* counts_ = nullptr;  // [blocks arrived of sends, waits][colour][peer]
  int* timed_out_ = nullptr;
  std::string setup_failure_;  // a colour's first exchange failed on this rank (its message)
  cudaIpcMemHandle_t flags_handle_{};
  std::vector<Colour> colours_;
  std::map<std::string, void*> mapped_;  // (handle, peer) -> address here
};

}  // namespace

std::unique_ptr<DeviceMessenger<Kokkos::Cuda>> make_peer_messenger(const Kokkos::Cuda& exec, MPI_Comm comm,
                                                                   std::string& why_not) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Every rank on one node, each with its own GPU, each GPU able to reach every other's memory.
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  // The GPUs by UUID (ordinals differ between processes), then each peer's ordinal here.
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, exec.cuda_device());
  const size_t w = sizeof prop.uuid.bytes;
  std::vector<char> uuids(static_cast<size_t>(size) * w);
  MPI_Allgather(prop.uuid.bytes, static_cast<int>(w), MPI_BYTE, uuids.data(), static_cast<int>(w), MPI_BYTE, comm);
  int devices = 0;
  cudaGetDeviceCount(&devices);
  int distinct = 1, reach = 1;
  for (int q = 0; q < size; ++q) {
    if (q == rank) continue;
    const char* u = uuids.data() + q * w;
    if (std::memcmp(u, prop.uuid.bytes, w) == 0) distinct = 0;
    int ordinal = -1;
    for (int d = 0; d < devices && ordinal < 0; ++d) {
      cudaDeviceProp other;
      if (cudaGetDeviceProperties(&other, d) == cudaSuccess && std::memcmp(other.uuid.bytes, u, w) == 0) ordinal = d;
    }
    int can = 0;
    if (ordinal >= 0 && ordinal != exec.cuda_device() &&
        cudaDeviceCanAccessPeer(&can, exec.cuda_device(), ordinal) != cudaSuccess)
      can = 0;
    if (!can) reach = 0;
  }
  int local[3] = {node_size == size ? 1 : 0, distinct, reach}, everywhere[3] = {0, 0, 0};
  MPI_Allreduce(local, everywhere, 3, MPI_INT, MPI_MIN, comm);
  if (!everywhere[0]) {
    why_not = "the ranks are on more than one node";
    return nullptr;
  }
  if (!everywhere[1]) {
    why_not = "two ranks share a GPU";
    return nullptr;
  }
  if (!everywhere[2]) {
    why_not = "a rank's GPU cannot reach another's memory (not visible to it, or cudaDeviceCanAccessPeer says no)";
    return nullptr;
  }
  std::unique_ptr<DeviceMessenger<Kokkos::Cuda>> m;
  collectively(comm, [&] { m = std::make_unique<PeerMessenger>(comm, size); });
  why_not.clear();
  return m;
}

}  // namespace ppsparse::distributed

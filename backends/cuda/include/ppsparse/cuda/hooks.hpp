/// @file
/// The CUDA backend's overloads of core's hooks, for Kokkos::Cuda (backend/backends.hpp). Each
/// section declares the overloads of one family, once, after that family's hook header has
/// declared its portable templates and set its marker; the definitions are in backends/cuda.
// No include guard: included at the end of each family's hook header.

#if defined(PPSPARSE_HOOKS_COMPAT) && !defined(PPSPARSE_CUDA_HOOKS_COMPAT)
#define PPSPARSE_CUDA_HOOKS_COMPAT
namespace ppsparse::compat {
/// A warp.
template <>
struct VectorWidth<Kokkos::Cuda> : std::integral_constant<int, 32> {};
}  // namespace ppsparse::compat
#endif

#if defined(PPSPARSE_HOOKS_L2_WINDOW) && !defined(PPSPARSE_CUDA_HOOKS_L2_WINDOW)
#define PPSPARSE_CUDA_HOOKS_L2_WINDOW
namespace ppsparse::backend {
/// The access-policy window on exec.cuda_stream() (l2_window_cuda.cpp).
L2Window l2_window_begin(const Kokkos::Cuda& exec, const void* base, std::size_t bytes);
void l2_window_move(const Kokkos::Cuda& exec, L2Window& w, const void* base, std::size_t bytes);
void l2_window_end(const Kokkos::Cuda& exec, L2Window& w);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_DEVICE_TIMER) && !defined(PPSPARSE_CUDA_HOOKS_DEVICE_TIMER)
#define PPSPARSE_CUDA_HOOKS_DEVICE_TIMER
namespace ppsparse::backend {
/// DeviceTimer on CUDA: events on the instance's stream (device_timer_cuda.cpp).
template <>
class DeviceTimer<Kokkos::Cuda> : public EventTimer<Kokkos::Cuda> {
 public:
  explicit DeviceTimer(const Kokkos::Cuda& space = Kokkos::Cuda()) : EventTimer<Kokkos::Cuda>(space) {}
};
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_INSTANCE_ORDER) && !defined(PPSPARSE_CUDA_HOOKS_INSTANCE_ORDER)
#define PPSPARSE_CUDA_HOOKS_INSTANCE_ORDER
namespace ppsparse::backend {
/// An event recorded on producer's stream, waited for by waiter's; a stream of the highest
/// priority (instance_order_cuda.cpp).
void order_after(const Kokkos::Cuda& waiter, const Kokkos::Cuda& producer);
Kokkos::Cuda priority_instance(const Kokkos::Cuda& exec);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_FOREIGN_MEMORY) && !defined(PPSPARSE_CUDA_HOOKS_FOREIGN_MEMORY)
#define PPSPARSE_CUDA_HOOKS_FOREIGN_MEMORY
namespace ppsparse::backend {
/// The runtime's pointer attributes, device and streams (foreign_memory_cuda.cpp).
MemoryLocation locate_memory(const Kokkos::Cuda& exec, const void* address);
int device_of(const Kokkos::Cuda& exec);
void order_after_stream(const Kokkos::Cuda& exec, std::uintptr_t stream);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_DEVICE_GRAPH) && !defined(PPSPARSE_CUDA_HOOKS_DEVICE_GRAPH)
#define PPSPARSE_CUDA_HOOKS_DEVICE_GRAPH
namespace ppsparse::backend {
/// Stream capture into CUDA graphs (device_graph_cuda.cpp).
bool can_record_graph(const Kokkos::Cuda& exec, std::string& why_not);
void begin_graph(const Kokkos::Cuda& exec);
DeviceGraph end_graph(const Kokkos::Cuda& exec);
void replay_graph(const Kokkos::Cuda& exec, const DeviceGraph& g);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_MULTIPROCESSORS) && !defined(PPSPARSE_CUDA_HOOKS_MULTIPROCESSORS)
#define PPSPARSE_CUDA_HOOKS_MULTIPROCESSORS
namespace ppsparse::backend {
/// The properties of exec's device (multiprocessors_cuda.cpp).
MultiprocessorLimits multiprocessor_limits(const Kokkos::Cuda& exec);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_LAST_LEVEL_CACHE) && !defined(PPSPARSE_CUDA_HOOKS_LAST_LEVEL_CACHE)
#define PPSPARSE_CUDA_HOOKS_LAST_LEVEL_CACHE
namespace ppsparse::backend {
/// The L2 of exec's device (last_level_cache_cuda.cpp).
std::size_t last_level_cache_bytes(const Kokkos::Cuda& exec);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_DEVICE_MESSENGER) && !defined(PPSPARSE_CUDA_HOOKS_DEVICE_MESSENGER)
#define PPSPARSE_CUDA_HOOKS_DEVICE_MESSENGER
namespace ppsparse::distributed {
/// NCCL where ppsparse was built with it and every rank has a GPU of its own (NCCL refuses two
/// ranks on one GPU) (dist/device_messenger_cuda.cpp).
std::unique_ptr<DeviceMessenger<Kokkos::Cuda>> make_device_messenger(const Kokkos::Cuda& exec, MPI_Comm comm,
                                                                     std::string& why_not);
/// CUDA IPC and kernels that write into the neighbours' memory, where every rank is on one node
/// with a GPU of its own that can reach the others' (dist/peer_messenger_cuda.cpp).
std::unique_ptr<DeviceMessenger<Kokkos::Cuda>> make_peer_messenger(const Kokkos::Cuda& exec, MPI_Comm comm,
                                                                   std::string& why_not);
/// Open MPI's MPIX_Query_cuda_support, where the library has it (dist/mpi_device_aware_cuda.cpp).
bool mpi_is_device_aware(const Kokkos::Cuda& exec);
}  // namespace ppsparse::distributed
#endif

#if defined(PPSPARSE_HOOKS_MCPI) && !defined(PPSPARSE_CUDA_HOOKS_MCPI)
#define PPSPARSE_CUDA_HOOKS_MCPI
namespace ppsparse::mcpi::backend {
/// The features of exec's device; kernels for rows_per_warp and warp_per_row at every nb,
/// launched on exec.cuda_stream() (mcpi_backend_cuda.cpp, mcpi/).
Features features(const Kokkos::Cuda& exec);
/// With O in a reduced format (mcpi/o_format.hpp): rows_per_warp for nb <= 15.
bool has_kernel(const Kokkos::Cuda& exec, Kernel k, int nb, OFormat f = OFormat::fp32);
/// rows_per_warp at every nb, warp_per_row from nb 16 (the kernel they share there); the
/// reduced formats' kernels too.
bool has_residual_kernel(const Kokkos::Cuda& exec, Kernel k, int nb, OFormat f = OFormat::fp32);
void run(const Kokkos::Cuda& exec, const Variant& v, const ColorArgs& a, const KernelTuning& tuning);
}  // namespace ppsparse::mcpi::backend
#endif

// Device-side helpers of core's kernels (core/src/backend).
#if defined(PPSPARSE_HOOKS_STREAMING_LOAD) && !defined(PPSPARSE_BACKEND_STREAMING_LOAD)
#define PPSPARSE_BACKEND_STREAMING_LOAD
#include <ppsparse/cuda/streaming_load_device.hpp>
#endif
#if defined(PPSPARSE_HOOKS_TEAM_HANDOFF) && !defined(PPSPARSE_BACKEND_TEAM_HANDOFF)
#define PPSPARSE_BACKEND_TEAM_HANDOFF
#include <ppsparse/cuda/team_handoff_device.hpp>
#endif
#if defined(PPSPARSE_HOOKS_TEAM_COPY) && !defined(PPSPARSE_BACKEND_TEAM_COPY)
#define PPSPARSE_BACKEND_TEAM_COPY
#include <ppsparse/cuda/team_copy_device.hpp>
#endif

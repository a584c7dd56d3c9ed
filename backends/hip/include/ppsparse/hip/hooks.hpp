/// @file
/// The HIP backend's overloads of core's hooks, for Kokkos::HIP (backend/backends.hpp). Each
/// section declares the overloads of one family, once, after that family's hook header has
/// declared its portable templates and set its marker; the definitions are in backends/hip.
// No include guard: included at the end of each family's hook header.

#if defined(PPSPARSE_HOOKS_COMPAT) && !defined(PPSPARSE_HIP_HOOKS_COMPAT)
#define PPSPARSE_HIP_HOOKS_COMPAT
namespace ppsparse::compat {
/// The wavefront: 64 on CDNA and GCN, 32 on the RDNA targets Kokkos builds in wave32 (as Kokkos
/// sizes its own warps).
#if defined(KOKKOS_ARCH_AMD_GFX1030) || defined(KOKKOS_ARCH_AMD_GFX1100) || defined(KOKKOS_ARCH_AMD_GFX1103)
template <>
struct VectorWidth<Kokkos::HIP> : std::integral_constant<int, 32> {};
#else
template <>
struct VectorWidth<Kokkos::HIP> : std::integral_constant<int, 64> {};
#endif
}  // namespace ppsparse::compat
#endif

#if defined(PPSPARSE_HOOKS_L2_WINDOW) && !defined(PPSPARSE_HIP_HOOKS_L2_WINDOW)
#define PPSPARSE_HIP_HOOKS_L2_WINDOW
namespace ppsparse::backend {
/// Never active; the note names the architecture (l2_window_hip.cpp).
L2Window l2_window_begin(const Kokkos::HIP& exec, const void* base, std::size_t bytes);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_DEVICE_TIMER) && !defined(PPSPARSE_HIP_HOOKS_DEVICE_TIMER)
#define PPSPARSE_HIP_HOOKS_DEVICE_TIMER
namespace ppsparse::backend {
/// DeviceTimer on HIP: events on the instance's stream (device_timer_hip.cpp).
template <>
class DeviceTimer<Kokkos::HIP> : public EventTimer<Kokkos::HIP> {
 public:
  explicit DeviceTimer(const Kokkos::HIP& space = Kokkos::HIP()) : EventTimer<Kokkos::HIP>(space) {}
};
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_FOREIGN_MEMORY) && !defined(PPSPARSE_HIP_HOOKS_FOREIGN_MEMORY)
#define PPSPARSE_HIP_HOOKS_FOREIGN_MEMORY
namespace ppsparse::backend {
/// The runtime's pointer attributes, device and streams (foreign_memory_hip.cpp).
MemoryLocation locate_memory(const Kokkos::HIP& exec, const void* address);
int device_of(const Kokkos::HIP& exec);
void order_after_stream(const Kokkos::HIP& exec, std::uintptr_t stream);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_DEVICE_GRAPH) && !defined(PPSPARSE_HIP_HOOKS_DEVICE_GRAPH)
#define PPSPARSE_HIP_HOOKS_DEVICE_GRAPH
namespace ppsparse::backend {
/// Stream capture into HIP graphs (device_graph_hip.cpp).
bool can_record_graph(const Kokkos::HIP& exec, std::string& why_not);
void begin_graph(const Kokkos::HIP& exec);
DeviceGraph end_graph(const Kokkos::HIP& exec);
void replay_graph(const Kokkos::HIP& exec, const DeviceGraph& g);
}  // namespace ppsparse::backend
#endif

#if defined(PPSPARSE_HOOKS_DEVICE_MESSENGER) && !defined(PPSPARSE_HIP_HOOKS_DEVICE_MESSENGER)
#define PPSPARSE_HIP_HOOKS_DEVICE_MESSENGER
namespace ppsparse::distributed {
/// Open MPI's MPIX_Query_rocm_support, where the library has it (dist/mpi_device_aware_hip.cpp).
bool mpi_is_device_aware(const Kokkos::HIP& exec);
}  // namespace ppsparse::distributed
#endif

#if defined(PPSPARSE_HOOKS_MCPI) && !defined(PPSPARSE_HIP_HOOKS_MCPI)
#define PPSPARSE_HIP_HOOKS_MCPI
namespace ppsparse::mcpi::backend {
/// The device's features; no specialised kernels (mcpi_backend_hip.cpp).
Features features(const Kokkos::HIP& exec);
}  // namespace ppsparse::mcpi::backend
#endif

// Device-side helpers of core's kernels (core/src/backend).
#if defined(PPSPARSE_HOOKS_STREAMING_LOAD) && !defined(PPSPARSE_BACKEND_STREAMING_LOAD)
#define PPSPARSE_BACKEND_STREAMING_LOAD
#include <ppsparse/hip/streaming_load_device.hpp>
#endif
#if defined(PPSPARSE_HOOKS_TEAM_HANDOFF) && !defined(PPSPARSE_BACKEND_TEAM_HANDOFF)
#define PPSPARSE_BACKEND_TEAM_HANDOFF
#include <ppsparse/hip/team_handoff_device.hpp>
#endif

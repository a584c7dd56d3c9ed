#pragma once
/// @file
/// The hook families backends/hip implements for Kokkos::HIP (backend/backends.hpp): each
/// family's overloads are declared once, in the family's header; the definitions are in
/// backends/hip (the file named beside each line).

#define PPSPARSE_HIP_COMPAT PPSPARSE_IMPLEMENTED  // kokkos_compat.hpp: the wavefront
// 64 on CDNA and GCN, 32 on the RDNA targets Kokkos builds in wave32 (as Kokkos sizes its warps).
#if defined(KOKKOS_ARCH_AMD_GFX1030) || defined(KOKKOS_ARCH_AMD_GFX1100) || defined(KOKKOS_ARCH_AMD_GFX1103)
#define PPSPARSE_HIP_VECTOR_WIDTH 32
#else
#define PPSPARSE_HIP_VECTOR_WIDTH 64
#endif
#define PPSPARSE_HIP_L2_WINDOW PPSPARSE_IMPLEMENTED         // l2_window_hip.cpp (never active)
#define PPSPARSE_HIP_DEVICE_TIMER PPSPARSE_IMPLEMENTED      // device_timer_hip.cpp
#define PPSPARSE_HIP_FOREIGN_MEMORY PPSPARSE_IMPLEMENTED    // foreign_memory_hip.cpp
#define PPSPARSE_HIP_DEVICE_GRAPH PPSPARSE_IMPLEMENTED      // device_graph_hip.cpp
#define PPSPARSE_HIP_DEVICE_AWARE_MPI PPSPARSE_IMPLEMENTED  // distributed/mpi_device_aware_hip.cpp
#define PPSPARSE_HIP_MCPI_FEATURES PPSPARSE_IMPLEMENTED     // mcpi_backend_hip.cpp

// The device-side helpers of core's kernels (core/src/backend) that HIP replaces.
#define PPSPARSE_STREAMING_LOAD_DEVICE <ppsparse/hip/streaming_load_device.hpp>
#define PPSPARSE_TEAM_HANDOFF_DEVICE <ppsparse/hip/team_handoff_device.hpp>

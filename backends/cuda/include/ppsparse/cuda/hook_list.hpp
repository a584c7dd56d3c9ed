#pragma once
/// @file
/// The hook families backends/cuda implements for Kokkos::Cuda (backend/backends.hpp): each
/// family's overloads are declared once, in the family's header; the definitions are in
/// backends/cuda (the file named beside each line).

#define PPSPARSE_CUDA_COMPAT PPSPARSE_IMPLEMENTED  // kokkos_compat.hpp: a warp
#define PPSPARSE_CUDA_VECTOR_WIDTH 32
#define PPSPARSE_CUDA_L2_WINDOW PPSPARSE_IMPLEMENTED         // l2_window_cuda.cpp
#define PPSPARSE_CUDA_DEVICE_TIMER PPSPARSE_IMPLEMENTED      // device_timer_cuda.cpp
#define PPSPARSE_CUDA_INSTANCE_ORDER PPSPARSE_IMPLEMENTED    // instance_order_cuda.cpp
#define PPSPARSE_CUDA_FOREIGN_MEMORY PPSPARSE_IMPLEMENTED    // foreign_memory_cuda.cpp
#define PPSPARSE_CUDA_DEVICE_GRAPH PPSPARSE_IMPLEMENTED      // device_graph_cuda.cpp
#define PPSPARSE_CUDA_MULTIPROCESSORS PPSPARSE_IMPLEMENTED   // multiprocessors_cuda.cpp
#define PPSPARSE_CUDA_LAST_LEVEL_CACHE PPSPARSE_IMPLEMENTED  // last_level_cache_cuda.cpp
#define PPSPARSE_CUDA_DEVICE_AWARE_MPI PPSPARSE_IMPLEMENTED  // distributed/mpi_device_aware_cuda.cpp
#define PPSPARSE_CUDA_DEVICE_MESSENGER PPSPARSE_IMPLEMENTED  // distributed/{device,peer}_messenger_cuda.cpp
#define PPSPARSE_CUDA_MCPI_FEATURES PPSPARSE_IMPLEMENTED     // mcpi_backend_cuda.cpp
#define PPSPARSE_CUDA_MCPI_KERNELS PPSPARSE_IMPLEMENTED      // mcpi_backend_cuda.cpp, mcpi/

// The device-side helpers of core's kernels (core/src/backend) that CUDA replaces.
#define PPSPARSE_STREAMING_LOAD_DEVICE <ppsparse/cuda/streaming_load_device.hpp>
#define PPSPARSE_TEAM_HANDOFF_DEVICE <ppsparse/cuda/team_handoff_device.hpp>
#define PPSPARSE_TEAM_COPY_DEVICE <ppsparse/cuda/team_copy_device.hpp>

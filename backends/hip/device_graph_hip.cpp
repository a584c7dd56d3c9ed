// backend/device_graph.hpp for Kokkos::HIP, by the code CUDA and HIP share.
#include "gpu_runtime.hpp"

#include "../common/cuda_hip/device_graph.hpp"

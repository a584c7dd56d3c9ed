// backend/foreign_memory.hpp for Kokkos::HIP, by the code CUDA and HIP share.
#include "gpu_runtime.hpp"

#include "../common/cuda_hip/foreign_memory.hpp"

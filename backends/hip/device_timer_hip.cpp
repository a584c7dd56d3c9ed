// DeviceTimer<Kokkos::HIP> (core/include/ppsparse/backend/device_timer.hpp): hip events on the
// instance's stream, by the code CUDA and HIP share.
#include "gpu_runtime.hpp"

#include "../common/cuda_hip/device_timer.hpp"

namespace ppsparse::backend {

template class EventTimer<gpu::Space>;

}  // namespace ppsparse::backend

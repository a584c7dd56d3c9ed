// order_after (core/include/ppsparse/backend/instance_order.hpp) for Kokkos::Cuda: an event on
// the producer's stream that the waiter's stream waits for; the host does not block.
#include <cuda_runtime.h>

#include <ppsparse/backend/instance_order.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {

void order_after(const Kokkos::Cuda& waiter, const Kokkos::Cuda& producer) {
  if (waiter.cuda_stream() == producer.cuda_stream()) return;
  cudaEvent_t event;
  if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventRecord(event, producer.cuda_stream()) != cudaSuccess ||
      cudaStreamWaitEvent(waiter.cuda_stream(), event, 0) != cudaSuccess)
    throw Error(std::string("order_after: ") + cudaGetErrorString(cudaGetLastError()));
  cudaEventDestroy(event);  // released once the wait is done
}

}  // namespace ppsparse::backend

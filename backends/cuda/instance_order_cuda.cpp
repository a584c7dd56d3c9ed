// backend/instance_order.hpp for Kokkos::Cuda: order_after is an event on the producer's stream
// that the waiter's stream waits for (the host does not block); priority_instance a stream of
// the device's highest priority, owned by the instance.
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

Kokkos::Cuda priority_instance(const Kokkos::Cuda& /*exec*/) {
  // On the current device, which Kokkos set to exec's.
  int least = 0, greatest = 0;
  cudaStream_t stream = nullptr;
  cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
  if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest);
  if (e != cudaSuccess) throw Error(std::string("priority_instance: ") + cudaGetErrorString(e));
  return Kokkos::Cuda(stream, Kokkos::Impl::ManageStream::yes);
}

}  // namespace ppsparse::backend

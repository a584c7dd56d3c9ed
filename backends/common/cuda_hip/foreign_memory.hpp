#pragma once
// backend/foreign_memory.hpp for CUDA and HIP, written once over the runtime names of
// gpu_runtime.hpp: each backend's foreign_memory_<backend>.cpp includes its gpu_runtime.hpp, then
// this file.
#include <string>

#include <ppsparse/backend/foreign_memory.hpp>
#include <ppsparse/error.hpp>

namespace ppsparse::backend {

MemoryLocation locate_memory(const gpu::Space& /*exec*/, const void* address) {
  MemoryLocation where;
  gpu::PointerPlace place;
  if (gpu::pointer_place(address, place) != gpu::success) {
    // An address the runtime never saw is host memory to it; clear the sticky error state.
    (void)gpu::get_last_error();
    return where;
  }
  if (place.device_memory) where.kind = MemoryKind::device;
  if (place.managed) where.kind = MemoryKind::managed;
  if (where.kind != MemoryKind::host) where.device = place.device;
  return where;
}

int device_of(const gpu::Space& exec) { return gpu::device_id(exec); }

void order_after_stream(const gpu::Space& exec, std::uintptr_t stream) {
  const gpu::stream_t producer = gpu::stream_from_interface(stream);
  if (producer == gpu::stream_of(exec)) return;
  gpu::event_t event;
  gpu::error_t e = gpu::event_create_untimed(&event);
  if (e == gpu::success) {
    e = gpu::event_record(event, producer);
    if (e == gpu::success) e = gpu::stream_wait_event(gpu::stream_of(exec), event);
    (void)gpu::event_destroy(event);  // released once the wait is done
  }
  if (e != gpu::success)
    throw InvalidArgument("the array's stream " + std::to_string(stream) +
                          " cannot be waited for: " + gpu::error_string(e));
}

}  // namespace ppsparse::backend

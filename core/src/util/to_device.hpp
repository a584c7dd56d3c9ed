#pragma once
// A host vector's copy on a memory space: the small arrays a setup builds on the host (plans,
// layouts, halo lists) and hands to its kernels; and back, a view's copy as a host vector (the
// plans a setup forms on the device). Private to the library.
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

namespace ppsparse::util {

template <class T, class MemSpace>
Kokkos::View<T*, MemSpace> to_device(const std::vector<T>& v, const std::string& label) {
  Kokkos::View<T*, MemSpace> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size()));
  return d;
}

template <class T, class MemSpace>
std::vector<T> to_host(const Kokkos::View<T*, MemSpace>& d) {
  std::vector<T> v(d.extent(0));
  Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size()), d);
  return v;
}

}  // namespace ppsparse::util

#pragma once
// The Python bindings' handling of arrays: NumPy arrays converted (once, where their dtype or
// layout differs) to contiguous arrays handed to the library as host views, and on GPU builds
// GPU arrays (__cuda_array_interface__, versions 2 and 3: CuPy, Numba, PyTorch) read and written
// in place after the work queued on their stream; the objects holding Kokkos views, released
// before Kokkos is finalised. Shared by the bindings of every family (*_bindings.cpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <ppsparse/backend/foreign_memory.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/kokkos_compat.hpp>

namespace ppsparse_python {

namespace py = pybind11;
using namespace pybind11::literals;
using namespace ppsparse;

using Exec = DefaultExecSpace;
template <class T>
using HostIn = Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>;
template <class T>
using HostOut = Kokkos::View<T*, HostSpace, Kokkos::MemoryUnmanaged>;

// Objects holding Kokkos views, released before Kokkos is finalised (ppsparse.finalize, or at exit).
struct Releasable {
  virtual void release() = 0;
  virtual ~Releasable() = default;
};
std::set<Releasable*>& live();

void require_kokkos();

// `obj` as a contiguous array of T: TypeError unless it holds real numbers (bool, integers,
// floats), ValueError naming `what` unless it has `size` entries (size < 0: any).
template <class T>
py::array_t<T, py::array::c_style | py::array::forcecast> as_array(const py::handle& obj, const std::string& what,
                                                                   long long size = -1) {
  if (obj.is_none()) throw py::type_error(what + ": None given, an array was expected");
  const py::array a = py::array::ensure(obj);
  if (!a) throw py::type_error(what + ": not an array of numbers");
  const char kind = a.dtype().kind();
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
    throw py::type_error(what + ": dtype " + std::string(py::str(a.dtype())) + " is not a real number type");
  auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!c) throw py::type_error(what + ": cannot be converted to " + std::string(py::str(py::dtype::of<T>())));
  if (size >= 0 && c.size() != size)
    throw py::value_error(what + " has " + std::to_string(c.size()) + " entries, expected " + std::to_string(size));
  return c;
}

template <class T>
HostIn<T> in_view(const py::array_t<T, py::array::c_style | py::array::forcecast>& a) {
  return HostIn<T>(a.data(), static_cast<size_t>(a.size()));
}

// ---- GPU arrays (__cuda_array_interface__, versions 2 and 3) ----

constexpr bool kGpuBuild = compat::is_gpu_space<Exec>();
template <class T>
using DeviceIn = Kokkos::View<const T*, DefaultMemSpace, Kokkos::MemoryUnmanaged>;
template <class T>
using DeviceOut = Kokkos::View<T*, DefaultMemSpace, Kokkos::MemoryUnmanaged>;

bool is_gpu_array(const py::handle& obj);

// The interface's type string of T, as CuPy and Numba write it.
template <class T>
std::string typestr_of() {
  return std::string("<") + (std::is_floating_point_v<T> ? "f" : "i") + std::to_string(sizeof(T));
}

// A contiguous GPU array as its interface describes it.
struct GpuArray {
  std::uintptr_t address = 0;
  size_t size = 0;
  std::string typestr;
  std::vector<py::ssize_t> shape;
};

// The array `obj` describes, checked: contiguous, unmasked, on this build's GPU (or managed),
// writable when `writable`, `size` entries (size < 0: any); the work queued on its stream is
// ordered before the library's. ValueError or TypeError naming `what` otherwise.
GpuArray gpu_array(const py::handle& obj, const std::string& what, long long size, bool writable);

// A GPU array of T read in place: TypeError unless it holds T.
template <class T>
GpuArray gpu_array_of(const py::handle& obj, const std::string& what, long long size, bool writable) {
  GpuArray a = gpu_array(obj, what, size, writable);
  if (a.typestr != typestr_of<T>())
    throw py::type_error(what + ": a GPU array of type '" + a.typestr + "'; ppsparse reads '" + typestr_of<T>() +
                         "' GPU arrays in place: convert it first (x.astype(" +
                         (std::is_floating_point_v<T> ? "'float64'" : "'int" + std::to_string(8 * sizeof(T)) + "'") +
                         "))");
  return a;
}

template <class T>
DeviceIn<T> device_in(const GpuArray& a) {
  return DeviceIn<T>(reinterpret_cast<const T*>(a.address), a.size);
}
template <class T>
DeviceOut<T> device_out(const GpuArray& a) {
  return DeviceOut<T>(reinterpret_cast<T*>(a.address), a.size);
}

// A new float64 GPU array of `shape` (CuPy's), for results the caller gave no array for.
py::object new_gpu_array(const std::vector<py::ssize_t>& shape, const std::string& what);

// `obj` as a host array of T: NumPy as as_array does, a GPU array (any integer or float type)
// copied to the host first. For the structure, which the setup reads on the host.
template <class T>
py::array_t<T, py::array::c_style | py::array::forcecast> host_array(const py::handle& obj, const std::string& what,
                                                                     long long size = -1) {
  if (!is_gpu_array(obj)) return as_array<T>(obj, what, size);
  const GpuArray a = gpu_array(obj, what, size, false);
  py::array host(py::dtype::from_args(py::str(a.typestr)), a.shape);
  const size_t bytes = static_cast<size_t>(host.nbytes());
  Kokkos::deep_copy(
      Kokkos::View<char*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<char*>(host.mutable_data()), bytes),
      Kokkos::View<const char*, DefaultMemSpace, Kokkos::MemoryUnmanaged>(reinterpret_cast<const char*>(a.address),
                                                                          bytes));
  return as_array<T>(host, what, size);
}

// The library wrote a GPU array on its own stream: finish before the caller's stream reads it.
void finish_gpu_writes();

// y = op(x) for a GPU array x of nx entries: run(x_view, y_view) into a new GPU array y of ny.
template <class Run>
py::object gpu_product(const py::handle& x, long long nx, long long ny, const Run& run) {
  const GpuArray xv = gpu_array_of<double>(x, "x", nx, false);
  py::object y = new_gpu_array({static_cast<py::ssize_t>(ny)}, "y");
  run(device_in<double>(xv), device_out<double>(gpu_array_of<double>(y, "y", ny, true)));
  finish_gpu_writes();
  return y;
}

// True when a and b are GPU arrays, false when neither is; ValueError naming both otherwise.
bool same_place(const py::handle& a, const char* a_name, const py::handle& b, const char* b_name);

// A CSR matrix from SciPy's arrays (checked as the library's constructors check it).
CsrMatrix<double, HostSpace> host_csr(const py::handle& indptr, const py::handle& indices, const py::handle& data,
                                      ordinal_t nrows, ordinal_t ncols);

/// Set by ppsparse.initialize when it initialised Kokkos (ppsparse.finalize then finalises it).
extern bool g_initialised_here;

// The bindings of each family, called by the module (ppsparse_module.cpp).
void bind_mcpi(py::module_& m);
void bind_spmv(py::module_& m);
void bind_mpk(py::module_& m);
void bind_readers(py::module_& m);

}  // namespace ppsparse_python

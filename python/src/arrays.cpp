// The Python bindings' array handling (arrays.hpp).
#include "arrays.hpp"

namespace ppsparse_python {

bool g_initialised_here = false;

// The array `obj` describes, checked: contiguous, unmasked, on this build's GPU (or managed),
// writable when `writable`, `size` entries (size < 0: any); the work queued on its stream is
// ordered before the library's. ValueError or TypeError naming `what` otherwise.
GpuArray gpu_array(const py::handle& obj, const std::string& what, long long size, bool writable) {
  if (!kGpuBuild)
    throw py::type_error(what + ": a GPU array (__cuda_array_interface__) given to a CPU build of ppsparse (" +
                         std::string(Exec::name()) + "): pass a NumPy array (cupy.asnumpy(x))");
  const py::object interface = obj.attr("__cuda_array_interface__");
  if (!py::isinstance<py::dict>(interface)) throw py::type_error(what + ": its __cuda_array_interface__ is not a dict");
  const py::dict d = interface.cast<py::dict>();
  for (const char* key : {"shape", "typestr", "data"})
    if (!d.contains(key)) throw py::value_error(what + ": its __cuda_array_interface__ has no '" + key + "'");
  GpuArray a;
  a.typestr = py::str(d["typestr"]);
  a.shape = d["shape"].cast<std::vector<py::ssize_t>>();
  a.size = 1;
  for (const auto e : a.shape) a.size *= static_cast<size_t>(e);
  const py::ssize_t itemsize = a.typestr.size() > 2 ? std::stoi(a.typestr.substr(2)) : 0;
  if (d.contains("strides") && !d["strides"].is_none()) {
    const auto strides = d["strides"].cast<std::vector<py::ssize_t>>();
    py::ssize_t expected = itemsize;
    for (size_t k = a.shape.size(); k-- > 0;) {
      if (k < strides.size() && a.shape[k] > 1 && strides[k] != expected)
        throw py::value_error(what + ": a GPU array that is not contiguous (strides " +
                              std::string(py::str(d["strides"])) +
                              "): pass a contiguous copy (cupy.ascontiguousarray(x))");
      expected *= a.shape[k];
    }
  }
  if (d.contains("mask") && !d["mask"].is_none())
    throw py::value_error(what + ": a masked GPU array: ppsparse reads every entry");
  const auto data = d["data"].cast<py::tuple>();
  a.address = data[0].cast<std::uintptr_t>();
  if (writable && data[1].cast<bool>()) throw py::value_error(what + ": a read-only GPU array, written here");
  if (size >= 0 && static_cast<long long>(a.size) != size)
    throw py::value_error(what + " has " + std::to_string(a.size) + " entries, expected " + std::to_string(size));
  if (a.size > 0) {
    const Exec exec;
    const backend::MemoryLocation where = backend::locate_memory(exec, reinterpret_cast<const void*>(a.address));
    const int ours = backend::device_of(exec);
    if (where.kind == backend::MemoryKind::host)
      throw py::value_error(what + ": its __cuda_array_interface__ points to host memory, not to a GPU's");
    if (where.kind == backend::MemoryKind::device && where.device != ours)
      throw py::value_error(what + ": an array on GPU " + std::to_string(where.device) + ", and ppsparse runs on GPU " +
                            std::to_string(ours) + " (ppsparse.initialize(device_id=" + std::to_string(where.device) +
                            ") first to run there)");
  }
  if (d.contains("stream") && !d["stream"].is_none()) {
    const auto stream = d["stream"].cast<std::uintptr_t>();
    if (stream == 0)
      throw py::value_error(what + ": stream 0 in its __cuda_array_interface__, which the interface does not allow");
    backend::order_after_stream(Exec(), stream);
  }
  return a;
}

// A new float64 GPU array of `shape` (CuPy's), for results the caller gave no array for.
py::object new_gpu_array(const std::vector<py::ssize_t>& shape, const std::string& what) {
  py::module_ cupy;
  try {
    cupy = py::module_::import("cupy");
  } catch (const py::error_already_set&) {
    throw py::value_error(what +
                          ": pass an array for the result: ppsparse makes new GPU arrays with CuPy, which "
                          "does not import here");
  }
  return cupy.attr("empty")(py::tuple(py::cast(shape)), "dtype"_a = "float64");
}

// True when a and b are GPU arrays, false when neither is; ValueError naming both otherwise.
bool same_place(const py::handle& a, const char* a_name, const py::handle& b, const char* b_name) {
  const bool ga = is_gpu_array(a), gb = is_gpu_array(b);
  if (ga != gb)
    throw py::value_error(std::string(ga ? a_name : b_name) + " is a GPU array and " + (ga ? b_name : a_name) +
                          " is not: pass both on the GPU or both on the host");
  return ga;
}

std::set<Releasable*>& live() {
  static std::set<Releasable*> objects;
  return objects;
}

void require_kokkos() {
  if (!Kokkos::is_initialized()) throw InvalidArgument("ppsparse is finalized (ppsparse.finalize() was called)");
}

bool is_gpu_array(const py::handle& obj) { return !obj.is_none() && py::hasattr(obj, "__cuda_array_interface__"); }

// The library wrote a GPU array on its own stream: finish before the caller's stream reads it.
void finish_gpu_writes() { Exec().fence(); }

// A CSR matrix from SciPy's arrays (checked as the library's constructors check it).
CsrMatrix<double, HostSpace> host_csr(const py::handle& indptr, const py::handle& indices, const py::handle& data,
                                      ordinal_t nrows, ordinal_t ncols) {
  const auto rp = host_array<offset_t>(indptr, "indptr", static_cast<long long>(nrows) + 1);
  const auto ci = host_array<ordinal_t>(indices, "indices");
  const auto v = host_array<double>(data, "data", ci.size());
  CsrMatrix<double, HostSpace> a(nrows, ncols, static_cast<offset_t>(ci.size()));
  Kokkos::deep_copy(a.row_ptr, in_view(rp));
  Kokkos::deep_copy(a.col_idx, in_view(ci));
  Kokkos::deep_copy(a.values, in_view(v));
  return a;
}

}  // namespace ppsparse_python

// The ppsparse Python module's compiled part (_ppsparse): pybind11 over the public C++ API. The
// package (python/ppsparse/__init__.py) adds the SciPy conveniences and the exit hook.
//
// Arrays: NumPy arrays of real numbers, converted (once, where their dtype or layout differs) to
// contiguous float64 (int32/int64 for indices) and handed to the library as host views: on CPU
// builds the kernels read them in place; on GPU builds the library stages them through the
// device as it does for any host array. On GPU builds, GPU arrays (CuPy, Numba, PyTorch: any
// object with __cuda_array_interface__) go to the kernels in place, after the work queued on
// the stream they name; they must be contiguous float64 (the structure's index arrays are
// copied to the host, any integer type). Errors: the library's one-line messages, as ValueError
// (bad input), TypeError (not an array of real numbers), ppsparse.NumericalError (a singular or
// non-finite block, named in the caller's numbering) and RuntimeError (anything else).
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
#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mcpi/solver.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/refine.hpp>
#include <ppsparse/mesh/vertex_graph.hpp>
#include <ppsparse/mpk/matrix_power.hpp>
#include <ppsparse/spmv/spmv.hpp>

namespace py = pybind11;
using namespace pybind11::literals;
using namespace ppsparse;

namespace {

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
std::set<Releasable*>& live() {
  static std::set<Releasable*> objects;
  return objects;
}
bool g_initialised_here = false;

void require_kokkos() {
  if (!Kokkos::is_initialized()) throw InvalidArgument("ppsparse is finalized (ppsparse.finalize() was called)");
}

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

bool is_gpu_array(const py::handle& obj) { return !obj.is_none() && py::hasattr(obj, "__cuda_array_interface__"); }

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
void finish_gpu_writes() { Exec().fence(); }

// y = op(x) for a GPU array x of nx entries: run(x_view, y_view) into a new GPU array y of ny.
template <class Run>
py::object gpu_product(const py::handle& x, long long nx, long long ny, const Run& run) {
  const GpuArray xv = gpu_array_of<double>(x, "x", nx, false);
  py::object y = new_gpu_array({static_cast<py::ssize_t>(ny)}, "y");
  run(device_in<double>(xv), device_out<double>(gpu_array_of<double>(y, "y", ny, true)));
  finish_gpu_writes();
  return y;
}

mcpi::Variant variant_of(const std::string& s) { return mcpi::parse_variant(s); }

// True when a and b are GPU arrays, false when neither is; ValueError naming both otherwise.
bool same_place(const py::handle& a, const char* a_name, const py::handle& b, const char* b_name) {
  const bool ga = is_gpu_array(a), gb = is_gpu_array(b);
  if (ga != gb)
    throw py::value_error(std::string(ga ? a_name : b_name) + " is a GPU array and " + (ga ? b_name : a_name) +
                          " is not: pass both on the GPU or both on the host");
  return ga;
}

// ---- the MCPI solver ----

class McpiSolver : public Releasable {
 public:
  McpiSolver(const py::handle& indptr, const py::handle& indices, int nb, const py::handle& colors, int index_base,
             const std::string& o_format, bool keep_fp32) {
    require_kokkos();
    const auto rp = host_array<offset_t>(indptr, "indptr");
    if (rp.size() < 1) throw py::value_error("indptr is empty: it needs n + 1 entries");
    const auto ci = host_array<ordinal_t>(indices, "indices");
    const auto n = static_cast<ordinal_t>(rp.size() - 1);
    mcpi::BlockPattern<HostSpace> pattern{nb, n, in_view(rp), in_view(ci), index_base};
    mcpi::SetupOptions options;
    options.o_storage.format = mcpi::parse_o_format(o_format);
    options.o_storage.keep_fp32 = keep_fp32;
    if (!colors.is_none()) {
      const auto c = host_array<ordinal_t>(colors, "colors", n);
      options.colors.assign(c.data(), c.data() + c.size());
    }
    solver_ = std::make_unique<mcpi::Solver<Exec>>(pattern, options);
    live().insert(this);
  }
  ~McpiSolver() override { live().erase(this); }
  void release() override {
    gmres_.reset();
    solver_.reset();
  }

  mcpi::Solver<Exec>& s() const {
    if (!solver_) throw InvalidArgument("McpiSolver: released by ppsparse.finalize()");
    return *solver_;
  }
  size_t vector_size() const { return static_cast<size_t>(s().n()) * s().nb(); }

  void update(const py::handle& O, const py::handle& D, const std::string& order) {
    mcpi::BlockOrder bo;
    if (order == "row_major" || order == "C")
      bo = mcpi::BlockOrder::row_major;
    else if (order == "column_major" || order == "F")
      bo = mcpi::BlockOrder::column_major;
    else
      throw py::value_error("order must be 'row_major' ('C') or 'column_major' ('F'), got '" + order + "'");
    const long long nb2 = static_cast<long long>(s().nb()) * s().nb();
    const long long o_size = static_cast<long long>(s().nnzb()) * nb2, d_size = static_cast<long long>(s().n()) * nb2;
    if (same_place(O, "O", D, "D")) {
      s().update(Exec(), device_in<double>(gpu_array_of<double>(O, "O", o_size, false)),
                 device_in<double>(gpu_array_of<double>(D, "D", d_size, false)), bo);
      return;
    }
    const auto o = as_array<double>(O, "O", o_size);
    const auto d = as_array<double>(D, "D", d_size);
    s().update(Exec(), in_view(o), in_view(d), bo);
  }

  py::tuple apply(const py::handle& R, const py::handle& dq, double rtol, double atol, int max_sweeps,
                  int check_interval, bool initial_guess, bool final_residual, const std::string& variant,
                  bool sweep_graphs) {
    mcpi::Control c;
    c.rtol = rtol;
    c.atol = atol;
    c.max_sweeps = max_sweeps;
    c.check_interval = check_interval;
    c.initial_guess = initial_guess ? mcpi::InitialGuess::given : mcpi::InitialGuess::zero;
    c.final_residual = final_residual;
    c.variant = variant_of(variant);
    c.sweep_graphs = sweep_graphs;
    return solve(R, dq, initial_guess, [&](const auto& r, const auto& x) { return s().apply(Exec(), r, x, c); });
  }

  py::tuple fgmres(const py::handle& R, const py::handle& dq, double rtol, double atol, int restart, int max_iterations,
                   int sweeps, bool initial_guess) {
    mcpi::FgmresControl fc;
    fc.rtol = rtol;
    fc.atol = atol;
    fc.restart = restart;
    fc.max_iterations = max_iterations;
    fc.sweeps = sweeps;
    fc.initial_guess = initial_guess ? mcpi::InitialGuess::given : mcpi::InitialGuess::zero;
    if (!gmres_ || !(gmres_control_ == fc)) {
      gmres_.reset();
      gmres_ = std::make_unique<mcpi::Fgmres<Exec>>(s(), fc);
      gmres_control_ = fc;
    }
    return solve(R, dq, initial_guess, [&](const auto& r, const auto& x) { return gmres_->solve(Exec(), r, x); });
  }

  py::object multiply(const py::handle& x) {
    const auto n = static_cast<long long>(vector_size());
    if (is_gpu_array(x))
      return gpu_product(x, n, n, [&](const auto& xv, const auto& yv) { s().multiply(Exec(), xv, yv); });
    const auto xv = as_array<double>(x, "x", n);
    py::array_t<double> y(static_cast<py::ssize_t>(n));
    s().multiply(Exec(), in_view(xv), HostOut<double>(y.mutable_data(), y.size()));
    return std::move(y);
  }

  // Seconds per call of the C++ apply on these arrays with no Python in the loop (each call
  // finished, as the bindings' is), for measuring what the bindings add.
  double native_apply_seconds(const py::handle& R, const py::handle& dq, int repeats, int max_sweeps,
                              int check_interval) {
    if (repeats < 1) throw py::value_error("repeats must be >= 1, got " + std::to_string(repeats));
    mcpi::Control c;
    c.max_sweeps = max_sweeps;
    c.check_interval = check_interval;
    double seconds = 0;
    solve(R, dq, false, [&](const auto& r, const auto& x) {
      mcpi::Status st = s().apply(Exec(), r, x, c);  // first call's costs out of the way
      Exec().fence();
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < repeats; ++k) {
        st = s().apply(Exec(), r, x, c);
        Exec().fence();
      }
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats;
      return st;
    });
    return seconds;
  }

  py::array_t<ordinal_t> colors() const {
    const auto& c = s().coloring().color;
    return py::array_t<ordinal_t>(static_cast<py::ssize_t>(c.size()), c.data());
  }

 private:
  // Runs run(R_view, dq_view) -> Status on R and dq, both on the GPU or both on the host, and
  // returns (dq, status). dq given: a writable, contiguous float64 array of the right size,
  // written in place (and read as the initial guess when asked); none: a new array where R is.
  template <class Run>
  py::tuple solve(const py::handle& R, const py::handle& dq, bool initial_guess, const Run& run) const {
    const auto n = static_cast<long long>(vector_size());
    if (dq.is_none() && initial_guess) throw py::value_error("initial_guess=True needs dq (the guess)");
    if (dq.is_none() ? is_gpu_array(R) : same_place(R, "R", dq, "dq")) {
      const GpuArray r = gpu_array_of<double>(R, "R", n, false);
      py::object x =
          dq.is_none() ? new_gpu_array({static_cast<py::ssize_t>(n)}, "dq") : py::reinterpret_borrow<py::object>(dq);
      const mcpi::Status st = run(device_in<double>(r), device_out<double>(gpu_array_of<double>(x, "dq", n, true)));
      finish_gpu_writes();
      return py::make_tuple(x, st);
    }
    const auto r = as_array<double>(R, "R", n);
    py::array_t<double> x = host_output(dq, "dq");
    const mcpi::Status st = run(in_view(r), HostOut<double>(x.mutable_data(), x.size()));
    return py::make_tuple(x, st);
  }

  py::array_t<double> host_output(const py::handle& dq, const char* what) const {
    const auto n = static_cast<py::ssize_t>(vector_size());
    if (dq.is_none()) return py::array_t<double>(n);
    auto a = py::array_t<double>::ensure(dq);
    if (!a || !py::isinstance<py::array_t<double>>(dq) || !(a.flags() & py::array::c_style) || !a.writeable())
      throw py::type_error(std::string(what) + ": a writable, contiguous float64 array is expected");
    if (a.size() != n)
      throw py::value_error(std::string(what) + " has " + std::to_string(a.size()) + " entries, expected " +
                            std::to_string(n));
    return a;
  }

  std::unique_ptr<mcpi::Solver<Exec>> solver_;
  std::unique_ptr<mcpi::Fgmres<Exec>> gmres_;
  mcpi::FgmresControl gmres_control_;
};

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

// ---- SpMV ----

class SpmvOperator : public Releasable {
 public:
  SpmvOperator(const py::handle& indptr, const py::handle& indices, const py::handle& data, ordinal_t nrows,
               ordinal_t ncols, const std::string& algorithm) {
    require_kokkos();
    const CsrMatrix<double, DefaultMemSpace> a =
        copy_to<DefaultMemSpace>(host_csr(indptr, indices, data, nrows, ncols));
    spmv::SpmvOptions options;
    options.check_structure = true;
    op_ = std::make_unique<spmv::SpmvOperator<Exec, double>>(spmv::parse_spmv_algorithm(algorithm), a, options);
    x_ = Kokkos::View<double*, DefaultMemSpace>("py.x", static_cast<size_t>(ncols));
    y_ = Kokkos::View<double*, DefaultMemSpace>("py.y", static_cast<size_t>(nrows));
    live().insert(this);
  }
  ~SpmvOperator() override { live().erase(this); }
  void release() override {
    op_.reset();
    x_ = {};
    y_ = {};
  }
  spmv::SpmvOperator<Exec, double>& op() const {
    if (!op_) throw InvalidArgument("SpmvOperator: released by ppsparse.finalize()");
    return *op_;
  }
  // y = A x: a new array where x is (a GPU array is read and written in place on the GPU).
  py::object apply(const py::handle& x) {
    if (is_gpu_array(x))
      return gpu_product(x, op().ncols(), op().nrows(),
                         [&](const auto& xv, const auto& yv) { op().apply(1.0, xv, 0.0, yv); });
    const auto xv = as_array<double>(x, "x", op().ncols());
    Kokkos::deep_copy(x_, in_view(xv));
    op().apply(1.0, x_, 0.0, y_);
    py::array_t<double> y(static_cast<py::ssize_t>(op().nrows()));
    Kokkos::deep_copy(HostOut<double>(y.mutable_data(), y.size()), y_);
    return std::move(y);
  }

 private:
  std::unique_ptr<spmv::SpmvOperator<Exec, double>> op_;
  Kokkos::View<double*, DefaultMemSpace> x_, y_;
};

// ---- the matrix power kernel ----

class MatrixPower : public Releasable {
 public:
  MatrixPower(const py::handle& indptr, const py::handle& indices, const py::handle& data, ordinal_t n, int powers,
              const std::string& variant) {
    require_kokkos();
    if (powers < 1) throw py::value_error("powers must be >= 1, got " + std::to_string(powers));
    const CsrMatrix<double, HostSpace> a = host_csr(indptr, indices, data, n, n);
    mpk::MpkOptions options;
    options.powers = powers;
    variant_ = mpk::parse_variant(variant);
    mpk_ = std::make_unique<mpk::MatrixPowerKernel<Exec, double>>(a, options);
    x_ = Kokkos::View<double*, DefaultMemSpace>("py.mpk.x", static_cast<size_t>(n));
    y_ = Kokkos::View<double**, Kokkos::LayoutLeft, DefaultMemSpace>("py.mpk.y", static_cast<size_t>(n),
                                                                     static_cast<size_t>(powers) + 1);
    live().insert(this);
  }
  ~MatrixPower() override { live().erase(this); }
  void release() override {
    mpk_.reset();
    x_ = {};
    y_ = {};
  }
  mpk::MatrixPowerKernel<Exec, double>& k() const {
    if (!mpk_) throw InvalidArgument("MatrixPower: released by ppsparse.finalize()");
    return *mpk_;
  }
  // Y (p + 1, n): row k = A^k x.
  py::object apply(const py::handle& x) {
    const auto n = static_cast<py::ssize_t>(k().nrows()), p = static_cast<py::ssize_t>(k().powers());
    if (is_gpu_array(x)) {
      const GpuArray xv = gpu_array_of<double>(x, "x", k().nrows(), false);
      py::object out = new_gpu_array({p + 1, n}, "Y");
      const GpuArray y = gpu_array_of<double>(out, "Y", (p + 1) * n, true);
      // Row k of the C-ordered (p + 1, n) result is column k of a LayoutLeft n x (p + 1) view.
      k().apply(variant_, device_in<double>(xv),
                Kokkos::View<double**, Kokkos::LayoutLeft, DefaultMemSpace, Kokkos::MemoryUnmanaged>(
                    reinterpret_cast<double*>(y.address), static_cast<size_t>(n), static_cast<size_t>(p) + 1));
      finish_gpu_writes();
      return out;
    }
    const auto xv = as_array<double>(x, "x", k().nrows());
    Kokkos::deep_copy(x_, in_view(xv));
    k().apply(variant_, x_, y_);
    py::array_t<double> out({p + 1, n});
    // LayoutLeft n x (p+1) is (p+1) contiguous columns of n: row k of `out`.
    Kokkos::deep_copy(HostOut<double>(out.mutable_data(), out.size()),
                      Kokkos::View<double*, DefaultMemSpace>(y_.data(), y_.span()));
    return std::move(out);
  }
  std::string describe() const { return k().describe(); }

 private:
  std::unique_ptr<mpk::MatrixPowerKernel<Exec, double>> mpk_;
  mpk::MpkVariant variant_ = mpk::MpkVariant::automatic;
  Kokkos::View<double*, DefaultMemSpace> x_;
  Kokkos::View<double**, Kokkos::LayoutLeft, DefaultMemSpace> y_;
};

// ---- readers ----

py::tuple read_matrix_market_arrays(const std::string& path) {
  const CsrMatrix<double, HostSpace> a = io::read_matrix_market<double>(path);
  py::array_t<offset_t> rp(static_cast<py::ssize_t>(a.row_ptr.extent(0)), a.row_ptr.data());
  py::array_t<ordinal_t> ci(static_cast<py::ssize_t>(a.col_idx.extent(0)), a.col_idx.data());
  py::array_t<double> v(static_cast<py::ssize_t>(a.values.extent(0)), a.values.data());
  return py::make_tuple(rp, ci, v, py::make_tuple(a.nrows, a.ncols));
}

template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

py::dict read_mesh_arrays(const std::string& path, int refine, int zone) {
  mesh::Mesh m = mesh::read(path, zone);
  if (refine < 0) throw py::value_error("refine must be >= 0, got " + std::to_string(refine));
  if (refine > 0) m = mesh::refine_uniform(m, refine);
  py::dict d;
  d["dim"] = m.dim;
  py::array_t<double> points(to_array(m.coords));
  d["points"] = points.reshape({static_cast<py::ssize_t>(m.npoints()), static_cast<py::ssize_t>(m.dim)});
  std::map<int, std::string> type_names;  // the types present, volume and face
  std::vector<int> types;
  for (const auto t : m.types) {
    types.push_back(static_cast<int>(t));
    type_names[static_cast<int>(t)] = mesh::element_name(t);
  }
  d["element_types"] = to_array(types);
  d["element_ptr"] = to_array(m.elem_ptr);
  d["element_nodes"] = to_array(m.elem_nodes);
  d["marker_names"] = m.marker_names;
  std::vector<int> face_types;
  for (const auto t : m.face_types) {
    face_types.push_back(static_cast<int>(t));
    type_names[static_cast<int>(t)] = mesh::element_name(t);
  }
  d["element_type_names"] = type_names;
  d["face_types"] = to_array(face_types);
  d["face_ptr"] = to_array(m.face_ptr);
  d["face_nodes"] = to_array(m.face_nodes);
  d["face_marker"] = to_array(m.face_marker);
  const Graph g = mesh::vertex_graph(m);
  d["graph_indptr"] = to_array(g.row_ptr);
  d["graph_indices"] = to_array(g.adj);
  return d;
}

}  // namespace

PYBIND11_MODULE(_ppsparse, m) {
  m.doc() = "ppsparse's compiled part: the MCPI solver, SpMV and the readers (use the ppsparse package)";
  static py::exception<NumericalError> numerical(m, "NumericalError", PyExc_ArithmeticError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const NumericalError& e) {
      PyErr_SetString(numerical.ptr(), e.what());
    } catch (const InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  m.def(
      "initialize",
      [](int threads, int device_id) {
        if (Kokkos::is_initialized()) return false;
        std::vector<std::string> args{"ppsparse"};
        if (threads > 0) args.push_back("--kokkos-num-threads=" + std::to_string(threads));
        if (device_id >= 0) args.push_back("--kokkos-device-id=" + std::to_string(device_id));
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        int argc = static_cast<int>(argv.size());
        Kokkos::initialize(argc, argv.data());
        g_initialised_here = true;
        return true;
      },
      "threads"_a = -1, "device_id"_a = -1,
      "Initialises Kokkos (threads: host threads; device_id: the GPU) unless it already is; False if it was.");
  m.def(
      "finalize",
      [] {
        for (Releasable* r : std::set<Releasable*>(live())) r->release();
        if (g_initialised_here && Kokkos::is_initialized()) Kokkos::finalize();
        g_initialised_here = false;
      },
      "Releases every solver's and operator's arrays and finalises Kokkos if ppsparse initialised it.");
  m.def("is_initialized", [] { return Kokkos::is_initialized(); });
  m.def("execution_space", [] { return std::string(Exec::name()); });
  m.def(
      "gpu_build", [] { return kGpuBuild; }, "True when the kernels run on a GPU (GPU arrays are taken in place).");

  py::class_<mcpi::Status>(m, "Status", "What a solve did (ppsparse::mcpi::Status).")
      .def_property_readonly("reason", [](const mcpi::Status& s) { return std::string(mcpi::name(s.reason)); })
      .def_readonly("sweeps", &mcpi::Status::sweeps)
      .def_readonly("iterations", &mcpi::Status::iterations)
      .def_readonly("initial_residual", &mcpi::Status::initial_residual)
      .def_readonly("final_residual", &mcpi::Status::final_residual)
      .def_readonly("kernel", &mcpi::Status::kernel)
      .def_property_readonly("converged", &mcpi::Status::converged)
      .def_property_readonly("history",
                             [](const mcpi::Status& s) {
                               std::vector<std::pair<int, double>> h;
                               for (const auto& c : s.history) h.emplace_back(c.sweep, c.residual);
                               return h;
                             })
      .def("__repr__", [](const mcpi::Status& s) {
        return "Status(reason='" + std::string(mcpi::name(s.reason)) + "', sweeps=" + std::to_string(s.sweeps) +
               ", iterations=" + std::to_string(s.iterations) +
               ", initial_residual=" + std::to_string(s.initial_residual) +
               ", final_residual=" + std::to_string(s.final_residual) + ")";
      });

  py::class_<McpiSolver>(m, "McpiSolver")
      .def(py::init<const py::handle&, const py::handle&, int, const py::handle&, int, const std::string&, bool>(),
           "indptr"_a, "indices"_a, "nb"_a, "colors"_a = py::none(), "index_base"_a = 0, "o_format"_a = "fp32",
           "keep_fp32"_a = false)
      .def("update", &McpiSolver::update, "O"_a, "D"_a, "order"_a = "row_major")
      .def("apply", &McpiSolver::apply, "R"_a, "dq"_a = py::none(), "rtol"_a = 0.0, "atol"_a = 0.0, "max_sweeps"_a = 15,
           "check_interval"_a = 5, "initial_guess"_a = false, "final_residual"_a = true, "variant"_a = "auto",
           "sweep_graphs"_a = true)
      .def("fgmres", &McpiSolver::fgmres, "R"_a, "dq"_a = py::none(), "rtol"_a = 1e-6, "atol"_a = 0.0, "restart"_a = 30,
           "max_iterations"_a = 300, "sweeps"_a = 5, "initial_guess"_a = false)
      .def("multiply", &McpiSolver::multiply, "x"_a)
      .def("_native_apply_seconds", &McpiSolver::native_apply_seconds, "R"_a, "dq"_a, "repeats"_a = 100,
           "max_sweeps"_a = 1, "check_interval"_a = 1,
           "Seconds per call of the C++ apply on these arrays, no Python in the loop (the bindings' overhead "
           "benchmark).")
      .def_property_readonly("nb", [](const McpiSolver& s) { return s.s().nb(); })
      .def_property_readonly("n", [](const McpiSolver& s) { return s.s().n(); })
      .def_property_readonly("nnzb", [](const McpiSolver& s) { return s.s().nnzb(); })
      .def_property_readonly("ncolors", [](const McpiSolver& s) { return s.s().coloring().ncolors; })
      .def_property_readonly("colors", &McpiSolver::colors)
      .def_property_readonly("o_format",
                             [](const McpiSolver& s) { return std::string(mcpi::name(s.s().o_storage().format)); })
      .def_property_readonly("device_bytes", [](const McpiSolver& s) { return s.s().device_bytes(); });

  py::class_<SpmvOperator>(m, "SpmvOperator")
      .def(
          py::init<const py::handle&, const py::handle&, const py::handle&, ordinal_t, ordinal_t, const std::string&>(),
          "indptr"_a, "indices"_a, "data"_a, "nrows"_a, "ncols"_a, "algorithm"_a = "auto")
      .def("apply", &SpmvOperator::apply, "x"_a)
      .def_property_readonly("algorithm",
                             [](const SpmvOperator& o) { return std::string(spmv::to_string(o.op().algorithm())); })
      .def("describe", [](const SpmvOperator& o) { return o.op().describe(); });

  py::class_<MatrixPower>(m, "MatrixPower")
      .def(py::init<const py::handle&, const py::handle&, const py::handle&, ordinal_t, int, const std::string&>(),
           "indptr"_a, "indices"_a, "data"_a, "n"_a, "powers"_a, "variant"_a = "automatic")
      .def("apply", &MatrixPower::apply, "x"_a)
      .def("describe", &MatrixPower::describe);

  m.def("read_matrix_market_arrays", &read_matrix_market_arrays, "path"_a);
  m.def("read_mesh_arrays", &read_mesh_arrays, "path"_a, "refine"_a = 0, "zone"_a = 0);
  m.def("o_formats", [] {
    std::vector<std::string> v;
    for (const auto f : mcpi::all_o_formats()) v.emplace_back(mcpi::name(f));
    return v;
  });
}

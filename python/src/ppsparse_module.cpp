// The ppsparse Python module's compiled part (_ppsparse): pybind11 over the public C++ API, one
// file per family (*_bindings.cpp) and one for arrays (arrays.hpp). The package
// (python/ppsparse/__init__.py) adds the SciPy conveniences and the exit hook.
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
#include <set>
#include <string>
#include <vector>

#include "arrays.hpp"

using namespace ppsparse_python;

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

  bind_mcpi(m);
  bind_spmv(m);
  bind_mpk(m);
  bind_readers(m);
}

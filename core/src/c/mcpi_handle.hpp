#pragma once
// What the C interface's entry points share (c/mcpi.h; mcpi.cpp and mcpi_fgmres.cpp): the
// handle, the mapping of exceptions onto return codes, and the caller's arrays wrapped in the
// memory they say they are in. Internal: not installed.
#include <ppsparse/c/mcpi.h>

#include <memory>
#include <new>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/solver.hpp>

struct ppsparse_mcpi_solver {
  std::unique_ptr<ppsparse::mcpi::Solver<>> solver;
  std::unique_ptr<ppsparse::mcpi::Multigrid<>> multigrid;  // ppsparse_mcpi_create_multigrid: its finest level
  std::unique_ptr<ppsparse::mcpi::Fgmres<>> fgmres;        // made at the first FGMRES call, then kept
  std::vector<ppsparse::mcpi::ResidualCheck> history;      // of the last solve
};

namespace ppsparse::c_binding {

namespace mcpi = ppsparse::mcpi;

/// The calling thread's last error message (ppsparse_last_error).
extern thread_local std::string last_error;

/// Runs f, mapping exceptions onto return codes and the message onto last_error.
template <class F>
int guarded(const char* function, F&& f) {
  try {
    f();
    last_error.clear();
    return PPSPARSE_SUCCESS;
  } catch (const ppsparse::InvalidArgument& e) {
    last_error = std::string(function) + ": " + e.what();
    return PPSPARSE_ERROR_INVALID_ARGUMENT;
  } catch (const ppsparse::NumericalError& e) {
    last_error = std::string(function) + ": " + e.what();
    return PPSPARSE_ERROR_NUMERICAL;
  } catch (const std::bad_alloc&) {
    last_error = std::string(function) + ": out of memory";
    return PPSPARSE_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error = std::string(function) + ": " + e.what();
    return PPSPARSE_ERROR_INTERNAL;
  } catch (...) {
    last_error = std::string(function) + ": unknown error";
    return PPSPARSE_ERROR_INTERNAL;
  }
}

/// The handle's solver (a multigrid's finest level); InvalidArgument for a NULL handle.
mcpi::Solver<>& solver_of(ppsparse_mcpi_solver* s);
/// InvalidArgument "<what> is NULL" for a null p.
void require(const void* p, const char* what);
/// InvalidArgument unless memory is PPSPARSE_MEMORY_HOST or PPSPARSE_MEMORY_DEVICE.
void check_memory(int memory);
/// The C++ controls of the C ones (InvalidArgument naming a bad field); defaults for NULL.
mcpi::Control to_control(const ppsparse_mcpi_control* c);
mcpi::FgmresControl to_control(const ppsparse_fgmres_control* c);
/// What a failed call leaves in the caller's status (no solve happened), and a solve's status.
void failed_status(ppsparse_mcpi_status* out);
void to_status(const mcpi::Status& s, ppsparse_mcpi_status* out);

/// An unmanaged view of a caller's array in the memory it says it is in.
template <class T, class Mem>
Kokkos::View<T*, Mem, Kokkos::MemoryUnmanaged> wrap(T* p, size_t n) {
  return Kokkos::View<T*, Mem, Kokkos::MemoryUnmanaged>(p, n);
}

/// Calls f(view_a, view_b) with both arrays wrapped in the memory space `memory` names.
template <class A, class B, class F>
void with_views(int memory, A* a, size_t na, B* b, size_t nb, F&& f) {
  check_memory(memory);
  if (memory == PPSPARSE_MEMORY_HOST)
    f(wrap<A, HostSpace>(a, na), wrap<B, HostSpace>(b, nb));
  else
    f(wrap<A, DefaultMemSpace>(a, na), wrap<B, DefaultMemSpace>(b, nb));
}

/// Calls f(R, dq) with the caller's vectors wrapped, after checking the pointers.
template <class F>
void with_vectors(mcpi::Solver<>& solver, int memory, const double* R, double* dq, F&& f) {
  require(R, "R");
  require(dq, "dq");
  const size_t len = static_cast<size_t>(solver.n()) * solver.nb();
  with_views(memory, R, len, dq, len, f);
}

}  // namespace ppsparse::c_binding

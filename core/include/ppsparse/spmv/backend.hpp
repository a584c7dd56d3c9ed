#pragma once
/// @file
/// Hooks through which a device backend supplies its own kernel for an SpMV algorithm of
/// spmv/algorithms.def, chosen by overloading on the execution space as for the MCPI and MPK
/// families (mcpi/backend.hpp, mpk/backend.hpp). The templates below are the portable
/// fallback: no backend kernel, so every algorithm runs its portable functor. A backend
/// overloads has_kernel and run for its execution space in its hooks.hpp (backend/backends.hpp);
/// SpmvOperator asks has_kernel once, at setup, and then calls run for every product.
#include <cstddef>
#include <string>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/spmv/spmv.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::spmv::backend {

/// One product y = alpha A x + beta y over the operator's CSR matrix; device pointers.
template <class Scalar>
struct CsrProduct {
  ordinal_t nrows = 0, ncols = 0;
  const offset_t* row_ptr = nullptr;   ///< nrows + 1
  const ordinal_t* col_idx = nullptr;  ///< sorted within a row
  const Scalar* values = nullptr;
  const Scalar* x = nullptr;
  Scalar* y = nullptr;
  Scalar alpha = 1, beta = 0;
};

/// Whether the backend of `exec` has its own kernel for `algorithm` on Scalar (float or double).
template <class Scalar, class ExecSpace>
bool has_kernel(const ExecSpace&, SpmvAlgorithm, const SpmvOptions&) {
  return false;
}

/// Launches the backend's kernel for `algorithm` on exec's stream, asynchronously.
/// Precondition: has_kernel<Scalar>(exec, algorithm, options).
template <class ExecSpace, class Scalar>
void run(const ExecSpace&, SpmvAlgorithm algorithm, const CsrProduct<Scalar>&) {
  throw InvalidArgument(std::string("spmv backend: no kernel of its own for ") + to_string(algorithm) + " on " +
                        ExecSpace::name());
}

}  // namespace ppsparse::spmv::backend

// The backends' overloads (backend/backends.hpp).
#define PPSPARSE_HOOKS_SPMV
#include <ppsparse/backend/backends.hpp>

#pragma once
/// @file
/// Hooks through which a device backend supplies its own kernel for a matrix power kernel
/// variant of mpk/variants.def, chosen by overloading on the execution space as for the MCPI
/// and SpMV families (mcpi/backend.hpp, spmv/backend.hpp). The templates below are the portable
/// fallback: no backend kernel, so every variant runs its portable launches (core/src/mpk/
/// variants/<id>.cpp). A backend overloads has_kernel and run for its execution space in its
/// hooks.hpp (backend/backends.hpp); MatrixPowerKernel asks has_kernel at every apply.
#include <cstddef>
#include <string>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/mpk/variant.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mpk::backend {

/// The p products y_k = A y_{k-1}, k = 1..p, over the level-ordered CSR matrix: y_0 is column 0
/// of the column-major array y (leading dimension ld), y_k is written to column k; device pointers.
template <class Scalar>
struct PowerProducts {
  ordinal_t n = 0;
  const offset_t* row_ptr = nullptr;
  const ordinal_t* col_idx = nullptr;
  const Scalar* values = nullptr;
  Scalar* y = nullptr;
  std::size_t ld = 0;
  int powers = 0;
};

/// Whether the backend of `exec` has its own kernel for `variant` on Scalar (float or double).
template <class Scalar, class ExecSpace>
bool has_kernel(const ExecSpace&, MpkVariant) {
  return false;
}

/// Launches the backend's kernel for `variant` on exec's stream, asynchronously.
/// Precondition: has_kernel<Scalar>(exec, variant).
template <class ExecSpace, class Scalar>
void run(const ExecSpace&, MpkVariant variant, const PowerProducts<Scalar>&) {
  throw InvalidArgument(std::string("mpk backend: no kernel of its own for ") + to_string(variant) + " on " +
                        ExecSpace::name());
}

}  // namespace ppsparse::mpk::backend

// The backends' overloads (backend/backends.hpp).
#define PPSPARSE_HOOKS_MPK
#include <ppsparse/backend/backends.hpp>

#pragma once
/// @file
/// The device backends, named here and nowhere else in core, and the hook families each one
/// implements (Ginkgo's model: every hook declared once).
///
/// A hook family's header (backend/l2_window.hpp, mcpi/backend.hpp, ...) declares its portable
/// templates, then its overloads once, as a macro of the execution space, expanded by
/// PPSPARSE_DECLARE_BACKEND_HOOKS for every backend of this build whose hook list names the
/// family. A backend's hook list, backends/<name>/include/ppsparse/<name>/hook_list.hpp, is the
/// one place that says what the backend implements: PPSPARSE_<NAME>_<FAMILY> defined as
/// PPSPARSE_IMPLEMENTED for each family whose hooks its sources define, and, for the device-side
/// helpers of core's kernels (core/src/backend), the header that replaces the portable form.
/// Nothing depends on the order of includes: this file is read once, first, by every family.
///
/// A new backend is a folder backends/<name> (its CMakeLists.txt, its sources, its hook list),
/// its lines here, and its entry in backends/CMakeLists.txt.
#include <Kokkos_Core.hpp>

/// What a hook list defines PPSPARSE_<NAME>_<FAMILY> as, for a family the backend implements.
#define PPSPARSE_IMPLEMENTED ~, 1
// PPSPARSE_IS_IMPLEMENTED(x): 1 when x expands to PPSPARSE_IMPLEMENTED, 0 when x is no macro.
#define PPSPARSE_SECOND_ARG_(a, b, ...) b
#define PPSPARSE_SECOND_ARG(...) PPSPARSE_SECOND_ARG_(__VA_ARGS__)
#define PPSPARSE_IS_IMPLEMENTED(x) PPSPARSE_SECOND_ARG(x, 0, ~)
#define PPSPARSE_IF_1(...) __VA_ARGS__
#define PPSPARSE_IF_0(...)
#define PPSPARSE_IF_(c, ...) PPSPARSE_IF_##c(__VA_ARGS__)
#define PPSPARSE_IF(c, ...) PPSPARSE_IF_(c, __VA_ARGS__)

/// M(ExecSpace, NAME) for every backend of this build whose hook list names FAMILY: the
/// declarations of the family's overloads for that backend's execution space.
#define PPSPARSE_DECLARE_BACKEND_HOOKS(FAMILY, M)                                     \
  PPSPARSE_IF(PPSPARSE_IS_IMPLEMENTED(PPSPARSE_CUDA_##FAMILY), M(Kokkos::Cuda, CUDA)) \
  PPSPARSE_IF(PPSPARSE_IS_IMPLEMENTED(PPSPARSE_HIP_##FAMILY), M(Kokkos::HIP, HIP))

// The backends Kokkos was built with.
#if defined(KOKKOS_ENABLE_CUDA)
#include <ppsparse/cuda/hook_list.hpp>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <ppsparse/hip/hook_list.hpp>
#endif

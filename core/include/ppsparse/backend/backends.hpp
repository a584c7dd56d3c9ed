/// @file
/// The device backends, named here and nowhere else in core. Each family's hook header
/// (mcpi/backend.hpp, backend/l2_window.hpp, ...) declares its portable templates, defines its
/// marker PPSPARSE_HOOKS_<FAMILY> and then includes this file. For each backend Kokkos was built
/// with, this includes the backend's hooks.hpp, which declares its overloads for every family
/// whose marker is set (once each), so that they are seen wherever the family's templates are.
///
/// A new backend is a folder backends/<name> (its CMakeLists.txt, its sources and
/// include/ppsparse/<name>/hooks.hpp), its lines here, and its entry in backends/CMakeLists.txt.
// No include guard: included at the end of each family's hook header.
#if defined(KOKKOS_ENABLE_CUDA)
#include <ppsparse/cuda/hooks.hpp>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <ppsparse/hip/hooks.hpp>
#endif

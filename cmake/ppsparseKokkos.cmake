# Finds Kokkos and Kokkos Kernels and exposes them as one target, ppsparse::kokkos_deps.
#
# This is the single place that absorbs packaging differences:
#  * upstream Kokkos >= 4.6 (CUDA, HIP, OpenMP, Serial) found through Kokkos_ROOT /
#    KokkosKernels_ROOT: targets Kokkos::kokkos and Kokkos::kokkoskernels;
#  * Debian 12's Trilinos-packaged Kokkos 3.4.1: Kokkos::kokkos points its include
#    directory at <prefix>/lib/include, which does not exist, and Kokkos Kernels is the
#    target trilinos_kokkoskernels with no include directory (headers are in
#    <prefix>/include/trilinos).
# Included by the project and by the installed ppsparseConfig.cmake.
include_guard(GLOBAL)
include(CMakeFindDependencyMacro)

find_dependency(Kokkos)
find_dependency(KokkosKernels)

if(NOT TARGET ppsparse::kokkos_deps)
  add_library(ppsparse_kokkos_deps INTERFACE IMPORTED GLOBAL)
  add_library(ppsparse::kokkos_deps ALIAS ppsparse_kokkos_deps)

  if(TARGET Kokkos::kokkoskernels)
    target_link_libraries(ppsparse_kokkos_deps INTERFACE Kokkos::kokkos Kokkos::kokkoskernels)
  elseif(TARGET trilinos_kokkoskernels)
    # Debian / Trilinos packaging.
    get_target_property(_pps_kk_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
    set(_pps_fixed_inc "")
    foreach(_d IN LISTS _pps_kk_inc)
      if(EXISTS "${_d}")
        list(APPEND _pps_fixed_inc "${_d}")
      endif()
    endforeach()
    if(KokkosKernels_INCLUDE_DIRS)
      foreach(_d IN LISTS KokkosKernels_INCLUDE_DIRS)
        get_filename_component(_d "${_d}" REALPATH)
        list(APPEND _pps_fixed_inc "${_d}")
      endforeach()
    endif()
    list(REMOVE_DUPLICATES _pps_fixed_inc)
    set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_pps_fixed_inc}")
    # The Trilinos config lists a stray "-DKOKKOS_DEPENDENCE" among the link items; drop it.
    get_target_property(_pps_links Kokkos::kokkos INTERFACE_LINK_LIBRARIES)
    list(REMOVE_ITEM _pps_links "-DKOKKOS_DEPENDENCE")
    set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_LINK_LIBRARIES "${_pps_links}")
    target_link_libraries(ppsparse_kokkos_deps INTERFACE Kokkos::kokkos trilinos_kokkoskernels)
    target_include_directories(ppsparse_kokkos_deps INTERFACE ${_pps_fixed_inc})
  else()
    message(FATAL_ERROR "ppsparse: Kokkos Kernels was found but exports neither Kokkos::kokkoskernels "
                        "nor trilinos_kokkoskernels; point KokkosKernels_ROOT at a Kokkos Kernels install.")
  endif()
endif()

# Writes the pkg-config files (Makefile users), from the imported targets, so that the
# Debian/Trilinos packaging and an upstream install both work:
#   ppsparse.pc    C++: the include directories of ppsparse and of the Kokkos and Kokkos Kernels
#                  libraries its headers need, -std=c++17, and the link line;
#   ppsparse-c.pc  C and Fortran programs of the C interface (c/mcpi.h): ppsparse's include
#                  directory only (no C++ flag reaches a C compiler), and the same link line with
#                  the C++ runtime.

# Appends to OUT_INC / OUT_LIBS the include directories and libraries of target `tgt` and of its
# interface link dependencies, each target once.
function(_ppsparse_pc_walk tgt)
  get_property(seen GLOBAL PROPERTY _PPSPARSE_PC_SEEN)
  if(tgt IN_LIST seen)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _PPSPARSE_PC_SEEN ${tgt})
  get_target_property(type ${tgt} TYPE)
  get_target_property(inc ${tgt} INTERFACE_INCLUDE_DIRECTORIES)
  if(inc)
    set_property(GLOBAL APPEND PROPERTY _PPSPARSE_PC_INC ${inc})
  endif()
  get_target_property(imported ${tgt} IMPORTED)
  if(imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
    set_property(GLOBAL APPEND PROPERTY _PPSPARSE_PC_LIBS "$<TARGET_LINKER_FILE:${tgt}>")
  endif()
  get_target_property(links ${tgt} INTERFACE_LINK_LIBRARIES)
  foreach(l IN LISTS links)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" l "${l}")
    if(TARGET ${l})
      _ppsparse_pc_walk(${l})
    elseif(l MATCHES "^-l|^/|^-pthread$")
      set_property(GLOBAL APPEND PROPERTY _PPSPARSE_PC_LIBS "${l}")
    elseif(l AND NOT l MATCHES "^\\$<|^-D")
      set_property(GLOBAL APPEND PROPERTY _PPSPARSE_PC_LIBS "-l${l}")
    endif()
  endforeach()
endfunction()

function(ppsparse_write_pkg_config)
  set_property(GLOBAL PROPERTY _PPSPARSE_PC_SEEN "")
  set_property(GLOBAL PROPERTY _PPSPARSE_PC_INC "")
  set_property(GLOBAL PROPERTY _PPSPARSE_PC_LIBS "")
  _ppsparse_pc_walk(ppsparse_kokkos_deps)
  get_property(inc GLOBAL PROPERTY _PPSPARSE_PC_INC)
  get_property(libs GLOBAL PROPERTY _PPSPARSE_PC_LIBS)
  list(REMOVE_DUPLICATES inc)
  list(REMOVE_DUPLICATES libs)
  set(cflags "")
  foreach(d IN LISTS inc)
    if(NOT d MATCHES "^\\$<" AND NOT d IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
      string(APPEND cflags " -I${d}")
    endif()
  endforeach()
  list(JOIN libs " " deps)
  # A static ppsparse also needs its own private dependencies on the link line.
  set(private "")
  if(NOT BUILD_SHARED_LIBS)
    set(private " ${ZLIB_LIBRARIES}")
    if(PPSPARSE_ENABLE_CGNS)
      string(APPEND private " ${CGNS_LIBRARY}")
    endif()
  endif()
  # Relocatable: the prefix is found from the .pc file's own place (cmake --install --prefix).
  file(RELATIVE_PATH up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" up "${up}")
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/ppsparse.pc CONTENT
"prefix=\${pcfiledir}/${up}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: ppsparse
Description: Performance-portable sparse kernels for implicit CFD and Krylov solvers (MCPI, SpMV, MPK), on Kokkos
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}${cflags} -std=c++17
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lppsparse${private} ${deps} -ldl
")
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/ppsparse-c.pc CONTENT
"prefix=\${pcfiledir}/${up}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: ppsparse-c
Description: ppsparse's C interface (ppsparse/c/mcpi.h), for C and Fortran programs
Version: ${PROJECT_VERSION}
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lppsparse${private} ${deps} -ldl -lstdc++ -lm
")
  install(FILES ${PROJECT_BINARY_DIR}/ppsparse.pc ${PROJECT_BINARY_DIR}/ppsparse-c.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

# Installs the ppsparse build into WORK_DIR/prefix, then configures, builds and runs
# the consumer project against that prefix. Any failing step fails the test.
file(REMOVE_RECURSE ${WORK_DIR})
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
  set(last_err "${err}" PARENT_SCOPE)
endfunction()
run_step(${CMAKE_COMMAND} --install ${PPSPARSE_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# A plain Makefile with pkg-config's flags (ppsparse.pc), run without LD_LIBRARY_PATH: the
# installed shared library is found by the RPATH the .pc file puts on the link line.
file(GLOB pcs ${WORK_DIR}/prefix/*/pkgconfig/ppsparse.pc ${WORK_DIR}/prefix/*/*/pkgconfig/ppsparse.pc)
if(NOT pcs)
  message(FATAL_ERROR "the installed package lacks lib/pkgconfig/ppsparse.pc")
endif()
list(GET pcs 0 pc)
get_filename_component(pc_dir ${pc} DIRECTORY)
if(EXPECT_SHARED)
  file(GLOB so ${WORK_DIR}/prefix/*/libppsparse.so ${WORK_DIR}/prefix/*/*/libppsparse.so)
  if(NOT so)
    message(FATAL_ERROR "the shared build installed no libppsparse.so")
  endif()
endif()
file(COPY ${CONSUMER_SOURCE_DIR}/makefile/ ${CONSUMER_SOURCE_DIR}/consumer_c.c DESTINATION ${WORK_DIR}/makefile)
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER cc)
endif()
# The C program with the C compiler CMake found (clang refuses a C++ flag even without -Werror).
run_step(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir} CXX=${CMAKE_CXX_COMPILER} CC=${CMAKE_C_COMPILER}
         make -C ${WORK_DIR}/makefile)
run_step(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${WORK_DIR}/makefile/consumer_make)
run_step(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${WORK_DIR}/makefile/consumer_make_c)
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
         -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
         -DKokkos_DIR=${Kokkos_DIR} -DKokkosKernels_DIR=${KokkosKernels_DIR})
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step(${WORK_DIR}/build/consumer)
run_step(${WORK_DIR}/build/consumer_c)
# A project that enables C alone: no error, no warning (Kokkos' CXX-extensions warning included).
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}/c_only -B ${WORK_DIR}/c_only
         -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
         -DKokkos_DIR=${Kokkos_DIR} -DKokkosKernels_DIR=${KokkosKernels_DIR})
if(last_err MATCHES "CMake Warning")
  message(FATAL_ERROR "the C-only consumer's configure warned:\n${last_err}")
endif()
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/c_only)
run_step(${WORK_DIR}/c_only/consumer_c_only)
if(EXPECT_FORTRAN)
  run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}/fortran_only -B ${WORK_DIR}/fortran_only
           -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
           -DKokkos_DIR=${Kokkos_DIR} -DKokkosKernels_DIR=${KokkosKernels_DIR})
  run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/fortran_only)
  run_step(${WORK_DIR}/fortran_only/consumer_fortran_only)
endif()
if(EXPECT_FORTRAN)
  if(NOT EXISTS ${WORK_DIR}/prefix/include/ppsparse/fortran/ppsparse_mcpi.mod)
    message(FATAL_ERROR "the installed package lacks include/ppsparse/fortran/ppsparse_mcpi.mod")
  endif()
  run_step(${WORK_DIR}/build/consumer_fortran)
endif()

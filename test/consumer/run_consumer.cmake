# Installs the ppsparse build into WORK_DIR/prefix, then configures, builds and runs
# the consumer project against that prefix. Any failing step fails the test.
file(REMOVE_RECURSE ${WORK_DIR})
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer step failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run_step(${CMAKE_COMMAND} --install ${PPSPARSE_BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build
         -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
         -DKokkos_DIR=${Kokkos_DIR} -DKokkosKernels_DIR=${KokkosKernels_DIR})
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_step(${WORK_DIR}/build/consumer)
run_step(${WORK_DIR}/build/consumer_c)
if(EXPECT_FORTRAN)
  if(NOT EXISTS ${WORK_DIR}/prefix/include/ppsparse/fortran/ppsparse_mcpi.mod)
    message(FATAL_ERROR "the installed package lacks include/ppsparse/fortran/ppsparse_mcpi.mod")
  endif()
  run_step(${WORK_DIR}/build/consumer_fortran)
endif()

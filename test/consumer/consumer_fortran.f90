!> Solves a small MCPI system through the installed Fortran module.
module consumer_operator
  use, intrinsic :: iso_c_binding
  use ppsparse_mcpi
  implicit none
  type(c_ptr) :: handle
contains
  !> y = (A + 0.5 I) x through the handle's own multiply: the operator of ppsparse_mcpi_fgmres_operator.
  integer(c_int) function shifted(x, y, context) bind(C)
    real(c_double), intent(in) :: x(8)
    real(c_double), intent(out) :: y(8)
    type(c_ptr), value :: context
    shifted = ppsparse_mcpi_multiply(handle, x, y, PPSPARSE_MEMORY_HOST)
    y = y + 0.5d0 * x
  end function
end module consumer_operator

program consumer_fortran
  use, intrinsic :: iso_c_binding
  use ppsparse_mcpi
  use consumer_operator
  implicit none
  integer(c_int32_t) :: row_ptr(5) = [1, 2, 4, 6, 7], col_idx(6) = [2, 1, 3, 2, 4, 3]
  real(c_double) :: O(24), D(16), R(8), dq(8), y(8)
  type(c_ptr) :: s
  type(ppsparse_mcpi_control) :: c
  type(ppsparse_mcpi_status) :: st
  type(ppsparse_mcpi_options) :: setup
  type(ppsparse_multigrid_options) :: mg
  type(ppsparse_fgmres_control) :: g
  integer(c_int32_t) :: rows(4)
  integer(c_int) :: ierr, q, levels
  O = 0.1d0
  do q = 1, 24, 3
    O(q) = -1d0
  end do
  D = 0.2d0
  do q = 0, 3
    D(4 * q + 1) = 4d0
    D(4 * q + 4) = 4d0
  end do
  R = [(1d0 + q, q = 0, 7)]
  ierr = ppsparse_initialize()
  ierr = ppsparse_mcpi_create(s, 2, 4, row_ptr, col_idx, 1, c_null_ptr, PPSPARSE_MEMORY_HOST)
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_update(s, O, D, PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST)
  call ppsparse_mcpi_control_default(c)
  if (c%sweep_graphs /= 1 .or. c%check_interval /= 5) then  ! the type's layout is the C struct's
    print *, 'consumer_fortran: FAILED: control defaults', c%sweep_graphs, c%check_interval
    stop 1
  end if
  c%max_sweeps = 200
  c%rtol = 1d-6
  c%check_interval = 1
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_apply(s, R, dq, PPSPARSE_MEMORY_HOST, c, st)
  ! The defaults, with neither control nor status (optional arguments).
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_apply(s, R, dq, PPSPARSE_MEMORY_HOST)
  ! FGMRES on A + 0.5 I given as a Fortran function, preconditioned by the sweeps over A.
  call ppsparse_fgmres_control_default(g)
  g%rtol = 1d-10
  handle = s
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_fgmres_operator(s, c_funloc(shifted), c_null_ptr, R, dq, &
                                                                       PPSPARSE_MEMORY_HOST, g, st)
  if (ierr == PPSPARSE_SUCCESS) ierr = shifted(dq, y, c_null_ptr)
  if (ierr /= PPSPARSE_SUCCESS) print *, 'consumer_fortran: ', ppsparse_error_message()
  if (ierr /= PPSPARSE_SUCCESS .or. st%reason /= PPSPARSE_CONVERGED .or. norm2(R - y) > 1d-8 * norm2(R)) then
    print *, 'consumer_fortran: FAILED: the operator', ierr, st%reason, norm2(R - y)
    stop 1
  end if
  q = ppsparse_mcpi_destroy(s)
  ! The same system through a multigrid of two levels (the type's layout is the C struct's).
  call ppsparse_mcpi_options_default(setup)
  call ppsparse_multigrid_options_default(mg)
  if (mg%cycle /= PPSPARSE_CYCLE_K .or. mg%coarse_sweeps /= 20) then
    print *, 'consumer_fortran: FAILED: multigrid defaults', mg%cycle, mg%coarse_sweeps
    stop 1
  end if
  call ppsparse_multigrid_options_flow_jacobian(mg)
  if (mg%cycle /= PPSPARSE_CYCLE_V .or. mg%post_sweeps /= 4 .or. mg%matching_passes /= 1) then
    print *, 'consumer_fortran: FAILED: the flow_jacobian preset', mg%cycle, mg%post_sweeps, mg%matching_passes
    stop 1
  end if
  mg%coarse_rows = 2
  call ppsparse_fgmres_control_default(g)
  g%rtol = 1d-10
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_create_multigrid(s, 2, 4, row_ptr, col_idx, 1, &
                                                                        PPSPARSE_MEMORY_HOST, setup, mg)
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_update(s, O, D, PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST)
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_fgmres(s, R, dq, PPSPARSE_MEMORY_HOST, g, st)
  if (ierr == PPSPARSE_SUCCESS) ierr = ppsparse_mcpi_levels(s, 4, rows, levels)
  if (ierr /= PPSPARSE_SUCCESS) print *, 'consumer_fortran: ', ppsparse_error_message()
  if (ierr /= PPSPARSE_SUCCESS .or. st%reason /= PPSPARSE_CONVERGED .or. levels /= 2 .or. rows(1) /= 4) then
    print *, 'consumer_fortran: FAILED: multigrid', ierr, st%reason, levels, rows(1)
    stop 1
  end if
  q = ppsparse_mcpi_destroy(s)
  q = ppsparse_finalize()
  if (ierr /= PPSPARSE_SUCCESS .or. st%reason /= PPSPARSE_CONVERGED) then
    print *, 'consumer_fortran: FAILED'
    stop 1
  end if
  print *, 'consumer_fortran: OK'
end program consumer_fortran

!> A time-step loop through the Fortran module: a 7-point block stencil on a G^3 grid (nb = 5),
!> new values at every step, MCPI to a tolerance. Fortran's arrays: 1-based indices,
!> column-major blocks, host memory (a GPU code passes PPSPARSE_MEMORY_DEVICE and device
!> arrays from its own assembly instead). O is stored in BF16 (half the bytes of a sweep's O;
!> the tolerance then judges the stored, rounded operator). Stops with code 1 if a step does
!> not converge.
program time_step
  use, intrinsic :: iso_c_binding
  use ppsparse_mcpi
  implicit none
  integer, parameter :: nb = 5, g = 10, steps = 3
  integer(c_int32_t) :: n, i, k, x, y, z
  integer(c_int32_t), allocatable :: row_ptr(:), col_idx(:)
  real(c_double), allocatable :: O(:), D(:), R(:), dq(:)
  type(c_ptr) :: solver
  type(ppsparse_mcpi_control) :: control
  type(ppsparse_mcpi_status) :: status
  type(ppsparse_mcpi_options) :: options
  integer(c_int) :: ierr, t, a, b, count, c
  integer(c_int) :: checks(128)
  real(c_double) :: residuals(128)
  logical :: failed

  n = g * g * g
  allocate(row_ptr(n + 1), col_idx(6 * n))
  row_ptr(1) = 1
  i = 0
  do z = 0, g - 1
    do y = 0, g - 1
      do x = 0, g - 1
        i = i + 1
        k = row_ptr(i)
        if (z > 0) call put(i - g * g)
        if (y > 0) call put(i - g)
        if (x > 0) call put(i - 1)
        if (x + 1 < g) call put(i + 1)
        if (y + 1 < g) call put(i + g)
        if (z + 1 < g) call put(i + g * g)
        row_ptr(i + 1) = k
      end do
    end do
  end do
  allocate(O((row_ptr(n + 1) - 1) * nb * nb), D(n * nb * nb), R(n * nb), dq(n * nb))

  failed = .false.
  ierr = ppsparse_initialize()
  call ppsparse_mcpi_options_default(options)
  options%o_format = PPSPARSE_O_BF16
  ierr = ppsparse_mcpi_create_with(solver, nb, n, row_ptr, col_idx, 1, c_null_ptr, PPSPARSE_MEMORY_HOST, options)
  if (ierr /= PPSPARSE_SUCCESS) then
    print *, 'create failed: ', ppsparse_error_message()
    stop 1
  end if
  call ppsparse_mcpi_control_default(control)
  control%max_sweeps = 500
  control%rtol = 1d-6
  control%check_interval = 5
  do t = 0, steps - 1
    call assemble(t)
    ierr = ppsparse_mcpi_update(solver, O, D, PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST)
    if (ierr /= PPSPARSE_SUCCESS) then
      print *, 'update failed: ', ppsparse_error_message()
      failed = .true.
      exit
    end if
    ierr = ppsparse_mcpi_apply(solver, R, dq, PPSPARSE_MEMORY_HOST, control, status)
    if (ierr /= PPSPARSE_SUCCESS) then
      print *, 'apply failed: ', ppsparse_error_message()
      failed = .true.
      exit
    end if
    ierr = ppsparse_mcpi_history(solver, 128, checks, residuals, count)
    write (*, '(a,i0,a,i0,a,es10.3,a,es10.3,a,i0)') 'step ', t, ': MCPI ', status%sweeps, ' sweeps, ||r|| ', &
        status%initial_residual, ' -> ', status%final_residual, ', reason ', status%reason
    write (*, '(a,*(1x,i0,":",es9.2))') '  checks:', (checks(c), residuals(c), c = 1, min(count, 128))
    if (status%reason /= PPSPARSE_CONVERGED) failed = .true.
  end do
  ! A bad call, as a caller sees it: a memory space that does not exist.
  ierr = ppsparse_mcpi_update(solver, O, D, PPSPARSE_COLUMN_MAJOR, 9)
  if (ierr == PPSPARSE_SUCCESS) failed = .true.
  print *, 'a bad call says: ', ppsparse_error_message()
  ierr = ppsparse_mcpi_destroy(solver)
  ierr = ppsparse_finalize()
  if (failed) then
    print *, 'Fortran example: FAILED'
    stop 1
  end if
  print *, 'Fortran example: OK'

contains

  subroutine put(j)
    integer(c_int32_t), intent(in) :: j
    col_idx(k) = j
    k = k + 1
  end subroutine

  !> Values of step t, blocks column-major: entry (a, b) of block k at (k - 1) nb^2 + (b - 1) nb + a.
  subroutine assemble(t)
    integer(c_int), intent(in) :: t
    integer(c_int32_t) :: row, kk
    do row = 1, n
      do kk = row_ptr(row), row_ptr(row + 1) - 1
        do b = 1, nb
          do a = 1, nb
            if (a == b) then
              O((kk - 1) * nb * nb + (b - 1) * nb + a) = -1d0 * (1d0 + 0.1d0 * t)
            else
              O((kk - 1) * nb * nb + (b - 1) * nb + a) = 0.05d0 * sin(0.3d0 * (row + col_idx(kk)) + a - 2d0 * b) &
                                                          * (1d0 + 0.1d0 * t)
            end if
          end do
        end do
      end do
      do b = 1, nb
        do a = 1, nb
          if (a == b) then
            D((row - 1) * nb * nb + (b - 1) * nb + a) = (row_ptr(row + 1) - row_ptr(row) + 0.5d0) * (1d0 + 0.1d0 * t)
          else
            D((row - 1) * nb * nb + (b - 1) * nb + a) = 0.02d0 * cos(real(row + a * b, c_double))
          end if
        end do
        R((row - 1) * nb + b) = sin(0.01d0 * row + b + t)
      end do
    end do
  end subroutine

end program time_step

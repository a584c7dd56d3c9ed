!> The MCPI solver from Fortran 2003: ISO_C_BINDING interfaces to ppsparse/c/mcpi.h, and
!> helpers that initialise and finalise Kokkos and return the last error message.
!>
!>   use ppsparse_mcpi
!>   type(c_ptr) :: solver
!>   type(ppsparse_mcpi_control) :: control
!>   type(ppsparse_mcpi_status) :: status
!>   ierr = ppsparse_initialize()
!>   ierr = ppsparse_mcpi_create(solver, nb, n, row_ptr, col_idx, 1, c_null_ptr, PPSPARSE_MEMORY_HOST)
!>   ierr = ppsparse_mcpi_update(solver, O, D, PPSPARSE_COLUMN_MAJOR, PPSPARSE_MEMORY_HOST)
!>   call ppsparse_mcpi_control_default(control)
!>   control%rtol = 1d-6
!>   ierr = ppsparse_mcpi_apply(solver, R, dq, PPSPARSE_MEMORY_HOST, control, status)
!>   if (ierr /= PPSPARSE_SUCCESS) print *, ppsparse_error_message()
!>   ierr = ppsparse_mcpi_destroy(solver)
!>   ierr = ppsparse_finalize()
!>
!> Index arrays are default-kind 32-bit integers with index_base 1 (Fortran) or 0; blocks are
!> column-major, Fortran's order (PPSPARSE_COLUMN_MAJOR).
module ppsparse_mcpi
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: PPSPARSE_SUCCESS = 0, PPSPARSE_ERROR_INVALID_ARGUMENT = 1, &
                                       PPSPARSE_ERROR_NUMERICAL = 2, PPSPARSE_ERROR_OUT_OF_MEMORY = 3, &
                                       PPSPARSE_ERROR_INTERNAL = 4
  integer(c_int), parameter, public :: PPSPARSE_MEMORY_HOST = 0, PPSPARSE_MEMORY_DEVICE = 1
  integer(c_int), parameter, public :: PPSPARSE_COLUMN_MAJOR = 0, PPSPARSE_ROW_MAJOR = 1
  integer(c_int), parameter, public :: PPSPARSE_CONVERGED = 0, PPSPARSE_MAX_SWEEPS = 1, &
                                       PPSPARSE_DIVERGED = 2, PPSPARSE_NOT_FINITE = 3, PPSPARSE_FAILED = 4
  !> How the sweeps store O (ppsparse_mcpi_options%o_format).
  integer(c_int), parameter, public :: PPSPARSE_O_FP32 = 0, PPSPARSE_O_BF16 = 1, PPSPARSE_O_FP16 = 2, &
                                       PPSPARSE_O_INT8 = 3

  !> Setup options of ppsparse_mcpi_create_with (ppsparse_mcpi_options_default sets the defaults).
  type, bind(C), public :: ppsparse_mcpi_options
    integer(c_int) :: o_format
    integer(c_int) :: o_keep_fp32
    integer(c_int) :: o_keep_fp64  !< 1: FGMRES's operator reads the user's O in FP64
    integer(c_int) :: lu_fp32      !< 1: the sweeps read D's LU factors in FP32
  end type

  !> The multigrid's coarse corrections and their scaling (ppsparse_multigrid_options).
  integer(c_int), parameter, public :: PPSPARSE_CYCLE_V = 0, PPSPARSE_CYCLE_W = 1, PPSPARSE_CYCLE_K = 2
  integer(c_int), parameter, public :: PPSPARSE_SCALING_AUTO = 0, PPSPARSE_SCALING_NONE = 1, &
                                       PPSPARSE_SCALING_ENERGY = 2, PPSPARSE_SCALING_RESIDUAL = 3

  !> An aggregation multigrid over the solver (ppsparse_mcpi_create_multigrid;
  !> ppsparse_multigrid_options_default sets the defaults).
  type, bind(C), public :: ppsparse_multigrid_options
    integer(c_int) :: max_levels
    integer(c_int32_t) :: coarse_rows
    integer(c_int) :: matching_passes
    integer(c_int) :: pre_sweeps
    integer(c_int) :: post_sweeps
    integer(c_int) :: coarse_sweeps
    integer(c_int) :: cycle
    integer(c_int) :: cycle_every  !< the W or K corrections at every cycle_every-th level only (default 1)
    integer(c_int32_t) :: cycle_min_rows  !< and only on levels of at least this many block rows (default 0)
    integer(c_int) :: scaling
    integer(c_int) :: coarse_o_format  !< PPSPARSE_O_*, or -1 (default): BF16 where the finest is FP32
  end type

  !> Stopping criteria of ppsparse_mcpi_apply (ppsparse_mcpi_control_default sets the defaults).
  type, bind(C), public :: ppsparse_mcpi_control
    integer(c_int) :: max_sweeps
    real(c_double) :: rtol
    real(c_double) :: atol
    integer(c_int) :: check_interval
    integer(c_int) :: initial_guess_given
    integer(c_int) :: final_residual
    real(c_double) :: divergence_factor
    integer(c_int) :: sweep_graphs
  end type

  !> FGMRES(restart) with MCPI preconditioning (ppsparse_fgmres_control_default sets the defaults).
  type, bind(C), public :: ppsparse_fgmres_control
    integer(c_int) :: restart
    integer(c_int) :: max_iterations
    real(c_double) :: rtol
    real(c_double) :: atol
    integer(c_int) :: sweeps
    integer(c_int) :: initial_guess_given
    real(c_double) :: divergence_factor
  end type

  !> What a solve did.
  type, bind(C), public :: ppsparse_mcpi_status
    integer(c_int) :: reason
    integer(c_int) :: sweeps
    integer(c_int) :: iterations
    real(c_double) :: initial_residual
    real(c_double) :: final_residual
  end type

  public :: ppsparse_initialize, ppsparse_finalize, ppsparse_error_message
  public :: ppsparse_mcpi_control_default, ppsparse_fgmres_control_default
  public :: ppsparse_mcpi_create, ppsparse_mcpi_create_with, ppsparse_mcpi_options_default
  public :: ppsparse_mcpi_destroy, ppsparse_mcpi_sizes
  public :: ppsparse_mcpi_update, ppsparse_mcpi_update_f32, ppsparse_mcpi_apply, ppsparse_mcpi_fgmres
  public :: ppsparse_mcpi_multiply, ppsparse_mcpi_history, ppsparse_mcpi_fgmres_operator
  public :: ppsparse_mcpi_create_multigrid, ppsparse_multigrid_options_default, ppsparse_mcpi_levels
  public :: ppsparse_multigrid_options_flow_jacobian

  interface
    !> Initialises Kokkos unless it already is.
    integer(c_int) function ppsparse_initialize() bind(C, name="ppsparse_initialize")
      import :: c_int
    end function
    !> Finalises Kokkos if ppsparse_initialize initialised it (destroy every solver first).
    integer(c_int) function ppsparse_finalize() bind(C, name="ppsparse_finalize")
      import :: c_int
    end function
    type(c_ptr) function c_last_error() bind(C, name="ppsparse_last_error")
      import :: c_ptr
    end function
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function
    subroutine ppsparse_mcpi_control_default(control) bind(C, name="ppsparse_mcpi_control_default")
      import :: ppsparse_mcpi_control
      type(ppsparse_mcpi_control), intent(out) :: control
    end subroutine
    subroutine ppsparse_fgmres_control_default(control) bind(C, name="ppsparse_fgmres_control_default")
      import :: ppsparse_fgmres_control
      type(ppsparse_fgmres_control), intent(out) :: control
    end subroutine
    !> Setup from the structure of O; colors: c_null_ptr (ppsparse colours) or c_loc of n colours.
    integer(c_int) function ppsparse_mcpi_create(solver, nb, n, row_ptr, col_idx, index_base, colors, memory) &
        bind(C, name="ppsparse_mcpi_create")
      import :: c_int, c_int32_t, c_ptr
      type(c_ptr), intent(out) :: solver
      integer(c_int), value :: nb
      integer(c_int32_t), value :: n
      integer(c_int32_t), intent(in) :: row_ptr(*), col_idx(*)
      integer(c_int), value :: index_base
      type(c_ptr), value :: colors
      integer(c_int), value :: memory
    end function
    !> ppsparse_mcpi_create with setup options (the storage format of O).
    integer(c_int) function ppsparse_mcpi_create_with(solver, nb, n, row_ptr, col_idx, index_base, colors, memory, &
                                                      options) bind(C, name="ppsparse_mcpi_create_with")
      import :: c_int, c_int32_t, c_ptr, ppsparse_mcpi_options
      type(c_ptr), intent(out) :: solver
      integer(c_int), value :: nb
      integer(c_int32_t), value :: n
      integer(c_int32_t), intent(in) :: row_ptr(*), col_idx(*)
      integer(c_int), value :: index_base
      type(c_ptr), value :: colors
      integer(c_int), value :: memory
      type(ppsparse_mcpi_options), intent(in) :: options
    end function
    integer(c_int) function ppsparse_mcpi_create_multigrid(solver, nb, n, row_ptr, col_idx, index_base, memory, &
                                                           options, multigrid) &
        bind(C, name="ppsparse_mcpi_create_multigrid")
      import :: c_int, c_int32_t, c_ptr, ppsparse_mcpi_options, ppsparse_multigrid_options
      type(c_ptr), intent(out) :: solver
      integer(c_int), value :: nb
      integer(c_int32_t), value :: n
      integer(c_int32_t), intent(in) :: row_ptr(*), col_idx(*)
      integer(c_int), value :: index_base
      integer(c_int), value :: memory
      type(ppsparse_mcpi_options), intent(in) :: options
      type(ppsparse_multigrid_options), intent(in) :: multigrid
    end function
    subroutine ppsparse_multigrid_options_default(options) bind(C, name="ppsparse_multigrid_options_default")
      import :: ppsparse_multigrid_options
      type(ppsparse_multigrid_options), intent(out) :: options
    end subroutine
    !> The setting for the Jacobians of compressible flows (a V-cycle over pairs; see the C header).
    subroutine ppsparse_multigrid_options_flow_jacobian(options) &
        bind(C, name="ppsparse_multigrid_options_flow_jacobian")
      import :: ppsparse_multigrid_options
      type(ppsparse_multigrid_options), intent(out) :: options
    end subroutine
    integer(c_int) function ppsparse_mcpi_levels(solver, capacity, rows, count) bind(C, name="ppsparse_mcpi_levels")
      import :: c_int, c_int32_t, c_ptr
      type(c_ptr), value :: solver
      integer(c_int), value :: capacity
      integer(c_int32_t), intent(out) :: rows(*)
      integer(c_int), intent(out) :: count
    end function
    subroutine ppsparse_mcpi_options_default(options) bind(C, name="ppsparse_mcpi_options_default")
      import :: ppsparse_mcpi_options
      type(ppsparse_mcpi_options), intent(out) :: options
    end subroutine
    integer(c_int) function ppsparse_mcpi_destroy(solver) bind(C, name="ppsparse_mcpi_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
    end function
    integer(c_int) function ppsparse_mcpi_sizes(solver, nb, n, nnzb, ncolors) bind(C, name="ppsparse_mcpi_sizes")
      import :: c_int, c_int32_t, c_int64_t, c_ptr
      type(c_ptr), value :: solver
      integer(c_int), intent(out) :: nb
      integer(c_int32_t), intent(out) :: n
      integer(c_int64_t), intent(out) :: nnzb
      integer(c_int32_t), intent(out) :: ncolors
    end function
    integer(c_int) function ppsparse_mcpi_update(solver, O, D, block_order, memory) bind(C, name="ppsparse_mcpi_update")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: O(*), D(*)
      integer(c_int), value :: block_order, memory
    end function
    integer(c_int) function ppsparse_mcpi_update_f32(solver, O, D, block_order, memory) &
        bind(C, name="ppsparse_mcpi_update_f32")
      import :: c_int, c_float, c_double, c_ptr
      type(c_ptr), value :: solver
      real(c_float), intent(in) :: O(*)
      real(c_double), intent(in) :: D(*)
      integer(c_int), value :: block_order, memory
    end function
    integer(c_int) function ppsparse_mcpi_apply(solver, R, dq, memory, control, status) &
        bind(C, name="ppsparse_mcpi_apply")
      import :: c_int, c_double, c_ptr, ppsparse_mcpi_control, ppsparse_mcpi_status
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: R(*)
      real(c_double), intent(inout) :: dq(*)
      integer(c_int), value :: memory
      type(ppsparse_mcpi_control), intent(in), optional :: control  ! absent: the defaults
      type(ppsparse_mcpi_status), intent(out), optional :: status
    end function
    integer(c_int) function ppsparse_mcpi_fgmres(solver, R, dq, memory, control, status) &
        bind(C, name="ppsparse_mcpi_fgmres")
      import :: c_int, c_double, c_ptr, ppsparse_fgmres_control, ppsparse_mcpi_status
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: R(*)
      real(c_double), intent(inout) :: dq(*)
      integer(c_int), value :: memory
      type(ppsparse_fgmres_control), intent(in), optional :: control  ! absent: the defaults
      type(ppsparse_mcpi_status), intent(out), optional :: status
    end function
    !> ppsparse_mcpi_fgmres with the caller's operator instead of the handle's A: op is
    !> c_funloc of an integer(c_int) function op(x, y, context) bind(C) that sets y = A x
    !> (x and y as R; context a type(c_ptr), value, passed through) and returns 0, or a nonzero
    !> code that ends the call. The sweeps over the handle's values precondition it.
    integer(c_int) function ppsparse_mcpi_fgmres_operator(solver, op, context, R, dq, memory, control, status) &
        bind(C, name="ppsparse_mcpi_fgmres_operator")
      import :: c_int, c_double, c_ptr, c_funptr, ppsparse_fgmres_control, ppsparse_mcpi_status
      type(c_ptr), value :: solver
      type(c_funptr), value :: op
      type(c_ptr), value :: context
      real(c_double), intent(in) :: R(*)
      real(c_double), intent(inout) :: dq(*)
      integer(c_int), value :: memory
      type(ppsparse_fgmres_control), intent(in), optional :: control  ! absent: the defaults
      type(ppsparse_mcpi_status), intent(out), optional :: status
    end function
    !> The last solve's residual checks: up to capacity (steps, residuals); count gets how many there were.
    integer(c_int) function ppsparse_mcpi_history(solver, capacity, steps, residuals, count) &
        bind(C, name="ppsparse_mcpi_history")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: solver
      integer(c_int), value :: capacity
      integer(c_int), intent(out) :: steps(*)
      real(c_double), intent(out) :: residuals(*)
      integer(c_int), intent(out) :: count
    end function
    integer(c_int) function ppsparse_mcpi_multiply(solver, x, y, memory) bind(C, name="ppsparse_mcpi_multiply")
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: x(*)
      real(c_double), intent(out) :: y(*)
      integer(c_int), value :: memory
    end function
  end interface

contains

  !> The message of the last failed call, as a Fortran string.
  function ppsparse_error_message() result(message)
    character(len=:), allocatable :: message
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = c_last_error()
    n = int(c_strlen(p))
    allocate(character(len=n) :: message)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      message(i:i) = chars(i)
    end do
  end function

end module ppsparse_mcpi

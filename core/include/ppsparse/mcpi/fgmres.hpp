#pragma once
/// @file
/// Flexible GMRES(m) right-preconditioned by MCPI sweeps (FUN3D's linear solver):
///
///   mcpi::Fgmres<> gmres(solver, control);       // workspace allocated once
///   for (each time step) {
///     solver.update(exec, O, D);
///     mcpi::Status s = gmres.solve(exec, R, dQ); // device vectors, user numbering
///   }
///
/// The Krylov vectors are FP64 in the solver's colour order; orthogonalisation is classical
/// Gram-Schmidt applied twice (three fused passes over the basis, each one read of it and one
/// small host copy), the Hessenberg least-squares problem by Givens rotations on the host.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/control.hpp>
#include <ppsparse/mcpi/solver.hpp>

namespace ppsparse::mcpi {

/// InvalidArgument naming the field unless c is a valid FgmresControl.
void check_fgmres_control(const FgmresControl& c);

/// FGMRES(m) with MCPI preconditioning over one Solver (which must outlive it); the template
/// parameters are the solver's. Its operator is the solver's multiply_internal: A with O as the
/// solver stores it, or with the user's O in FP64 where the solver keeps it
/// (OStorage::keep_fp64); the status's residuals, and so its converged, are of that system
/// (Status::system).
template <class ExecSpace = DefaultExecSpace, class OScalar = float, class DScalar = double, class XScalar = float>
class Fgmres {
 public:
  using SolverType = Solver<ExecSpace, OScalar, DScalar, XScalar>;
  using memory_space = typename ExecSpace::memory_space;
  using Matrix = Kokkos::View<double**, Kokkos::LayoutLeft, memory_space>;
  using Vector = typename SolverType::Vector;
  using ConstVector = typename SolverType::ConstVector;

  /// Checks the control (check_fgmres_control) and allocates the workspace: 2 m + 3 vectors.
  Fgmres(SolverType& solver, const FgmresControl& control = {});

  const FgmresControl& control() const { return control_; }
  /// The control of the next solves (checked as the constructor's); the workspace is allocated
  /// again only where the restart length changed. The solves are then those of an Fgmres built
  /// with this control.
  void set_control(const FgmresControl& control);

  /// z = M^-1 v in the solver's colour order, on exec: a preconditioner in place of the control's
  /// MCPI sweeps (a multigrid cycle, mcpi/multigrid.hpp). Empty: the sweeps.
  using Preconditioner = std::function<void(const ExecSpace&, const ConstVector&, const Vector&)>;
  void set_preconditioner(Preconditioner p) { preconditioner_ = std::move(p); }

  /// Solves A dQ = R; R and dQ are n * nb doubles in the user's numbering (device views; host
  /// views are staged). The status counts iterations and preconditioner sweeps; its final
  /// residual is the true ||R - A dQ||_2. Errors as Solver::apply.
  template <class RView, class XView>
  Status solve(const ExecSpace& exec, const RView& R, const XView& dQ) {
    return solve_arrays(exec, detail::user_vector<ExecSpace>(R, "fgmres: R"),
                        detail::user_vector<ExecSpace>(dQ, "fgmres: dQ"), nullptr, {});
  }

  /// y = A x with x and y in the user's numbering (device views of n * nb doubles).
  using Operator = std::function<void(const ExecSpace&, const ConstVector&, const Vector&)>;
  /// Solves op(dQ) = R, this call only, with `op` in place of the solver's own A: for example
  /// the finite-difference product of a nonlinear residual's Jacobian (Jacobian-free
  /// Newton-Krylov, Knoll and Keyes 2004), preconditioned by the sweeps (or the preconditioner
  /// above) over the solver's assembled approximation of it. The status's residuals are of this
  /// operator's system (Status::system says "operator: <name>"). An error thrown by op ends the
  /// call with that error.
  template <class RView, class XView>
  Status solve(const ExecSpace& exec, const RView& R, const XView& dQ, const Operator& op,
               const std::string& name = "user operator") {
    return solve_arrays(exec, detail::user_vector<ExecSpace>(R, "fgmres: R"),
                        detail::user_vector<ExecSpace>(dQ, "fgmres: dQ"), &op, name);
  }

 private:
  /// The solve, by op where it is not null (named op_name), else by the solver's A.
  Status solve_arrays(const ExecSpace& exec, const detail::UserArray& R, const detail::UserArray& dQ,
                      const Operator* op, const std::string& op_name);
  /// The Krylov bases and the Hessenberg column for restart length m.
  void allocate_basis(int m);
  static Vector column(const Matrix& M, int j) { return Vector(M.data() + j * M.stride(1), M.extent(0)); }
  /// r = b - A x; returns ||r||_2 (synchronises).
  double residual(const ExecSpace& exec, const Operator* op);
  /// dst = the user's vector v.
  void stage_in(const ExecSpace& exec, const detail::UserArray& v, const Vector& dst);
  /// y = A x in the solver's colour order, by op where it is not null, else by the solver's own.
  void multiply(const ExecSpace& exec, const Operator* op, const ConstVector& x, const Vector& y);

  SolverType& solver_;
  FgmresControl control_;
  Preconditioner preconditioner_;
  Vector user_x_, user_y_;  ///< an operator's vectors in the user's numbering (allocated at its first solve)
  Matrix V_, Z_;
  Vector b_, x_, r_;
  Kokkos::View<double*, memory_space> h_, h2_;
};

}  // namespace ppsparse::mcpi

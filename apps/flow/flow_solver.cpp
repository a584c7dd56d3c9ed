// The flow solver's pseudo-time loop (FlowSolver::run): each step's residual, Jacobian,
// linear solve (by the assembled first-order Jacobian or, at second order, Newton-Krylov) and
// relaxed update, the CFL numbers' adaptation, and the switch from first to second order.
#include "euler_solver.hpp"

namespace flow {
namespace detail {

template <int D>
std::vector<StepRecord> EulerSolver<D>::run(const NonlinearControl& c,
                                            const std::function<void(const StepRecord&)>& on_step,
                                            const std::vector<int>& dump_steps, const std::string& dump_prefix) {
  check_control(c);
  linear_->prepare(resolve_control(c, setup_.order));
  limiter_ratchet_ = limiter_held_ = false;
  // Second order starts from a first-order solution (NonlinearControl::first_order_drop).
  order_ = setup_.order == 2 && c.first_order_drop > 0 ? 1 : setup_.order;
  double second_order_r0 = 0;  // the second-order residual at its first step
  Kokkos::deep_copy(cfl_, c.cfl);
  const double cfl_max = c.cfl_max > 0 ? c.cfl_max : c.linear != NonlinearControl::Linear::mcpi ? 1e6 : 5e3;
  std::vector<StepRecord> history;
  const auto start = Clock::now();
  double r0 = 0;
  const Exec exec;
  for (int step = 1;; ++step) {
    StepRecord rec;
    rec.step = step;
    auto t = Clock::now();
    compute_residual();
    rec.residual = density_norm();
    if (!std::isfinite(rec.residual))
      throw NumericalError("flow: the density residual is " + std::to_string(rec.residual) + " at step " +
                           std::to_string(step));
    if (step == 1) r0 = rec.residual > 0 ? rec.residual : 1;
    rec.relative = rec.residual / r0;
    if (!history.empty())
      Kokkos::parallel_for(
          "flow::adapt_cfl", Kokkos::RangePolicy<Exec>(0, dual_.nvertices),
          AdaptLocalCfl{cfl_, relaxation_, cfl_factors(c, history.back(), rec.residual), 1e-3 * c.cfl, cfl_max});
    if (order_ != setup_.order && rec.relative <= c.first_order_drop) {
      // The switch to second order: its residual of this state, the CFL numbers kept.
      order_ = setup_.order;
      compute_residual();
      rec.residual = density_norm();
      rec.relative = rec.residual / r0;
    }
    rec.order = order_;
    if (order_ == 2 && second_order_r0 == 0) second_order_r0 = rec.residual > 0 ? rec.residual : 1;
    rec.t_residual = seconds_since(t);
    // The limiter only decreasing from the next residual on.
    if (order_ == 2 && rec.residual <= setup_.limiter_freeze * second_order_r0) limiter_ratchet_ = true;
    if (order_ == 2 && rec.residual <= setup_.limiter_hold * second_order_r0) limiter_held_ = true;
    // FGMRES's operator for this step (NonlinearControl::newton_krylov).
    using NK = NonlinearControl::NewtonKrylov;
    rec.newton_krylov =
        linear_->krylov() &&
        (c.newton_krylov == NK::on || (c.newton_krylov == NK::automatic && order_ == 2 &&
                                       (limiter_ratchet_ || setup_.limiter_freeze == 0 || setup_.limiter_k == 0)));
    const bool done = rec.relative <= c.drop || rec.residual == 0;
    if (done || step > c.max_steps) {
      rec.elapsed = seconds_since(start);
      history.push_back(rec);
      if (on_step) on_step(rec);
      break;
    }
    const auto rhs = rhs_;
    const auto R = R_;
    Kokkos::parallel_for(
        "flow::rhs", Kokkos::RangePolicy<Exec>(0, R.extent(0)), KOKKOS_LAMBDA(const size_t k) { rhs(k) = -R(k); });
    const bool dump = std::find(dump_steps.begin(), dump_steps.end(), step) != dump_steps.end();
    for (;;) {
      range_of(cfl_, rec.cfl_min, rec.cfl);
      t = Clock::now();
      std::vector<double> Dh;
      assemble_system(dump ? &Dh : nullptr);
      Kokkos::fence();
      rec.t_jacobian += seconds_since(t);
      if (dump && rec.retries == 0) dump_system(dump_prefix, step, Dh);
      t = Clock::now();
      rec.levels = linear_->factor(exec);
      exec.fence();
      rec.t_factor += seconds_since(t);
      t = Clock::now();
      const ppsparse::mcpi::Status s =
          rec.newton_krylov
              ? linear_->solve(
                    exec, rhs_, dQ_,
                    [this, uu = state_norm_squared()](const Exec&, const ConstVector& x, const Vector& y) {
                      jacobian_product(x, y, true, uu);
                    },
                    "the residual's Jacobian by finite differences, plus V / dt")
              : linear_->solve(exec, rhs_, dQ_);
      exec.fence();
      rec.t_solve += seconds_since(t);
      rec.linear_iterations += s.iterations;
      rec.sweeps += s.sweeps;
      rec.linear_relative = s.initial_residual > 0 ? s.final_residual / s.initial_residual : 0;
      rec.linear_at_limit = s.reason == ppsparse::mcpi::StopReason::max_sweeps;
      t = Clock::now();
      rec.relaxation = s.reason != ppsparse::mcpi::StopReason::not_finite
                           ? apply_relaxed_update<D>(U_, dQ_, relaxation_, constants_.gamma, c.max_change)
                           : 0;
      Kokkos::fence();
      rec.t_update += seconds_since(t);
      if (rec.relaxation > 0) break;
      // A non-physical update: the same step again at a tenth of the CFL number.
      if (++rec.retries > 6)
        throw NumericalError("flow: step " + std::to_string(step) +
                             ": the update makes density or pressure negative even at CFL numbers up to " +
                             std::to_string(rec.cfl));
      Kokkos::parallel_for("flow::retry_cfl", Kokkos::RangePolicy<Exec>(0, dual_.nvertices),
                           AdaptLocalCfl{cfl_, relaxation_, CflFactors{0.1, 0.1, 0.1}, 1e-3 * c.cfl, cfl_max});
    }
    rec.elapsed = seconds_since(start);
    history.push_back(rec);
    if (on_step) on_step(rec);
  }
  order_ = setup_.order;  // residual() and jacobian_product() at the setup's order
  return history;
}

}  // namespace detail

std::unique_ptr<FlowSolver> make_flow_solver(const ppsparse::mesh::Mesh& m, const FlowSetup& setup,
                                             const std::function<void(const std::string&)>& progress) {
  ppsparse::mesh::validate(m, "flow: mesh");
  check_setup(setup, m.dim, m.marker_names.size());
  if (m.dim == 2) {
    return std::make_unique<detail::EulerSolver<2>>(m, setup, progress);
  }
  return std::make_unique<detail::EulerSolver<3>>(m, setup, progress);
}

}  // namespace flow

// The MCPI solver's apply loop and stopping rules (apply_loop.hpp), compiled once per precision
// on the default execution space.
#include "apply_loop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <ppsparse/backend/l2_window.hpp>
#include <ppsparse/error.hpp>

#include "precisions.hpp"
#include "vector_kernels.hpp"

namespace ppsparse::mcpi::detail {

namespace {

/// NumericalError naming the first user block row of x (colour order) holding a NaN or Inf (on
/// a distributed solver, of the first rank holding one), or saying that x's norm overflows when
/// no entry is a NaN or Inf.
template <class E, class OS, class DS, class XS, class X>
[[noreturn]] void throw_not_finite(const E& exec, const LevelArrays<E, OS, DS, XS>& a,
                                   const ColorLoop<E, OS, DS, XS>& loop, const X& x, const char* what) {
  loop.collectively([&] {
    const long long first = impl::first_not_finite_row(exec, x, a.nb());
    if (first >= 0)
      throw NumericalError(std::string("mcpi: ") + what + " holds a NaN or Inf in block row " +
                           a.user_row(static_cast<ordinal_t>(first)));
  });
  throw NumericalError(std::string("mcpi: the norm of ") + what + " overflows");
}

}  // namespace

template <class E, class OS, class DS, class XS>
Status run_apply(const E& exec, LevelArrays<E, OS, DS, XS>& a, ColorLoop<E, OS, DS, XS>& loop, const Control& control,
                 bool given) {
  using ConstVector = Kokkos::View<const double*, typename E::memory_space>;
  if (given) loop.exchange_all(exec);
  const ResolvedSweep& rs = loop.resolved(exec, control.variant, true, KernelTuning{});
  Status st;
  st.kernel = rs.name;
  st.system = a.residual_system();
  const bool tolerance = control.rtol > 0 || control.atol > 0;
  const bool sync = control.final_residual || tolerance || control.check_interval > 0;
  double tol = 0.0;
  st.initial_residual = st.final_residual = std::numeric_limits<double>::quiet_NaN();
  if (sync) {
    const ConstVector rhs = a.sweeper().rhs;
    const double rn = std::sqrt(loop.global_sum(impl::sum_squares(exec, rhs)));
    if (!std::isfinite(rn)) throw_not_finite(exec, a, loop, rhs, "R");
    st.initial_residual = rn;
    if (given) {
      st.initial_residual = loop.true_residual(exec);
      if (!std::isfinite(st.initial_residual)) throw_not_finite(exec, a, loop, a.dq_owned(), "the initial dQ");
    }
    tol = std::max(control.atol, control.rtol * st.initial_residual);
  }
  backend::L2Window window;
  if (rs.variant.l2_window && rs.specialised) {
    const auto& dq = a.sweeper().dq;
    window = backend::l2_window_begin(exec, dq.data(), dq.span() * sizeof(XS));
  }
  bool have_final = false;
  int s = 0;
  while (s < control.max_sweeps) {
    const int ci = control.check_interval;
    const bool check = ci > 0 && (s + 1) % ci == 0;
    have_final = false;  // a sweep changes dQ
    if (!check) {        // the sweeps up to the next check, or to the end
      const int run = ci > 0 ? std::min(control.max_sweeps, (s / ci + 1) * ci - 1) - s : control.max_sweeps - s;
      loop.run_sweeps(exec, rs, run, control.sweep_graphs);
      s += run;
      continue;
    }
    const double est = loop.checked_sweep(exec, rs);
    st.history.push_back({s, est});  // the iterate after s sweeps, as sweep s + 1 met it
    ++s;
    if (!std::isfinite(est)) {
      st.reason = StopReason::not_finite;
      break;
    }
    if (tolerance && est <= tol) {
      st.final_residual = loop.true_residual(exec);
      have_final = true;
      if (st.final_residual <= tol) {
        st.reason = StopReason::converged;
        break;
      }
    }
    if (est > control.divergence_factor * st.initial_residual) {
      st.reason = StopReason::diverged;
      break;
    }
  }
  if (window.active) backend::l2_window_end(exec, window);
  st.sweeps = s;
  if (control.final_residual && !have_final) {
    st.final_residual = loop.true_residual(exec);
    have_final = true;
  }
  if (have_final && !std::isfinite(st.final_residual)) {
    st.reason = StopReason::not_finite;
  } else if (have_final && tolerance && st.reason == StopReason::max_sweeps && st.final_residual <= tol) {
    st.reason = StopReason::converged;
  }
  return st;
}

template <class E, class OS, class DS, class XS>
void precondition(const E& exec, LevelArrays<E, OS, DS, XS>& a, ColorLoop<E, OS, DS, XS>& loop,
                  const Kokkos::View<const double*, typename E::memory_space>& v,
                  const Kokkos::View<double*, typename E::memory_space>& z, int sweeps, const Variant& variant) {
  a.require_values("precondition");
  auto& s = a.sweeper();
  s.rhs = Kokkos::View<double*, typename E::memory_space>(const_cast<double*>(v.data()), v.extent(0));
  Kokkos::deep_copy(exec, s.dq, XS(0));
  const ResolvedSweep& rs = loop.resolved(exec, variant, true, KernelTuning{});
  for (int k = 0; k < sweeps; ++k) loop.sweep(exec, rs);
  impl::convert(exec, a.dq_owned(), z);
  s.rhs = a.r();
}

#define PPSPARSE_MCPI_INSTANTIATE_APPLY_LOOP(unused, OS, DS, XS)                                  \
  template Status run_apply(const DefaultExecSpace&, LevelArrays<DefaultExecSpace, OS, DS, XS>&,  \
                            ColorLoop<DefaultExecSpace, OS, DS, XS>&, const Control&, bool);      \
  template void precondition(const DefaultExecSpace&, LevelArrays<DefaultExecSpace, OS, DS, XS>&, \
                             ColorLoop<DefaultExecSpace, OS, DS, XS>&,                            \
                             const Kokkos::View<const double*, DefaultExecSpace::memory_space>&,  \
                             const Kokkos::View<double*, DefaultExecSpace::memory_space>&, int, const Variant&);
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_APPLY_LOOP, _)
#undef PPSPARSE_MCPI_INSTANTIATE_APPLY_LOOP

}  // namespace ppsparse::mcpi::detail

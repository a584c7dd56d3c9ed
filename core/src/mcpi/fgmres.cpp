// FGMRES(m) with MCPI preconditioning (mcpi/fgmres.hpp), compiled once per solver precision.
#include <ppsparse/mcpi/fgmres.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "precisions.hpp"
#include "vector_kernels.hpp"

namespace ppsparse::mcpi {

template <class E, class OS, class DS, class XS>
Fgmres<E, OS, DS, XS>::Fgmres(SolverType& solver, const FgmresControl& control) : solver_(solver), control_(control) {
  check_fgmres_control(control_);
  const size_t len = static_cast<size_t>(solver.n()) * solver.nb();
  allocate_basis(control_.restart);
  b_ = Vector("fgmres.b", len);
  x_ = Vector("fgmres.x", len);
  r_ = Vector("fgmres.r", len);
  // The first use of the reductions sets them up (scratch): done here, so that the first solve
  // costs what later ones do.
  const E exec;
  const auto V0 = Kokkos::subview(V_, Kokkos::ALL(), Kokkos::make_pair(0, 1));
  double out[2];
  impl::gram_schmidt_pass(exec, V0, 1, h_, true, true, r_, out);
  solver_.norm(exec, ConstVector(b_));
  exec.fence();
}

template <class E, class OS, class DS, class XS>
void Fgmres<E, OS, DS, XS>::allocate_basis(int m) {
  const size_t len = static_cast<size_t>(solver_.n()) * solver_.nb();
  V_ = Matrix("fgmres.V", len, m + 1);
  Z_ = Matrix("fgmres.Z", len, m);
  h_ = Kokkos::View<double*, memory_space>("fgmres.h", m + 1);
  h2_ = Kokkos::View<double*, memory_space>("fgmres.h2", m + 1);
}

template <class E, class OS, class DS, class XS>
void Fgmres<E, OS, DS, XS>::set_control(const FgmresControl& control) {
  check_fgmres_control(control);
  if (control.restart != control_.restart) allocate_basis(control.restart);
  control_ = control;
}

template <class E, class OS, class DS, class XS>
Status Fgmres<E, OS, DS, XS>::solve_arrays(const E& exec, const detail::UserArray& R, const detail::UserArray& dQ,
                                           const Operator* op, const std::string& op_name) {
  const size_t len = b_.extent(0);
  if (R.size != len || dQ.size != len)
    throw InvalidArgument("mcpi fgmres: R and dQ must have n * nb = " + std::to_string(len) + " entries, got " +
                          std::to_string(R.size) + " and " + std::to_string(dQ.size));
  const FgmresControl& c = control_;
  const bool given = c.initial_guess == InitialGuess::given;
  stage_in(exec, R, r_);
  solver_.to_internal(exec, ConstVector(r_), b_);
  if (given) {
    stage_in(exec, dQ, r_);
    solver_.to_internal(exec, ConstVector(r_), x_);
  } else {
    Kokkos::deep_copy(exec, x_, 0.0);
  }
  Status st;
  st.kernel = solver_.kernel_name(exec, c.variant);
  if (op && !*op) op = nullptr;  // an empty function: the solver's A
  if (op && user_x_.extent(0) == 0) {
    user_x_ = Vector("fgmres.user_x", len);
    user_y_ = Vector("fgmres.user_y", len);
  }
  st.system = op ? "operator: " + op_name : solver_.operator_system();
  const double bn = solver_.norm(exec, ConstVector(b_));
  if (!std::isfinite(bn)) throw NumericalError("mcpi fgmres: R holds a NaN or Inf");
  // From dQ = 0 the residual is R itself: no operator product.
  double beta = bn;
  if (given) {
    beta = residual(exec, op);
  } else {
    Kokkos::deep_copy(exec, r_, b_);
  }
  if (!std::isfinite(beta)) throw NumericalError("mcpi fgmres: the initial dQ holds a NaN or Inf");
  st.initial_residual = beta;
  const double tol = std::max(c.atol, c.rtol * beta);
  const int m = c.restart;
  std::vector<double> H(static_cast<size_t>(m + 1) * m), cs(m), sn(m), g(m + 1), y(m);
  auto Hij = [&](int i, int j) -> double& { return H[static_cast<size_t>(j) * (m + 1) + i]; };
  auto hh = Kokkos::create_mirror_view(h_);
  auto hh2 = Kokkos::create_mirror_view(h2_);
  bool stop = beta <= tol;
  if (stop) st.reason = StopReason::converged;
  while (!stop && st.iterations < c.max_iterations) {
    // V(:, 0) = r / beta
    compat::scal(exec, column(V_, 0), 1.0 / beta, ConstVector(r_));
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int j = 0;
    for (; j < m && st.iterations < c.max_iterations; ++j) {
      const auto zj = column(Z_, j);
      if (preconditioner_) {
        preconditioner_(exec, ConstVector(column(V_, j)), zj);
      } else {
        solver_.precondition(exec, ConstVector(column(V_, j)), zj, c.sweeps, c.variant);
        st.sweeps += c.sweeps;
      }
      const auto w = column(V_, j + 1);
      multiply(exec, op, ConstVector(zj), w);
      // Classical Gram-Schmidt, twice, in three passes over V: h = V^T w; w -= V h and
      // h2 = V^T w; w -= V h2 and ||w||.
      const auto Vj = Kokkos::subview(V_, Kokkos::ALL(), Kokkos::make_pair(0, j + 1));
      std::vector<double> dots(static_cast<size_t>(j) + 2), dots2(static_cast<size_t>(j) + 2), last(j + 2);
      impl::gram_schmidt_pass(exec, Vj, j + 1, h_, false, true, w, dots.data());
      for (int i = 0; i <= j; ++i) hh(i) = dots[i];
      Kokkos::deep_copy(exec, h_, hh);
      impl::gram_schmidt_pass(exec, Vj, j + 1, h_, true, true, w, dots2.data());
      for (int i = 0; i <= j; ++i) hh2(i) = dots2[i];
      Kokkos::deep_copy(exec, h2_, hh2);
      impl::gram_schmidt_pass(exec, Vj, j + 1, h2_, true, false, w, last.data());
      const double hn = std::sqrt(last[static_cast<size_t>(j) + 1]);
      for (int i = 0; i <= j; ++i) Hij(i, j) = dots[i] + dots2[i];
      Hij(j + 1, j) = hn;
      ++st.iterations;
      // Previous rotations, then a new one that zeroes H(j + 1, j).
      for (int i = 0; i < j; ++i) {
        const double a = Hij(i, j), b = Hij(i + 1, j);
        Hij(i, j) = cs[i] * a + sn[i] * b;
        Hij(i + 1, j) = -sn[i] * a + cs[i] * b;
      }
      const double a = Hij(j, j), b = Hij(j + 1, j);
      const double rr = std::hypot(a, b);
      cs[j] = rr > 0 ? a / rr : 1.0;
      sn[j] = rr > 0 ? b / rr : 0.0;
      Hij(j, j) = rr;
      Hij(j + 1, j) = 0.0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      const double est = std::abs(g[j + 1]);
      st.history.push_back({st.iterations, est});
      if (!std::isfinite(est) || !std::isfinite(rr)) {
        st.reason = StopReason::not_finite;
        stop = true;
        break;
      }
      if (est <= tol || hn == 0.0) {
        ++j;
        break;
      }
      compat::scal(exec, w, 1.0 / hn, ConstVector(w));
    }
    if (st.reason == StopReason::not_finite) break;
    // x += Z y with H(0:j, 0:j) y = g(0:j).
    for (int i = j - 1; i >= 0; --i) {
      double s = g[i];
      for (int k = i + 1; k < j; ++k) s -= Hij(i, k) * y[k];
      y[i] = Hij(i, i) != 0.0 ? s / Hij(i, i) : 0.0;
    }
    // x -= Z (-y), in the Gram-Schmidt pass's one read of Z.
    for (int i = 0; i < j; ++i) hh(i) = -y[i];
    Kokkos::deep_copy(exec, h_, hh);
    std::vector<double> unused(static_cast<size_t>(j) + 1);
    impl::gram_schmidt_pass(exec, Kokkos::subview(Z_, Kokkos::ALL(), Kokkos::make_pair(0, j)), j, h_, true, false, x_,
                            unused.data());
    beta = residual(exec, op);
    if (!std::isfinite(beta)) {
      st.reason = StopReason::not_finite;
      break;
    }
    if (beta <= tol) {
      st.reason = StopReason::converged;
      break;
    }
    if (beta > c.divergence_factor * st.initial_residual) {
      st.reason = StopReason::diverged;
      break;
    }
  }
  st.final_residual = st.reason == StopReason::not_finite ? std::numeric_limits<double>::quiet_NaN() : beta;
  // dQ in the user's numbering.
  if (dQ.exec_accessible) {
    solver_.to_user(exec, ConstVector(x_), Vector(static_cast<double*>(dQ.data), dQ.size));
  } else {
    solver_.to_user(exec, ConstVector(x_), r_);
    Kokkos::deep_copy(
        exec, Kokkos::View<double*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<double*>(dQ.data), dQ.size), r_);
    exec.fence();
  }
  return st;
}

template <class E, class OS, class DS, class XS>
void Fgmres<E, OS, DS, XS>::multiply(const E& exec, const Operator* op, const ConstVector& x, const Vector& y) {
  if (!op) {
    solver_.multiply_internal(exec, x, y);
    return;
  }
  solver_.to_user(exec, x, user_x_);
  (*op)(exec, ConstVector(user_x_), user_y_);
  solver_.to_internal(exec, ConstVector(user_y_), y);
}

template <class E, class OS, class DS, class XS>
double Fgmres<E, OS, DS, XS>::residual(const E& exec, const Operator* op) {
  multiply(exec, op, ConstVector(x_), r_);
  impl::subtract_from(exec, b_, r_);
  return solver_.norm(exec, ConstVector(r_));
}

template <class E, class OS, class DS, class XS>
void Fgmres<E, OS, DS, XS>::stage_in(const E& exec, const detail::UserArray& v, const Vector& dst) {
  if (v.exec_accessible)
    Kokkos::deep_copy(exec, dst,
                      Kokkos::View<const double*, typename E::memory_space, Kokkos::MemoryUnmanaged>(
                          static_cast<const double*>(v.data), v.size));
  else
    Kokkos::deep_copy(
        exec, dst,
        Kokkos::View<const double*, HostSpace, Kokkos::MemoryUnmanaged>(static_cast<const double*>(v.data), v.size));
}

#define PPSPARSE_MCPI_INSTANTIATE_FGMRES(unused, OS, DS, XS) template class Fgmres<DefaultExecSpace, OS, DS, XS>;
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_FGMRES, _)
#undef PPSPARSE_MCPI_INSTANTIATE_FGMRES

}  // namespace ppsparse::mcpi

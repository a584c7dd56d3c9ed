#pragma once
// The flow solver's implementation (flow_solver.hpp): EulerSolver<D>, its state, residual,
// Jacobian and Newton-Krylov product on the device. Its pseudo-time loop, run(), is in
// flow_solver.cpp, the one file that includes this header.
#include "flow_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/csr.hpp>
#include <ppsparse/io/matrix_market.hpp>

#include "flow_kernels.hpp"
#include "linear_solver.hpp"
#include "vtu_writer.hpp"

namespace flow {

using ppsparse::InvalidArgument;
using ppsparse::NumericalError;

// A named namespace: CUDA's extended lambdas may not live in an unnamed one.
namespace detail {

using Exec = ppsparse::DefaultExecSpace;
using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

template <int D>
class EulerSolver final : public FlowSolver {
 public:
  static constexpr int nv = D + 2;

  EulerSolver(const ppsparse::mesh::Mesh& m, const FlowSetup& setup, const std::function<void(const std::string&)>& say)
      : coords_(m.coords), setup_(setup), dual_(build_dual_mesh(m, say)), order_(setup.order) {
    check_setup(setup, D, m.marker_names.size());
    const double g = setup.gamma;
    constants_.gamma = g;
    constants_.entropy_fix = setup.entropy_fix;
    constants_.mach = setup.mach;
    const double a = setup.alpha * M_PI / 180, b = setup.beta * M_PI / 180;
    if (D == 2) {
      direction_[0] = std::cos(a), direction_[1] = std::sin(a);
      lift_[0] = -std::sin(a), lift_[1] = std::cos(a);
    } else {
      const int up = setup.up, side = 3 - setup.up;
      direction_[0] = std::cos(a) * std::cos(b), direction_[side] = std::sin(b),
      direction_[up] = std::sin(a) * std::cos(b);
      lift_[0] = -std::sin(a), lift_[side] = 0, lift_[up] = std::cos(a);
    }
    const double p = 1 / g, M = setup.mach;
    constants_.free[0] = 1;
    for (int k = 0; k < D; ++k) constants_.free[1 + k] = M * direction_[k];
    constants_.free[D + 1] = p / (g - 1) + 0.5 * M * M;
    const double stag = 1 + 0.5 * (g - 1) * M * M;
    constants_.inlet_total_pressure =
        setup.inlet_total_pressure > 0 ? setup.inlet_total_pressure * p : p * std::pow(stag, g / (g - 1));
    constants_.inlet_total_temperature = setup.inlet_total_temperature > 0 ? setup.inlet_total_temperature : stag;
    double norm = 0;
    for (int k = 0; k < D; ++k) {
      constants_.inlet_direction[k] = setup.inlet_direction.empty() ? direction_[k] : setup.inlet_direction[k];
      norm += constants_.inlet_direction[k] * constants_.inlet_direction[k];
    }
    if (!(norm > 0)) throw InvalidArgument("flow: the inlet direction is zero");
    for (int k = 0; k < D; ++k) constants_.inlet_direction[k] /= std::sqrt(norm);
    constants_.outlet_pressure = setup.outlet_pressure * p;

    kinds_ = Kokkos::View<int*, MemSpace>("flow::kinds", setup.marker_kinds.size());
    auto kh = Kokkos::create_mirror_view(kinds_);
    for (size_t k = 0; k < setup.marker_kinds.size(); ++k) kh(k) = static_cast<int>(setup.marker_kinds[k]);
    Kokkos::deep_copy(kinds_, kh);

    const ordinal_t n = dual_.nvertices;
    U_ = Vector("flow::U", static_cast<size_t>(n) * nv);
    R_ = Vector("flow::R", static_cast<size_t>(n) * nv);
    rhs_ = Vector("flow::rhs", static_cast<size_t>(n) * nv);
    dQ_ = Vector("flow::dQ", static_cast<size_t>(n) * nv);
    lambda_ = Vector("flow::lambda", n);
    cfl_ = Vector("flow::cfl", n);
    relaxation_ = Vector("flow::relaxation", n);
    if (setup.order == 2) {
      grad_ = Matrix("flow::gradients", n, nv * D);
      phi_ = Matrix("flow::limiter", n, nv);
    }
    linear_ = std::make_unique<LinearSolver>(nv, n, dual_.row_ptr, dual_.col_idx, setup.o_storage, say);
    set_free_stream();
  }

  int dim() const override { return D; }
  int nb() const override { return nv; }
  ordinal_t nvertices() const override { return dual_.nvertices; }
  const DualMesh& dual() const override { return dual_; }
  const FlowSetup& setup() const override { return setup_; }

  void set_free_stream() override {
    limiter_ratchet_ = limiter_held_ = false;
    const auto U = U_;
    const FlowConstants<D> c = constants_;
    Kokkos::parallel_for(
        "flow::free_stream", Kokkos::RangePolicy<Exec>(0, dual_.nvertices), KOKKOS_LAMBDA(const ordinal_t i) {
          for (int k = 0; k < nv; ++k) U(i * nv + k) = c.free[k];
        });
    Kokkos::fence();
  }
  void set_state(const std::vector<double>& U) override {
    if (U.size() != U_.extent(0))
      throw InvalidArgument("flow: a state of " + std::to_string(U.size()) + " values for " +
                            std::to_string(U_.extent(0)));
    Kokkos::deep_copy(U_, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                              U.data(), U.size()));
    limiter_ratchet_ = limiter_held_ = false;
  }
  std::vector<double> state() const override { return to_host(U_); }

  // R = R(U), lambda = the spectral radii summed per vertex; at second order from U's gradients
  // and the limiter, recomputed from U (only decreasing once ratcheted) or, with !limiter, held
  // as the last evaluation left it.
  void evaluate_residual(const ConstVector& U, const Vector& R, const Vector& lambda, bool limiter) {
    Kokkos::deep_copy(R, 0.0);
    Kokkos::deep_copy(lambda, 0.0);
    if (order_ == 2) {
      const VertexStencil stencil = VertexStencil::of(dual_);
      Kokkos::parallel_for("flow::gradients", Kokkos::RangePolicy<Exec>(0, dual_.nvertices),
                           PrimitiveGradients<D>{stencil, U, grad_, constants_.gamma});
      if (limiter)
        Kokkos::parallel_for(
            "flow::limiter", Kokkos::RangePolicy<Exec>(0, dual_.nvertices),
            VenkatakrishnanLimiter<D>{stencil, U, grad_, phi_, constants_.gamma, setup_.limiter_k, limiter_ratchet_});
    }
    with_flux(setup_.flux,
              [&](auto scheme) { this->template residual_kernels<decltype(scheme)::value>(U, R, lambda); });
  }
  void compute_residual() { evaluate_residual(U_, R_, lambda_, !limiter_held_); }
  template <FluxScheme S>
  void residual_kernels(const ConstVector& U, const Vector& R, const Vector& lambda) {
    EdgeResidual<S, D> edges{dual_.edges, dual_.edge_normal, U, R, lambda, constants_};
    if (order_ == 2) {
      edges.second_order = true;
      edges.midpoint = MidpointStates<D>{dual_.coords, grad_, phi_, constants_.gamma};
    }
    Kokkos::parallel_for("flow::edge_residual", Kokkos::RangePolicy<Exec>(0, dual_.nedges()), edges);
    Kokkos::parallel_for("flow::boundary_residual", Kokkos::RangePolicy<Exec>(0, dual_.nbnodes()),
                         BoundaryResidual<S, D>{dual_.bnode_vertex, dual_.bnode_marker, dual_.bnode_normal, kinds_, U,
                                                R, lambda, constants_});
  }

  /// ||U||^2, which sets the difference product's step; once per step, not per product.
  double state_norm_squared() const {
    double uu = 0;
    const auto U = U_;
    Kokkos::parallel_reduce(
        "flow::state_norm", Kokkos::RangePolicy<Exec>(0, U.extent(0)),
        KOKKOS_LAMBDA(const size_t k, double& a) { a += U(k) * U(k); }, uu);
    return uu;
  }
  // y = dR/dU x + (lambda / cfl) x with pseudo_time, dR/dU x by a forward difference from R_,
  // the residual of U_ (Knoll and Keyes 2004): R(U + h x) with the limiter held, h = sqrt(eps)
  // ||U|| / ||x||, which perturbs U by about sqrt(eps) of itself (truncation and rounding errors
  // both near 1e-8 of the product). uu = ||U||^2 (state_norm_squared()).
  void jacobian_product(const ConstVector& x, const Vector& y, bool pseudo_time, double uu) {
    const size_t len = U_.extent(0);
    if (U_probe_.extent(0) != len) {
      U_probe_ = Vector("flow::U_probe", len);
      R_probe_ = Vector("flow::R_probe", len);
      lambda_probe_ = Vector("flow::lambda_probe", lambda_.extent(0));
    }
    double xx = 0;
    const auto U = U_;
    Kokkos::parallel_reduce(
        "flow::product_norm", Kokkos::RangePolicy<Exec>(0, len),
        KOKKOS_LAMBDA(const size_t k, double& a) { a += x(k) * x(k); }, xx);
    if (!(xx > 0)) {
      Kokkos::deep_copy(y, 0.0);
      return;
    }
    const double h = std::sqrt(std::numeric_limits<double>::epsilon() * uu / xx);
    const auto Up = U_probe_;
    Kokkos::parallel_for(
        "flow::probe_state", Kokkos::RangePolicy<Exec>(0, len),
        KOKKOS_LAMBDA(const size_t k) { Up(k) = U(k) + h * x(k); });
    evaluate_residual(Up, R_probe_, lambda_probe_, false);
    const auto Rp = R_probe_, R = R_;
    const auto lambda = lambda_;
    const ConstVector cfl = pseudo_time ? ConstVector(cfl_) : ConstVector();
    Kokkos::parallel_for(
        "flow::difference_product", Kokkos::RangePolicy<Exec>(0, len), KOKKOS_LAMBDA(const size_t k) {
          const size_t v = k / nv;
          y(k) = (Rp(k) - R(k)) / h + (cfl.extent(0) > 0 ? lambda(v) / cfl(v) * x(k) : 0.0);
        });
  }
  std::vector<double> jacobian_product(const std::vector<double>& x) override {
    if (x.size() != U_.extent(0))
      throw InvalidArgument("flow: a vector of " + std::to_string(x.size()) + " values for " +
                            std::to_string(U_.extent(0)));
    compute_residual();
    Vector xd("flow::x", x.size()), yd("flow::y", x.size());
    Kokkos::deep_copy(xd, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                              x.data(), x.size()));
    jacobian_product(xd, yd, false, state_norm_squared());
    Kokkos::fence();
    return to_host(yd);
  }
  std::vector<double> residual() override {
    compute_residual();
    Kokkos::fence();
    return to_host(R_);
  }
  std::vector<double> boundary_flux_sum() override {
    Vector sum("flow::boundary_sum", nv);
    auto run = [&](auto scheme) {
      constexpr FluxScheme S = decltype(scheme)::value;
      BoundaryResidual<S, D> k{dual_.bnode_vertex, dual_.bnode_marker, dual_.bnode_normal, kinds_, U_, sum, lambda_,
                               constants_};
      k.sum_only = true;
      Kokkos::parallel_for("flow::boundary_sum", Kokkos::RangePolicy<Exec>(0, dual_.nbnodes()), k);
    };
    with_flux(setup_.flux, run);
    Kokkos::fence();
    return to_host(sum);
  }

  // The flux Jacobian into O and D through the slot maps, with lambda / cfl on D's diagonal
  // (each vertex's CFL number, cfl_; none without pseudo_time): every block written by the row
  // kernel, then the boundary fluxes' added.
  template <class OScalar, class DScalar>
  void assemble(const Kokkos::View<OScalar*, MemSpace>& O, const Kokkos::View<DScalar*, MemSpace>& Dv,
                const Kokkos::View<const offset_t*, MemSpace>& o_slot,
                const Kokkos::View<const ordinal_t*, MemSpace>& d_slot, bool pseudo_time) {
    const ConstVector cfl = pseudo_time ? ConstVector(cfl_) : ConstVector();
    auto run = [&](auto scheme) {
      constexpr FluxScheme S = decltype(scheme)::value;
      auto rows = [&](auto directions) {
        using K = RowJacobian<S, D, decltype(directions)::value, OScalar, DScalar>;
        Kokkos::parallel_for("flow::row_jacobian",
                             Kokkos::RangePolicy<Exec>(0, static_cast<size_t>(dual_.nvertices) * K::lanes),
                             K{dual_.row_ptr_device, dual_.col_idx_device, dual_.pos_edge, dual_.edges,
                               dual_.edge_normal, U_, lambda_, cfl, O, Dv, o_slot, d_slot, constants_});
      };
      if (setup_.jacobian_lanes == 2) {  // nb directions a thread
        rows(std::integral_constant<int, nv>{});
      } else {
        rows(std::integral_constant<int, 1>{});
      }
      Kokkos::parallel_for("flow::boundary_jacobian", Kokkos::RangePolicy<Exec>(0, dual_.nbnodes()),
                           BoundaryJacobian<S, D, DScalar>{dual_.bnode_vertex, dual_.bnode_marker, dual_.bnode_normal,
                                                           kinds_, U_, Dv, d_slot, constants_});
    };
    with_flux(setup_.flux, run);
  }

  void jacobian(std::vector<double>& O, std::vector<double>& Dh) override {
    const offset_t nnzb = static_cast<offset_t>(dual_.col_idx.size());
    const ordinal_t n = dual_.nvertices;
    Kokkos::View<double*, MemSpace> Od("flow::O", static_cast<size_t>(nnzb) * nv * nv);
    Kokkos::View<double*, MemSpace> Dd("flow::D", static_cast<size_t>(n) * nv * nv);
    Kokkos::View<offset_t*, MemSpace> os("flow::o_identity", nnzb);
    Kokkos::View<ordinal_t*, MemSpace> ds("flow::d_identity", n);
    Kokkos::parallel_for(
        "flow::o_identity", Kokkos::RangePolicy<Exec>(0, nnzb), KOKKOS_LAMBDA(const offset_t k) { os(k) = k; });
    Kokkos::parallel_for(
        "flow::d_identity", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const ordinal_t k) { ds(k) = k; });
    assemble<double, double>(Od, Dd, os, ds, false);
    Kokkos::fence();
    O = to_host(Od);
    Dh = to_host(Dd);
  }

  // ||R_rho||_2.
  double density_norm() const {
    const auto R = R_;
    double s = 0;
    Kokkos::parallel_reduce(
        "flow::density_norm", Kokkos::RangePolicy<Exec>(0, dual_.nvertices),
        KOKKOS_LAMBDA(const ordinal_t i, double& acc) { acc += R(i * nv) * R(i * nv); }, s);
    return std::sqrt(s);
  }

  // The Jacobian plus V / dt on the diagonal, into the solver's storage, factored there.
  void assemble_system(std::vector<double>* dump_D) {
    auto st = linear_->storage();
    assemble<float, double>(st.O, st.D, st.o_slot, st.d_slot, true);
    const auto Dv = st.D;
    if (dump_D) {
      Kokkos::fence();
      *dump_D = to_host(Dv);
    }
  }

  void dump_system(const std::string& prefix, int step, const std::vector<double>& Dh) {
    const int nb2 = nv * nv;
    auto st = linear_->storage();
    auto O = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.O);
    auto os = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.o_slot);
    auto ds = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.d_slot);
    const ordinal_t n = dual_.nvertices;
    const offset_t nnz = (static_cast<offset_t>(dual_.col_idx.size()) + n) * nb2;
    ppsparse::CsrMatrix<double, Kokkos::HostSpace> A(n * nv, n * nv, nnz, "flow::A");
    offset_t at = 0;
    for (ordinal_t i = 0; i < n; ++i)
      for (int r = 0; r < nv; ++r) {
        const ordinal_t row = i * nv + r;
        // Blocks of row i in column order: the off-diagonal ones and the diagonal one.
        bool diag_done = false;
        auto put_diag = [&] {
          for (int c = 0; c < nv; ++c) {
            A.col_idx(at) = i * nv + c;
            A.values(at++) = Dh[static_cast<size_t>(ds(i)) * nb2 + c * nv + r];
          }
          diag_done = true;
        };
        for (offset_t k = dual_.row_ptr[i]; k < dual_.row_ptr[i + 1]; ++k) {
          const ordinal_t j = dual_.col_idx[k];
          if (!diag_done && j > i) put_diag();
          for (int c = 0; c < nv; ++c) {
            A.col_idx(at) = j * nv + c;
            A.values(at++) = O(static_cast<size_t>(os(k)) * nb2 + c * nv + r);
          }
        }
        if (!diag_done) put_diag();
        A.row_ptr(row + 1) = at;
      }
    const std::string base = prefix + "step" + std::to_string(step);
    ppsparse::io::write_matrix_market(base + "_A.mtx", A);
    auto rhs = to_host(rhs_);
    ppsparse::CsrMatrix<double, Kokkos::HostSpace> b(n * nv, 1, n * nv, "flow::R");
    for (ordinal_t i = 0; i < n * nv; ++i) {
      b.row_ptr(i + 1) = i + 1;
      b.col_idx(i) = 0;
      b.values(i) = rhs[static_cast<size_t>(i)];
    }
    ppsparse::io::MmWriteOptions array;
    array.format = ppsparse::io::MmFormat::array;
    ppsparse::io::write_matrix_market(base + "_R.mtx", b, array);
  }

  /// The pseudo-time loop (FlowSolver::run), in flow_solver.cpp.
  std::vector<StepRecord> run(const NonlinearControl& c, const std::function<void(const StepRecord&)>& on_step,
                              const std::vector<int>& dump_steps, const std::string& dump_prefix) override;

  double residual_bytes() const override {
    const double n = dual_.nvertices, ne = dual_.nedges(), nbn = dual_.nbnodes();
    const double first =
        n * nv * 8 * 2 + n * 8 + ne * (2 * sizeof(ordinal_t) + D * 8) + nbn * (sizeof(ordinal_t) + 4 + D * 8);
    if (setup_.order == 1) return first;
    // Second order: the gradients and the limiter written once and read once, the coordinates
    // and the pattern (row pointers, columns, each block's edge) read once.
    const double nnzb = static_cast<double>(dual_.col_idx.size());
    return first + n * nv * (D + 1) * 8 * 2 + n * D * 8 + n * sizeof(offset_t) + nnzb * 2 * sizeof(ordinal_t);
  }
  double assembly_bytes() const override {
    const double n = dual_.nvertices, ne = dual_.nedges(), nbn = dual_.nbnodes();
    const double nnzb = static_cast<double>(dual_.col_idx.size());
    // Written: O (FP32), D (FP64). Read: U and lambda, the pattern (row pointers, columns, the
    // edge of each block), the edges and their normals, the slot maps, the boundary nodes.
    return nnzb * nv * nv * sizeof(float) + n * nv * nv * sizeof(double) + n * (nv + 1) * 8 + n * sizeof(offset_t) +
           nnzb * (2 * sizeof(ordinal_t)) + ne * (2 * sizeof(ordinal_t) + D * 8) + nnzb * sizeof(offset_t) +
           n * sizeof(ordinal_t) + nbn * (sizeof(ordinal_t) + 4 + D * 8);
  }

  std::string linear_solver_summary() const override { return linear_->summary(); }

  Forces forces() const override {
    const auto U = to_host(U_);
    auto bv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dual_.bnode_vertex);
    auto bm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dual_.bnode_marker);
    auto bn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dual_.bnode_normal);
    Forces f;
    const double p_inf = 1 / constants_.gamma;
    for (size_t b = 0; b < bv.extent(0); ++b) {
      if (setup_.marker_kinds[static_cast<size_t>(bm(b))] != BoundaryKind::wall) continue;
      const double p = pressure<D>(&U[static_cast<size_t>(bv(b)) * nv], constants_.gamma);
      for (int k = 0; k < D; ++k) f.force[k] += (p - p_inf) * bn(b, k);
    }
    const double q = 0.5 * setup_.mach * setup_.mach * setup_.ref_area;
    for (int k = 0; k < D; ++k) {
      f.cl += f.force[k] * lift_[k] / q;
      f.cd += f.force[k] * direction_[k] / q;
    }
    return f;
  }

  void write_vtu(const std::string& path, const ppsparse::mesh::Mesh& m) const override {
    const auto U = to_host(U_);
    const size_t n = static_cast<size_t>(dual_.nvertices);
    const double g = constants_.gamma;
    std::vector<PointField> fields = {{"Density", 1, {}}, {"Velocity", 3, {}}, {"Pressure", 1, {}}, {"Mach", 1, {}}};
    for (auto& f : fields) f.values.reserve(n * static_cast<size_t>(f.components));
    for (size_t i = 0; i < n; ++i) {
      const double* W = &U[i * nv];
      const double p = pressure<D>(W, g);
      double q2 = 0;
      for (int k = 0; k < D; ++k) q2 += W[1 + k] * W[1 + k] / (W[0] * W[0]);
      fields[0].values.push_back(W[0]);
      for (int k = 0; k < 3; ++k) fields[1].values.push_back(k < D ? W[1 + k] / W[0] : 0.0);
      fields[2].values.push_back(p);
      fields[3].values.push_back(std::sqrt(q2 / (g * p / W[0])));
    }
    flow::write_vtu(path, m, fields);
  }

  void write_wall_cp(const std::string& path) const override {
    std::ofstream out(path);
    if (!out) throw ppsparse::Error("flow: cannot write '" + path + "'");
    const auto U = to_host(U_);
    auto bv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dual_.bnode_vertex);
    auto bm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dual_.bnode_marker);
    out << (D == 2 ? "x,y,cp\n" : "x,y,z,cp\n");
    out.precision(10);
    const double p_inf = 1 / constants_.gamma, q = 0.5 * setup_.mach * setup_.mach;
    for (size_t b = 0; b < bv.extent(0); ++b) {
      if (setup_.marker_kinds[static_cast<size_t>(bm(b))] != BoundaryKind::wall) continue;
      const size_t i = static_cast<size_t>(bv(b));
      for (int k = 0; k < D; ++k) out << coords_[i * D + k] << ',';
      out << (pressure<D>(&U[i * nv], constants_.gamma) - p_inf) / q << '\n';
    }
    if (!out) throw ppsparse::Error("flow: writing '" + path + "' failed");
  }

 private:
  std::vector<double> coords_;  // the mesh's points, for the wall's Cp file
  template <class View>
  static std::vector<double> to_host(const View& v) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<double>(h.data(), h.data() + h.extent(0));
  }

  FlowSetup setup_;
  DualMesh dual_;
  FlowConstants<D> constants_;
  double direction_[3] = {}, lift_[3] = {};
  Kokkos::View<int*, MemSpace> kinds_;
  Vector U_, R_, rhs_, dQ_, lambda_;
  Vector U_probe_, R_probe_, lambda_probe_;  // the finite-difference product's (jacobian_product)
  // Each vertex's CFL number (AdaptLocalCfl, as SU2's local CFL numbers) and the fraction of
  // its last update applied (LocalRelaxation).
  Vector cfl_, relaxation_;
  using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;
  Matrix grad_, phi_;  // second order: the primitives' gradients (n x nv D) and their limiter (n x nv)
  // Each vertex's limiter may only decrease (FlowSetup::limiter_freeze).
  bool limiter_ratchet_ = false;
  // The limiter held as it is, no longer recomputed (FlowSetup::limiter_hold).
  bool limiter_held_ = false;
  // The residual's order now: the setup's, or 1 while run() starts second order from a
  // first-order solution (NonlinearControl::first_order_drop).
  int order_ = 1;
  std::unique_ptr<LinearSolver> linear_;
};

}  // namespace detail

}  // namespace flow

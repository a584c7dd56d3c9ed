// Second order in space (reconstruction.hpp): Green-Gauss gradients exact on linear fields,
// the limiter's bounds, free stream and conservation at second order, and the order of accuracy
// measured on a smooth flow over three meshes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "boundary_conditions.hpp"
#include "flow_meshes.hpp"
#include "flow_solver.hpp"
#include "reconstruction.hpp"

namespace flow {
namespace {

using ppsparse::mesh::Mesh;
using Split = ppsparse::mesh::builders::CellSplit;
using Exec = ppsparse::DefaultExecSpace;
using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;

constexpr double kGamma = 1.4;

/// A state whose primitives are W(x) = base + slope x (linear), in conserved variables.
std::vector<double> linear_state(const Mesh& m, const double* base, const double* slope) {
  const int nv = m.dim + 2;
  std::vector<double> U(static_cast<size_t>(m.npoints()) * nv);
  for (ordinal_t p = 0; p < m.npoints(); ++p) {
    double W[5];
    for (int k = 0; k < nv; ++k) {
      W[k] = base[k];
      for (int d = 0; d < m.dim; ++d) W[k] += slope[k * m.dim + d] * m.coords[static_cast<size_t>(p) * m.dim + d];
    }
    if (m.dim == 2)
      to_conserved<2>(W, kGamma, &U[static_cast<size_t>(p) * nv]);
    else
      to_conserved<3>(W, kGamma, &U[static_cast<size_t>(p) * nv]);
  }
  return U;
}

/// The gradients and the limiter (constant K) of state U on m's dual mesh, on the host.
template <int D>
std::pair<Matrix::HostMirror, Matrix::HostMirror> gradients_and_limiter(const DualMesh& dual,
                                                                        const std::vector<double>& U, double K) {
  constexpr int nv = D + 2;
  Kokkos::View<double*, MemSpace> u("U", U.size());
  Kokkos::deep_copy(u, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(U.data(), U.size()));
  Matrix grad("grad", dual.nvertices, nv * D), phi("phi", dual.nvertices, nv);
  const VertexStencil s = VertexStencil::of(dual);
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, dual.nvertices), PrimitiveGradients<D>{s, u, grad, kGamma});
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, dual.nvertices),
                       VenkatakrishnanLimiter<D>{s, u, grad, phi, kGamma, K});
  return {Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad),
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi)};
}

/// Whether vertex p of m touches no boundary face.
std::vector<bool> interior_points(const Mesh& m) {
  std::vector<bool> inside(static_cast<size_t>(m.npoints()), true);
  for (const ordinal_t v : m.face_nodes) inside[static_cast<size_t>(v)] = false;
  return inside;
}

TEST(Reconstruction, GradientsAreExactForLinearFieldsInside) {
  // Triangles: there the median dual's Green-Gauss gradient is the area-weighted mean of the
  // elements' gradients (Barth 1992), exact for linear fields.
  const Mesh m = test_meshes::cylinder(16, 6, 4);
  const double base[4] = {1.2, 0.3, -0.2, 0.9}, slope[8] = {0.05, -0.03, 0.02, 0.01, -0.04, 0.03, 0.06, -0.02};
  const DualMesh dual = build_dual_mesh(m);
  const auto [grad, phi] = gradients_and_limiter<2>(dual, linear_state(m, base, slope), 5.0);
  const auto inside = interior_points(m);
  int checked = 0;
  for (ordinal_t p = 0; p < m.npoints(); ++p) {
    if (!inside[static_cast<size_t>(p)]) continue;
    ++checked;
    for (int k = 0; k < 4; ++k) {
      for (int d = 0; d < 2; ++d) EXPECT_NEAR(grad(p, k * 2 + d), slope[k * 2 + d], 1e-12) << p << " " << k << d;
      // A linear field needs no limiting inside: its neighbours bound every midpoint value.
      EXPECT_NEAR(phi(p, k), 1.0, 1e-12) << p << " " << k;
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(Reconstruction, LimitedReconstructionsStayWithinTheNeighbours) {
  // A rough state, and a limiter with almost no smooth-region allowance (tiny K).
  const Mesh m = test_meshes::box(3, 3, 2, Split::tetrahedra, 0.2);
  const DualMesh dual = build_dual_mesh(m);
  const double base[5] = {1, 0.2, 0.1, -0.1, 0.8}, slope[15] = {};
  std::vector<double> U = linear_state(m, base, slope);
  std::mt19937_64 rng(ppsparse::test::test_seed());
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  for (double& u : U) u *= jitter(rng);
  const auto [grad, phi] = gradients_and_limiter<3>(dual, U, 1e-6);
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dual.coords);
  double worst = 0;
  int limited = 0;
  for (ordinal_t i = 0; i < dual.nvertices; ++i) {
    double Wi[5], Wj[5], lo[5], hi[5];
    to_primitive<3>(&U[static_cast<size_t>(i) * 5], kGamma, Wi);
    for (int k = 0; k < 5; ++k) lo[k] = hi[k] = Wi[k];
    for (ppsparse::offset_t p = dual.row_ptr[i]; p < dual.row_ptr[i + 1]; ++p) {
      to_primitive<3>(&U[static_cast<size_t>(dual.col_idx[p]) * 5], kGamma, Wj);
      for (int k = 0; k < 5; ++k) lo[k] = std::min(lo[k], Wj[k]), hi[k] = std::max(hi[k], Wj[k]);
    }
    for (int k = 0; k < 5; ++k) {
      EXPECT_GE(phi(i, k), 0.0);
      EXPECT_LE(phi(i, k), 1.0);
      limited += phi(i, k) < 0.99;
    }
    for (ppsparse::offset_t p = dual.row_ptr[i]; p < dual.row_ptr[i + 1]; ++p) {
      const ordinal_t j = dual.col_idx[p];
      for (int k = 0; k < 5; ++k) {
        double step = 0;
        for (int d = 0; d < 3; ++d) step += grad(i, k * 3 + d) * 0.5 * (x(j, d) - x(i, d));
        const double w = Wi[k] + phi(i, k) * step;
        worst = std::max({worst, w - hi[k], lo[k] - w});
      }
    }
  }
  EXPECT_LT(worst, 1e-8);
  EXPECT_GT(limited, 0);  // the rough state needed the limiter somewhere
}

FlowSetup second_order_setup(const Mesh& m, const std::vector<std::string>& rules, double mach, FluxScheme flux) {
  FlowSetup s;
  s.mach = mach;
  s.alpha = 3;
  s.flux = flux;
  s.order = 2;
  std::vector<BoundaryRule> r;
  for (const auto& t : rules) r.push_back(parse_boundary_rule(t));
  s.marker_kinds = assign_boundaries(m.marker_names, r, "test mesh");
  return s;
}

TEST(Reconstruction, SecondOrderPreservesTheFreeStreamAndConserves) {
  for (FluxScheme flux :
       {FluxScheme::roe, FluxScheme::rusanov, FluxScheme::hllc, FluxScheme::hlle, FluxScheme::ausm_up})
    for (const Mesh& m : {test_meshes::rectangle(5, 4, 0.2), test_meshes::box(3, 2, 2, Split::tetrahedra, 0.2)}) {
      auto free = make_flow_solver(m, second_order_setup(m, {"*=farfield"}, 0.7, flux));
      double largest = 0;
      for (double r : free->residual()) largest = std::max(largest, std::abs(r));
      EXPECT_LT(largest, 1e-13) << m.dim << "-D, " << flow::name(flux);

      auto f =
          make_flow_solver(m, second_order_setup(m, {"x_m=inlet", "x_p=outlet", "y_*=wall", "*=farfield"}, 0.5, flux));
      std::vector<double> U = f->state();
      std::mt19937_64 rng(ppsparse::test::test_seed() + 2);
      std::uniform_real_distribution<double> jitter(0.9, 1.1);
      for (double& u : U) u *= jitter(rng);
      f->set_state(U);
      const auto R = f->residual(), first_order = [&] {
        FlowSetup s = f->setup();
        s.order = 1;
        auto g = make_flow_solver(m, s);
        g->set_state(U);
        return g->residual();
      }();
      const auto boundary = f->boundary_flux_sum();
      double differs = 0;
      for (int k = 0; k < f->nb(); ++k) {
        double sum = 0, magnitude = 0;
        for (size_t i = k; i < R.size(); i += f->nb()) sum += R[i], magnitude += std::abs(R[i]);
        EXPECT_NEAR(sum, boundary[k], 1e-13 * magnitude) << "component " << k << ", " << m.dim << "-D";
      }
      for (size_t i = 0; i < R.size(); ++i) differs = std::max(differs, std::abs(R[i] - first_order[i]));
      EXPECT_GT(differs, 1e-6) << "the reconstruction changed nothing";
    }
}

/// The volume-weighted RMS of the entropy's departure from the free stream's, p / rho^gamma
/// relative, after a converged subsonic flow around the cylinder: zero for the exact solution.
double entropy_error(int n_theta, int order, double limiter_k) {
  const int n_r = n_theta / 2;
  const Mesh m = test_meshes::cylinder(n_theta, n_r, 20);
  FlowSetup s;
  s.mach = 0.3;
  s.flux = FluxScheme::roe;  // the figures below are Roe's: Rusanov's first order is further from asymptotic
  s.order = order;
  s.limiter_k = limiter_k;
  s.marker_kinds = assign_boundaries(
      m.marker_names, {parse_boundary_rule("wall=wall"), parse_boundary_rule("far=farfield")}, "cylinder");
  auto f = make_flow_solver(m, s);
  NonlinearControl c;
  c.drop = 1e-10;
  c.max_steps = 200;
  const auto h = f->run(c, {});
  EXPECT_LE(h.back().relative, c.drop) << n_theta << " around, order " << order;
  const auto U = f->state();
  const auto volume = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f->dual().volume);
  const double s_inf = (1 / kGamma) / 1.0;
  double sum = 0, total = 0;
  for (ordinal_t i = 0; i < f->nvertices(); ++i) {
    const double* Ui = &U[static_cast<size_t>(i) * 4];
    const double e = pressure<2>(Ui, kGamma) / std::pow(Ui[0], kGamma) / s_inf - 1;
    sum += volume(i) * e * e;
    total += volume(i);
  }
  return std::sqrt(sum / total);
}

TEST(Reconstruction, EntropyErrorFallsFourfoldPerRefinementAtSecondOrder) {
  double previous[3] = {0, 0, 0};
  for (int n_theta : {24, 48, 96}) {
    const double e1 = entropy_error(n_theta, 1, 5), e2 = entropy_error(n_theta, 2, 0);
    std::printf("[ entropy ] %3d around: first order %.3e, second order %.3e\n", n_theta, e1, e2);
    EXPECT_LT(e2, e1);
    if (previous[1] > 0) {
      std::printf("[ entropy ] ratios: first order %.2f, second order %.2f\n", previous[1] / e1, previous[2] / e2);
      EXPECT_GT(previous[1] / e1, 1.2) << n_theta;  // first order: 1.35 and 1.43, tending to 2
      EXPECT_GT(previous[2] / e2, 3.0) << n_theta;  // second order: 4.5 and 6.1
    }
    previous[1] = e1, previous[2] = e2;
  }
}

}  // namespace
}  // namespace flow

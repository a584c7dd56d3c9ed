#pragma once
// The flow's device kernels: the residual over edges and boundary nodes, and its exact Jacobian
// by forward-mode differentiation, written into the MCPI solver's storage through its slot maps.
#include <Kokkos_Core.hpp>

#include "dual_mesh.hpp"
#include "euler.hpp"
#include "flow_solver.hpp"
#include "reconstruction.hpp"

namespace flow {

using Vector = Kokkos::View<double*, MemSpace>;
using ConstVector = Kokkos::View<const double*, MemSpace>;

/// R += edge fluxes (R_i += F_ij, R_j -= F_ij) and lambda += each edge's spectral radius; with
/// `second_order`, each flux from the states reconstructed to the edge's midpoint.
template <FluxScheme S, int D>
struct EdgeResidual {
  static constexpr int nv = D + 2;
  Kokkos::View<const ordinal_t* [2], MemSpace> edges;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> normal;
  ConstVector U;
  Vector R, lambda;
  FlowConstants<D> c;
  bool second_order = false;
  MidpointStates<D> midpoint = {};

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t e) const {
    const ordinal_t i = edges(e, 0), j = edges(e, 1);
    double L[nv], Rs[nv], F[nv], avg[nv], n[D];
    for (int k = 0; k < nv; ++k) {
      L[k] = U(i * nv + k);
      Rs[k] = U(j * nv + k);
      avg[k] = 0.5 * (L[k] + Rs[k]);
    }
    for (int k = 0; k < D; ++k) n[k] = normal(e, k);
    if (second_order) midpoint(i, j, L, Rs);
    numerical_flux<S, D>(L, Rs, n, c, F);
    for (int k = 0; k < nv; ++k) {
      Kokkos::atomic_add(&R(i * nv + k), F[k]);
      Kokkos::atomic_add(&R(j * nv + k), -F[k]);
    }
    const double s = spectral_radius<D>(avg, n, c.gamma);
    Kokkos::atomic_add(&lambda(i), s);
    Kokkos::atomic_add(&lambda(j), s);
  }
};

/// R += boundary fluxes, lambda += their spectral radii; `only` >= 0 sums into R the flux of
/// every node instead (the conservation check's boundary sum, R of size nv).
template <FluxScheme S, int D>
struct BoundaryResidual {
  static constexpr int nv = D + 2;
  Kokkos::View<const ordinal_t*, MemSpace> vertex;
  Kokkos::View<const int*, MemSpace> marker;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> normal;
  Kokkos::View<const int*, MemSpace> kinds;  // per marker
  ConstVector U;
  Vector R, lambda;
  FlowConstants<D> c;
  bool sum_only = false;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t b) const {
    const ordinal_t i = vertex(b);
    double Ui[nv], F[nv], n[D];
    for (int k = 0; k < nv; ++k) Ui[k] = U(i * nv + k);
    for (int k = 0; k < D; ++k) n[k] = normal(b, k);
    boundary_flux<S, D>(static_cast<BoundaryKind>(kinds(marker(b))), Ui, n, c, F);
    for (int k = 0; k < nv; ++k) Kokkos::atomic_add(&R(sum_only ? k : i * nv + k), F[k]);
    if (!sum_only) Kokkos::atomic_add(&lambda(i), spectral_radius<D>(Ui, n, c.gamma));
  }
};

/// The edge fluxes' Jacobian, row by row: block row v holds D_v = sum_j dF_vj/dU_v (plus the
/// pseudo-time term lambda_v / cfl_v) and O(v, j) = dF_vj/dU_j, where F_vj is the flux out of v
/// across the dual face of edge (v, j). Threads share a row by derivative directions: with
/// M = 1, 2 nv threads of one direction each (Dual<1>); with M = nv, two threads, one for all of
/// D_v's columns and one for all of each O(v, j)'s (Dual<nv>: the flux's value computed once
/// for nv derivatives, at more registers). Every block is written once, by one thread, in row
/// order (no atomics: the edge-by-edge form, with 50 FP64 atomics per edge for D, ran at 8 % of
/// the copy bandwidth on an H100); each flux is differentiated from both of its vertices.
template <FluxScheme S, int D, int M, class OScalar, class DScalar>
struct RowJacobian {
  static constexpr int nv = D + 2;
  static_assert(M == 1 || M == nv, "one direction per thread, or all of a side's");
  static constexpr int lanes = 2 * nv / M;
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const ordinal_t*, MemSpace> pos_edge;  // the edge of each (v, j)
  Kokkos::View<const ordinal_t* [2], MemSpace> edges;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> normal;
  ConstVector U, lambda;
  ConstVector cfl;  // each vertex's CFL number; empty: no pseudo-time term
  Kokkos::View<OScalar*, MemSpace> O;
  Kokkos::View<DScalar*, MemSpace> Dv;
  Kokkos::View<const offset_t*, MemSpace> o_slot;
  Kokkos::View<const ordinal_t*, MemSpace> d_slot;
  FlowConstants<D> c;

  KOKKOS_INLINE_FUNCTION void operator()(const size_t t) const {
    using T = Dual<M>;
    const ordinal_t v = static_cast<ordinal_t>(t / lanes);
    const int first = static_cast<int>(t % lanes) * M;  // this thread's first direction
    const bool own = first < nv;                        // columns of D_v; otherwise columns of each O(v, j)
    const int col0 = own ? first : first - nv;
    T L[nv], Rs[nv], F[nv];
    for (int k = 0; k < nv; ++k) L[k] = T(U(static_cast<size_t>(v) * nv + k));
    if (own)
      for (int m = 0; m < M; ++m) L[col0 + m].d[m] = 1;
    double dsum[M][nv] = {};
    constexpr int nb2 = nv * nv;
    for (offset_t p = row_ptr(v); p < row_ptr(v + 1); ++p) {
      const ordinal_t j = col_idx(p);
      const ordinal_t e = pos_edge(p);
      const double sign = edges(e, 0) == v ? 1.0 : -1.0;  // the edge's normal points from its first vertex
      double n[D];
      for (int k = 0; k < D; ++k) n[k] = sign * normal(e, k);
      for (int k = 0; k < nv; ++k) Rs[k] = T(U(static_cast<size_t>(j) * nv + k));
      if (!own)
        for (int m = 0; m < M; ++m) Rs[col0 + m].d[m] = 1;
      numerical_flux<S, D>(L, Rs, n, c, F);
      if (own) {
        for (int m = 0; m < M; ++m)
          for (int r = 0; r < nv; ++r) dsum[m][r] += F[r].d[m];
      } else {
        OScalar* o = &O(o_slot(p) * nb2 + col0 * nv);
        for (int m = 0; m < M; ++m)
          for (int r = 0; r < nv; ++r) o[m * nv + r] = static_cast<OScalar>(F[r].d[m]);
      }
    }
    if (own) {
      DScalar* d = &Dv(static_cast<offset_t>(d_slot(v)) * nb2 + col0 * nv);
      for (int m = 0; m < M; ++m) {
        if (cfl.extent(0) > 0) dsum[m][col0 + m] += lambda(v) / cfl(v);
        for (int r = 0; r < nv; ++r) d[m * nv + r] = static_cast<DScalar>(dsum[m][r]);
      }
    }
  }
};

/// The boundary fluxes' Jacobian into the diagonal blocks.
template <FluxScheme S, int D, class DScalar>
struct BoundaryJacobian {
  static constexpr int nv = D + 2;
  Kokkos::View<const ordinal_t*, MemSpace> vertex;
  Kokkos::View<const int*, MemSpace> marker;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> normal;
  Kokkos::View<const int*, MemSpace> kinds;
  ConstVector U;
  Kokkos::View<DScalar*, MemSpace> Dv;
  Kokkos::View<const ordinal_t*, MemSpace> d_slot;
  FlowConstants<D> c;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t b) const {
    using T = Dual<nv>;
    const ordinal_t i = vertex(b);
    T Ui[nv], F[nv];
    double n[D];
    for (int k = 0; k < nv; ++k) Ui[k] = T::variable(U(i * nv + k), k);
    for (int k = 0; k < D; ++k) n[k] = normal(b, k);
    boundary_flux<S, D>(static_cast<BoundaryKind>(kinds(marker(b))), Ui, n, c, F);
    DScalar* di = &Dv(static_cast<offset_t>(d_slot(i)) * nv * nv);
    for (int col = 0; col < nv; ++col)
      for (int r = 0; r < nv; ++r) Kokkos::atomic_add(&di[col * nv + r], static_cast<DScalar>(F[r].d[col]));
  }
};

/// The fraction of vertex i's update dQ_i (at most 1) that keeps its density and its pressure
/// (linearised: dp = (gamma - 1) (dE - u . dm + |u|^2 / 2 drho)) within the factors 1 - x and
/// 1 / (1 - x) of what they are, x = max_change < 1: positive, and moved by at most
/// ln(1 / (1 - x)) in the logarithm whether they rise or fall. 0 where the update is not finite.
template <int D>
struct LocalRelaxation {
  static constexpr int nv = D + 2;
  ConstVector U, dQ;
  double gamma, max_change;

  // The largest fraction of the change d that keeps q + alpha d within [q (1 - x), q / (1 - x)].
  KOKKOS_INLINE_FUNCTION double fraction(double q, double d) const {
    const double allowed = d < 0 ? max_change * q : max_change / (1 - max_change) * q;
    const double size = d < 0 ? -d : d;
    return size > allowed ? allowed / size : 1.0;
  }

  KOKKOS_INLINE_FUNCTION double operator()(const ordinal_t i) const {
    const double rho = U(i * nv), drho = dQ(i * nv);
    double kinetic = 0, work = 0;
    for (int k = 0; k < D; ++k) {
      const double u = U(i * nv + 1 + k) / rho;
      kinetic += u * u;
      work += u * dQ(i * nv + 1 + k);
    }
    const double p = (gamma - 1) * (U(i * nv + D + 1) - 0.5 * rho * kinetic);
    const double dp = (gamma - 1) * (dQ(i * nv + D + 1) - work + 0.5 * kinetic * drho);
    if (!(ppsparse::compat::fabs(drho) <= 1e300) || !(ppsparse::compat::fabs(dp) <= 1e300)) return 0;  // NaN, inf
    const double a = fraction(rho, drho), b = fraction(p, dp);
    return a < b ? a : b;
  }
};

/// Each vertex's next CFL number from its last update's fraction (LocalRelaxation) and the
/// step's factors (cfl_factors): cut where the update was cut to less than a tenth, kept where
/// it was cut less, and changed by the step's factor where it was whole; within [low, high].
struct AdaptLocalCfl {
  Vector cfl;
  ConstVector relaxation;
  CflFactors f;
  double low, high;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    const double a = relaxation(i);
    const double next = cfl(i) * (a < 0.1 ? f.cut : a < 1 ? f.limited : f.whole);
    cfl(i) = next < low ? low : next > high ? high : next;
  }
};

/// U += alpha_i dQ_i at each vertex i, alpha_i its LocalRelaxation (also written to `applied`):
/// the update under-relaxed vertex by vertex, as SU2 does, so that a few vertices (a shock
/// forming) do not hold back the rest. Returns the smallest alpha_i; or 0, and nothing applied,
/// where the update is not finite or leaves a density or pressure not positive.
template <int D>
double apply_relaxed_update(const Vector& U, const ConstVector& dQ, const Vector& applied, double gamma,
                            double max_change) {
  using Exec = ppsparse::DefaultExecSpace;
  constexpr int nv = D + 2;
  const ordinal_t n = static_cast<ordinal_t>(applied.extent(0));
  const LocalRelaxation<D> relaxation{U, dQ, gamma, max_change};
  // The smallest fraction, or -1 where a vertex's relaxed update is still not physical.
  double smallest = 1;
  Kokkos::parallel_reduce(
      "flow::update_relaxation", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(const ordinal_t i, double& low) {
        const double alpha = relaxation(i);
        double W[nv];
        for (int k = 0; k < nv; ++k) W[k] = U(i * nv + k) + alpha * dQ(i * nv + k);
        const double p = pressure<D>(W, gamma);
        const double at = alpha > 0 && W[0] > 0 && p > 0 ? alpha : -1.0;
        if (at < low) low = at;
      },
      Kokkos::Min<double>(smallest));
  if (!(smallest > 0)) return 0;
  Kokkos::parallel_for(
      "flow::update", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const ordinal_t i) {
        const double alpha = relaxation(i);
        for (int k = 0; k < nv; ++k) U(i * nv + k) += alpha * dQ(i * nv + k);
        applied(i) = alpha;
      });
  return smallest;
}

/// The smallest and the largest entry of v.
inline void range_of(const ConstVector& v, double& low, double& high) {
  using Exec = ppsparse::DefaultExecSpace;
  using Reducer = Kokkos::MinMax<double>;
  typename Reducer::value_type range;
  Kokkos::parallel_reduce(
      "flow::range", Kokkos::RangePolicy<Exec>(0, v.extent(0)),
      KOKKOS_LAMBDA(const size_t i, typename Reducer::value_type& r) {
        if (v(i) < r.min_val) r.min_val = v(i);
        if (v(i) > r.max_val) r.max_val = v(i);
      },
      Reducer(range));
  low = range.min_val;
  high = range.max_val;
}

}  // namespace flow

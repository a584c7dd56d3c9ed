#pragma once
// Second order in space (MUSCL, van Leer 1979; Blazek 2015, sec. 5.3 and 5.4): each edge's flux
// from the states reconstructed linearly to the edge's midpoint from both vertices' gradients of
// the primitive variables (density, velocity, pressure), Green-Gauss on the median dual, each
// limited by Venkatakrishnan's limiter (1993) so that no reconstructed value leaves the range of
// its vertex's neighbours. The Jacobian stays first order (defect correction, as FUN3D and SU2).
// Vertex by vertex over the Jacobian's pattern: no atomics, the same sums in the same order on
// every device.
#include <Kokkos_Core.hpp>

#include "dual_mesh.hpp"
#include "euler.hpp"

namespace flow {

/// Primitive variables (rho, velocity, p) of conserved ones, and back.
template <int D>
KOKKOS_INLINE_FUNCTION void to_primitive(const double* U, double gamma, double* W) {
  W[0] = U[0];
  for (int k = 0; k < D; ++k) W[1 + k] = U[1 + k] / U[0];
  W[D + 1] = pressure<D>(U, gamma);
}
template <int D>
KOKKOS_INLINE_FUNCTION void to_conserved(const double* W, double gamma, double* U) {
  double q2 = 0;
  U[0] = W[0];
  for (int k = 0; k < D; ++k) {
    U[1 + k] = W[0] * W[1 + k];
    q2 += W[1 + k] * W[1 + k];
  }
  U[D + 1] = W[D + 1] / (gamma - 1) + 0.5 * W[0] * q2;
}

/// Venkatakrishnan's (1993) smooth limiter of a reconstruction step d2 against the room d1 to
/// the neighbours' extreme (d1 of d2's sign), eps2 = (K h)^3 keeping it 1 in smooth regions.
KOKKOS_INLINE_FUNCTION double venkatakrishnan(double d1, double d2, double eps2) {
  const double num = (d1 * d1 + eps2) * d2 + 2 * d2 * d2 * d1;
  const double den = d2 * (d1 * d1 + 2 * d2 * d2 + d1 * d2 + eps2);
  return den != 0 ? num / den : 1.0;
}

/// The pattern's neighbours of a vertex, with the dual face between them oriented out of it.
struct VertexStencil {
  Kokkos::View<const offset_t*, MemSpace> row_ptr;
  Kokkos::View<const ordinal_t*, MemSpace> col_idx;
  Kokkos::View<const ordinal_t*, MemSpace> pos_edge;
  Kokkos::View<const ordinal_t* [2], MemSpace> edges;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> normal;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> coords;
  Kokkos::View<const double*, MemSpace> volume;

  static VertexStencil of(const DualMesh& d) {
    return {d.row_ptr_device, d.col_idx_device, d.pos_edge, d.edges, d.edge_normal, d.coords, d.volume};
  }
};

/// grad(i, k * D + d): d/dx_d of primitive k at vertex i, (1 / V_i) sum_j (W_i + W_j) / 2 n_ij
/// with the boundary faces at W_i (their normals close the volume, so W_i drops out).
template <int D>
struct PrimitiveGradients {
  static constexpr int nv = D + 2;
  VertexStencil s;
  Kokkos::View<const double*, MemSpace> U;
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> grad;
  double gamma;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    double Wi[nv], Wj[nv], Uj[nv], g[nv][D] = {};
    to_primitive<D>(&U(static_cast<size_t>(i) * nv), gamma, Wi);
    for (offset_t p = s.row_ptr(i); p < s.row_ptr(i + 1); ++p) {
      const ordinal_t j = s.col_idx(p), e = s.pos_edge(p);
      const double sign = s.edges(e, 0) == i ? 0.5 : -0.5;
      for (int k = 0; k < nv; ++k) Uj[k] = U(static_cast<size_t>(j) * nv + k);
      to_primitive<D>(Uj, gamma, Wj);
      for (int k = 0; k < nv; ++k)
        for (int d = 0; d < D; ++d) g[k][d] += sign * (Wj[k] - Wi[k]) * s.normal(e, d);
    }
    const double inv = 1 / s.volume(i);
    for (int k = 0; k < nv; ++k)
      for (int d = 0; d < D; ++d) grad(i, k * D + d) = g[k][d] * inv;
  }
};

/// phi(i, k) in [0, 1]: the largest share of vertex i's gradient of primitive k that keeps its
/// reconstruction at every edge midpoint within the values of i and its neighbours
/// (Venkatakrishnan 1993, K the constant of eps^2 = (K h)^3, h = V_i^(1/D)); 1 everywhere
/// without a limiter (K = 0).
template <int D>
struct VenkatakrishnanLimiter {
  static constexpr int nv = D + 2;
  VertexStencil s;
  Kokkos::View<const double*, MemSpace> U;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> grad;
  Kokkos::View<double**, Kokkos::LayoutRight, MemSpace> phi;
  double gamma, K;
  bool only_decrease = false;  // each phi the smaller of its last value and the new one

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i) const {
    double Wi[nv], Wj[nv], Uj[nv], lo[nv], hi[nv], limit[nv];
    to_primitive<D>(&U(static_cast<size_t>(i) * nv), gamma, Wi);
    for (int k = 0; k < nv; ++k) lo[k] = hi[k] = Wi[k], limit[k] = 1;
    if (K <= 0) {
      for (int k = 0; k < nv; ++k) phi(i, k) = 1;
      return;
    }
    for (offset_t p = s.row_ptr(i); p < s.row_ptr(i + 1); ++p) {
      const ordinal_t j = s.col_idx(p);
      for (int k = 0; k < nv; ++k) Uj[k] = U(static_cast<size_t>(j) * nv + k);
      to_primitive<D>(Uj, gamma, Wj);
      for (int k = 0; k < nv; ++k) lo[k] = Wj[k] < lo[k] ? Wj[k] : lo[k], hi[k] = Wj[k] > hi[k] ? Wj[k] : hi[k];
    }
    const double h = D == 2 ? ppsparse::compat::sqrt(s.volume(i)) : ppsparse::compat::pow(s.volume(i), 1.0 / 3.0);
    const double eps2 = K * h * K * h * K * h;
    for (offset_t p = s.row_ptr(i); p < s.row_ptr(i + 1); ++p) {
      const ordinal_t j = s.col_idx(p);
      for (int k = 0; k < nv; ++k) {
        double d2 = 0;
        for (int d = 0; d < D; ++d) d2 += grad(i, k * D + d) * 0.5 * (s.coords(j, d) - s.coords(i, d));
        if (d2 == 0) continue;
        const double l = venkatakrishnan(d2 > 0 ? hi[k] - Wi[k] : lo[k] - Wi[k], d2, eps2);
        limit[k] = l < limit[k] ? l : limit[k];
      }
    }
    for (int k = 0; k < nv; ++k) {
      const double v = limit[k] > 0 ? limit[k] : 0;
      phi(i, k) = only_decrease && phi(i, k) < v ? phi(i, k) : v;
    }
  }
};

/// The conserved states on both sides of edge (i, j)'s dual face, reconstructed from i and from
/// j to the edge's midpoint; the vertices' own states where a reconstructed density or pressure
/// is not positive (first order there).
template <int D>
struct MidpointStates {
  static constexpr int nv = D + 2;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> coords;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> grad, phi;
  double gamma;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t i, const ordinal_t j, double* L, double* R) const {
    double Wi[nv], Wj[nv], Li[nv], Rj[nv];
    to_primitive<D>(L, gamma, Wi);
    to_primitive<D>(R, gamma, Wj);
    for (int k = 0; k < nv; ++k) {
      double di = 0, dj = 0;
      for (int d = 0; d < D; ++d) {
        const double half = 0.5 * (coords(j, d) - coords(i, d));
        di += grad(i, k * D + d) * half;
        dj -= grad(j, k * D + d) * half;
      }
      Li[k] = Wi[k] + phi(i, k) * di;
      Rj[k] = Wj[k] + phi(j, k) * dj;
    }
    if (!(Li[0] > 0) || !(Li[D + 1] > 0) || !(Rj[0] > 0) || !(Rj[D + 1] > 0)) return;
    to_conserved<D>(Li, gamma, L);
    to_conserved<D>(Rj, gamma, R);
  }
};

}  // namespace flow

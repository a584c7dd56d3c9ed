#pragma once
// The flow's device kernels: the residual over edges and boundary nodes, and its exact Jacobian
// by forward-mode differentiation, written into the MCPI solver's storage through its slot maps.
#include <Kokkos_Core.hpp>

#include "dual_mesh.hpp"
#include "euler.hpp"

namespace flow {

using Vector = Kokkos::View<double*, MemSpace>;
using ConstVector = Kokkos::View<const double*, MemSpace>;

/// R += edge fluxes (R_i += F_ij, R_j -= F_ij) and lambda += each edge's spectral radius.
template <FluxScheme S, int D>
struct EdgeResidual {
  static constexpr int nv = D + 2;
  Kokkos::View<const ordinal_t* [2], MemSpace> edges;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> normal;
  ConstVector U;
  Vector R, lambda;
  FlowConstants<D> c;

  KOKKOS_INLINE_FUNCTION void operator()(const ordinal_t e) const {
    const ordinal_t i = edges(e, 0), j = edges(e, 1);
    double L[nv], Rs[nv], F[nv], avg[nv], n[D];
    for (int k = 0; k < nv; ++k) {
      L[k] = U(i * nv + k);
      Rs[k] = U(j * nv + k);
      avg[k] = 0.5 * (L[k] + Rs[k]);
    }
    for (int k = 0; k < D; ++k) n[k] = normal(e, k);
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

/// The edge fluxes' Jacobian: O blocks (i, j) = dF/dU_j and (j, i) = -dF/dU_i stored at their
/// slots (column-major); D_i += dF/dU_i and D_j -= dF/dU_j. Each of the 2 nv derivative
/// directions (the columns of dF/dU_i, then of dF/dU_j) is one column of a block; a thread
/// carries M of them (Dual<M>) and lanes = 2 nv / M threads share an edge: at M = 2 nv one
/// thread computes the whole Jacobian of its flux, but its 11 x wide numbers spill registers,
/// so the default is narrower (FlowSetup::jacobian_directions).
template <FluxScheme S, int D, int M, class OScalar, class DScalar>
struct EdgeJacobian {
  static constexpr int nv = D + 2;
  static constexpr int lanes = 2 * nv / M;
  static_assert(2 * nv % M == 0, "the directions must split evenly");
  Kokkos::View<const ordinal_t* [2], MemSpace> edges;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemSpace> normal;
  Kokkos::View<const offset_t* [2], MemSpace> block;
  ConstVector U;
  Kokkos::View<OScalar*, MemSpace> O;
  Kokkos::View<DScalar*, MemSpace> Dv;
  Kokkos::View<const offset_t*, MemSpace> o_slot;
  Kokkos::View<const ordinal_t*, MemSpace> d_slot;
  FlowConstants<D> c;

  KOKKOS_INLINE_FUNCTION void operator()(const size_t t) const {
    using T = Dual<M>;
    const ordinal_t e = static_cast<ordinal_t>(t / lanes);
    const int first = static_cast<int>(t % lanes) * M;  // this thread's first direction
    const ordinal_t i = edges(e, 0), j = edges(e, 1);
    T L[nv], Rs[nv], F[nv];
    double n[D];
    for (int k = 0; k < nv; ++k) {
      L[k] = T(U(i * nv + k));
      Rs[k] = T(U(j * nv + k));
    }
    for (int m = 0; m < M; ++m) {
      const int dir = first + m;
      if (dir < nv) {
        L[dir].d[m] = 1;
      } else {
        Rs[dir - nv].d[m] = 1;
      }
    }
    for (int k = 0; k < D; ++k) n[k] = normal(e, k);
    numerical_flux<S, D>(L, Rs, n, c, F);
    constexpr int nb2 = nv * nv;
    for (int m = 0; m < M; ++m) {
      const int dir = first + m;
      if (dir < nv) {  // column dir of dF/dU_i: -(block (j, i)), + D_i
        OScalar* o = &O(o_slot(block(e, 1)) * nb2 + dir * nv);
        DScalar* d = &Dv(static_cast<offset_t>(d_slot(i)) * nb2 + dir * nv);
        for (int r = 0; r < nv; ++r) {
          o[r] = static_cast<OScalar>(-F[r].d[m]);
          Kokkos::atomic_add(&d[r], static_cast<DScalar>(F[r].d[m]));
        }
      } else {  // column dir - nv of dF/dU_j: + block (i, j), - D_j
        OScalar* o = &O(o_slot(block(e, 0)) * nb2 + (dir - nv) * nv);
        DScalar* d = &Dv(static_cast<offset_t>(d_slot(j)) * nb2 + (dir - nv) * nv);
        for (int r = 0; r < nv; ++r) {
          o[r] = static_cast<OScalar>(F[r].d[m]);
          Kokkos::atomic_add(&d[r], static_cast<DScalar>(-F[r].d[m]));
        }
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

}  // namespace flow

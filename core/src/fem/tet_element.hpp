#pragma once
// One tetrahedron's geometry and its product y_e = K_e x_e with K_e recomputed from its four
// vertices: the geometry serves the assembly (poisson.cpp) and the matrix-free operators
// (op_matrix_free.cpp, op_matrix_free_blocked.cpp). P1: K_ij = vol * grad(lambda_i) .
// grad(lambda_j), from the gradients of the barycentric coordinates (the rows of J^-1). P2:
// y = |det J| * sum_q w_q B_q^T C B_q x with C = J^-1 J^-T and B_q the reference gradients at the
// 4-point rule's points (PoissonSystem::reference): 120 table entries per element, not K's 900.
#include "poisson_kernel.hpp"

namespace ppsparse::fem::detail {

// The gradients g[k] of the barycentric coordinates lambda_k of the tetrahedron p (g[1..3]: the
// rows of J^-1, J's columns p1 - p0, p2 - p0, p3 - p0), and |det J|.
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar barycentric_gradients(const Scalar (&p)[4][3], Scalar (&g)[4][3]) {
  Scalar d[3][3];
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) d[c][r] = p[c + 1][r] - p[0][r];
  // grad lambda_{k+1} = (d_{k+1} x d_{k+2}) / det, cyclically.
  for (int k = 0; k < 3; ++k) {
    const Scalar* a = d[(k + 1) % 3];
    const Scalar* b = d[(k + 2) % 3];
    g[k + 1][0] = a[1] * b[2] - a[2] * b[1];
    g[k + 1][1] = a[2] * b[0] - a[0] * b[2];
    g[k + 1][2] = a[0] * b[1] - a[1] * b[0];
  }
  const Scalar det = d[0][0] * g[1][0] + d[0][1] * g[1][1] + d[0][2] * g[1][2];
  const Scalar inv = Scalar(1) / det;
  for (int k = 1; k < 4; ++k)
    for (int r = 0; r < 3; ++r) g[k][r] *= inv;
  for (int r = 0; r < 3; ++r) g[0][r] = -(g[1][r] + g[2][r] + g[3][r]);
  return det < 0 ? -det : det;
}

// C = J^-1 J^-T from the gradients: C_ab = grad lambda_{a+1} . grad lambda_{b+1}.
template <class Scalar>
KOKKOS_INLINE_FUNCTION void inverse_metric(const Scalar (&g)[4][3], Scalar (&C)[3][3]) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      C[a][b] = g[a + 1][0] * g[b + 1][0] + g[a + 1][1] * g[b + 1][1] + g[a + 1][2] * g[b + 1][2];
}

template <class Scalar, int M, class Reference>
KOKKOS_INLINE_FUNCTION void element_product(const Scalar (&p)[4][3], const Scalar (&xe)[M], const Reference& reference,
                                            Scalar (&ye)[M]) {
  Scalar g[4][3];
  const Scalar jacobian = barycentric_gradients(p, g);
  if constexpr (M == 4) {
    Scalar s[3] = {0, 0, 0};  // sum_j x_j grad lambda_j
    for (int j = 0; j < 4; ++j)
      for (int r = 0; r < 3; ++r) s[r] += xe[j] * g[j][r];
    const Scalar vol = jacobian / Scalar(6);
    for (int i = 0; i < 4; ++i) ye[i] = vol * (g[i][0] * s[0] + g[i][1] * s[1] + g[i][2] * s[2]);
  } else {
    // The 4-point rule (exact: the integrand has degree 2): at each point q, the reference
    // gradient of u, mapped by C, against each basis function's (weights 1/24).
    Scalar C[3][3];
    inverse_metric(g, C);
    for (int i = 0; i < M; ++i) ye[i] = 0;
    for (int q = 0; q < 4; ++q) {
      Scalar gu[3] = {0, 0, 0};
      for (int j = 0; j < M; ++j)
        for (int a = 0; a < 3; ++a) gu[a] += xe[j] * reference((q * M + j) * 3 + a);
      Scalar t[3];
      for (int a = 0; a < 3; ++a) t[a] = C[a][0] * gu[0] + C[a][1] * gu[1] + C[a][2] * gu[2];
      for (int i = 0; i < M; ++i)
        ye[i] += reference((q * M + i) * 3 + 0) * t[0] + reference((q * M + i) * 3 + 1) * t[1] +
                 reference((q * M + i) * 3 + 2) * t[2];
    }
    const Scalar scale = jacobian / Scalar(24);
    for (int i = 0; i < M; ++i) ye[i] *= scale;
  }
}

}  // namespace ppsparse::fem::detail

// The finite element Poisson problem: the P1/P2 spaces and their Dirichlet nodes, every operator
// against a host product and against each other, exactness on polynomials the space holds,
// CG to a tolerance (and the cube's known centre value), FP32 against FP64, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/fem/poisson.hpp>
#include <ppsparse/fem/tet_space.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/refine.hpp>

#include "mesh/mesh_builders.hpp"
#include "test_util.hpp"

namespace ppsparse::fem {
namespace {

using Exec = DefaultExecSpace;
using Mem = DefaultMemSpace;

using util::to_host;
template <class T>
Kokkos::View<T*, Mem> to_device(const std::vector<T>& h) {
  Kokkos::View<T*, Mem> v("v", h.size());
  Kokkos::deep_copy(v, Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(h.data(), h.size()));
  return v;
}

template <class Scalar>
std::vector<double> product(const PoissonOperator<Exec, Scalar>& op, const std::vector<double>& x) {
  const auto xd = to_device(std::vector<Scalar>(x.begin(), x.end()));
  Kokkos::View<Scalar*, Mem> y("y", x.size());
  Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());  // poisoned: every entry written
  op.apply(xd, y);
  const auto h = to_host(y);
  return std::vector<double>(h.begin(), h.end());
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::isfinite(a[i]) ? std::abs(a[i] - b[i]) : INFINITY);
  return d;
}
double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (const double v : a) m = std::max(m, std::abs(v));
  return m;
}

// A box of tetrahedra with its vertices moved (the elements stay positive), so that no two
// elements have the same matrix.
mesh::Mesh jittered_box(ordinal_t n, double h = 1.0) {
  mesh::Mesh m = box_tet_mesh(n, n + 1, n - 1, h);
  std::mt19937_64 rng(test::test_seed());
  std::uniform_real_distribution<double> u(-0.12 * h, 0.12 * h);
  for (auto& c : m.coords) c += u(rng);
  return m;
}

// The nodes' coordinates: vertices, then edge midpoints.
std::vector<std::array<double, 3>> node_coords(const TetSpace& s) {
  std::vector<std::array<double, 3>> p(static_cast<size_t>(s.nnodes));
  for (ordinal_t v = 0; v < s.nvertices; ++v) p[v] = {s.coords[3 * v], s.coords[3 * v + 1], s.coords[3 * v + 2]};
  if (s.order == 2)
    for (ordinal_t e = 0; e < s.nelements(); ++e)
      for (int k = 0; k < 6; ++k) {
        const ordinal_t* v = &s.elem_nodes[static_cast<size_t>(e) * 10];
        for (int r = 0; r < 3; ++r) p[v[4 + k]][r] = 0.5 * (p[v[kTetEdges[k][0]]][r] + p[v[kTetEdges[k][1]]][r]);
      }
  return p;
}

TEST(FemSpace, BoxNodesEdgesAndDirichletBoundary) {
  const ordinal_t n = 4;
  const mesh::Mesh m = box_tet_mesh(n, n + 1, n + 2, 0.5);
  EXPECT_EQ(m.nelements(), 6 * n * (n + 1) * (n + 2));
  for (ordinal_t e = 0; e < m.nelements(); ++e) ASSERT_GT(mesh::element_signed_volume(m, e), 0) << e;
  double volume = 0;
  for (ordinal_t e = 0; e < m.nelements(); ++e) volume += mesh::element_volume(m, e);
  EXPECT_NEAR(volume, n * (n + 1) * (n + 2) * 0.125, 1e-12);
  for (const int order : {1, 2}) {
    const TetSpace s = make_tet_space(m, order);
    EXPECT_EQ(s.nvertices, (n + 1) * (n + 2) * (n + 3));
    std::set<std::pair<ordinal_t, ordinal_t>> edges;
    for (ordinal_t e = 0; e < m.nelements(); ++e)
      for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) edges.insert(std::minmax(m.elem_nodes[4 * e + a], m.elem_nodes[4 * e + b]));
    EXPECT_EQ(s.nnodes, s.nvertices + (order == 2 ? static_cast<ordinal_t>(edges.size()) : 0));
    const auto p = node_coords(s);
    const double L[3] = {n * 0.5, (n + 1) * 0.5, (n + 2) * 0.5};
    for (ordinal_t i = 0; i < s.nnodes; ++i) {
      bool on_side = false;
      for (int r = 0; r < 3; ++r) on_side = on_side || std::abs(p[i][r]) < 1e-12 || std::abs(p[i][r] - L[r]) < 1e-12;
      ASSERT_EQ(s.dirichlet[i] != 0, on_side) << "order " << order << ", node " << i;
    }
    // One marker only: the nodes of the side x = 0.
    const TetSpace xmin = make_tet_space(m, order, {"xmin"});
    for (ordinal_t i = 0; i < xmin.nnodes; ++i) ASSERT_EQ(xmin.dirichlet[i] != 0, std::abs(p[i][0]) < 1e-12) << i;
  }
}

TEST(FemSpace, BadMeshesAndOptionsAreNamed) {
  mesh::Mesh m = box_tet_mesh(2, 2, 2);
  PPSPARSE_EXPECT_THROW_MESSAGE(make_tet_space(m, 3), InvalidArgument, "order 3 (P1 and P2 only: 1 or 2)");
  PPSPARSE_EXPECT_THROW_MESSAGE(
      make_tet_space(m, 1, {"wall"}), InvalidArgument,
      "no boundary marker 'wall' in the mesh (its markers: xmin, xmax, ymin, ymax, zmin, zmax)");
  mesh::Mesh inverted = m;
  std::swap(inverted.elem_nodes[4 * 6 + 2], inverted.elem_nodes[4 * 6 + 3]);
  PPSPARSE_EXPECT_THROW_MESSAGE(make_tet_space(inverted, 1), InputError, "element 7 has volume -");
  PPSPARSE_EXPECT_THROW_MESSAGE(make_tet_space(inverted, 1), InputError, "(inverted)");
  mesh::Mesh flat = m;
  const ordinal_t* v = &flat.elem_nodes[4 * 9];
  for (int r = 0; r < 3; ++r)  // vertex 3 onto the midpoint of 0 and 1: volume 0
    flat.coords[3 * v[3] + r] = 0.5 * (flat.coords[3 * v[0] + r] + flat.coords[3 * v[1] + r]);
  PPSPARSE_EXPECT_THROW_MESSAGE(make_tet_space(flat, 2), InputError, "(degenerate)");
  const mesh::Mesh hexes = mesh::builders::box_mesh({2, 2, 2}, mesh::builders::CellSplit::hexahedra, 0.0, 1);
  PPSPARSE_EXPECT_THROW_MESSAGE(make_tet_space(hexes, 1), InputError,
                                "element 1 is a hexahedron; the P1 and P2 spaces are built on tetrahedra only");
  mesh::Mesh bare = m;
  bare.face_types.clear();
  bare.face_ptr.assign(1, 0);
  bare.face_nodes.clear();
  bare.face_marker.clear();
  PPSPARSE_EXPECT_THROW_MESSAGE(make_tet_space(bare, 1), InvalidArgument, "the mesh has no boundary faces");
  PPSPARSE_EXPECT_THROW_MESSAGE(box_tet_mesh(0, 2, 2), InvalidArgument, "box_tet_mesh: 0 x 2 x 2 cubes");
}

// y = sum_e K_e x_e on the host, P1 from the gradients of the barycentric coordinates (not the
// library's reference integrals), the Dirichlet rows copying x.
std::vector<double> host_p1_product(const TetSpace& s, const std::vector<double>& x) {
  std::vector<double> y(x.size(), 0.0);
  for (ordinal_t i = 0; i < s.nnodes; ++i)
    if (s.dirichlet[i]) y[i] = x[i];
  for (ordinal_t e = 0; e < s.nelements(); ++e) {
    const ordinal_t* v = &s.elem_nodes[4 * static_cast<size_t>(e)];
    // Solve for the gradients: [1 x y z] rows per vertex, inverse columns are (c, grad).
    double M[4][4], I[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    for (int k = 0; k < 4; ++k) {
      M[k][0] = 1;
      for (int r = 0; r < 3; ++r) M[k][r + 1] = s.coords[3 * v[k] + r];
    }
    for (int c = 0; c < 4; ++c) {  // Gauss-Jordan with partial pivoting
      int piv = c;
      for (int r = c + 1; r < 4; ++r)
        if (std::abs(M[r][c]) > std::abs(M[piv][c])) piv = r;
      std::swap(M[c], M[piv]);
      std::swap(I[c], I[piv]);
      const double d = M[c][c];
      for (int k = 0; k < 4; ++k) M[c][k] /= d, I[c][k] /= d;
      for (int r = 0; r < 4; ++r)
        if (r != c) {
          const double f = M[r][c];
          for (int k = 0; k < 4; ++k) M[r][k] -= f * M[c][k], I[r][k] -= f * I[c][k];
        }
    }
    // lambda_k(x) = I[0][k] + sum_r I[r+1][k] x_r; volume from the determinant.
    double a[3] = {s.coords[3 * v[1]] - s.coords[3 * v[0]], s.coords[3 * v[1] + 1] - s.coords[3 * v[0] + 1],
                   s.coords[3 * v[1] + 2] - s.coords[3 * v[0] + 2]};
    double b[3] = {s.coords[3 * v[2]] - s.coords[3 * v[0]], s.coords[3 * v[2] + 1] - s.coords[3 * v[0] + 1],
                   s.coords[3 * v[2] + 2] - s.coords[3 * v[0] + 2]};
    double c[3] = {s.coords[3 * v[3]] - s.coords[3 * v[0]], s.coords[3 * v[3] + 1] - s.coords[3 * v[0] + 1],
                   s.coords[3 * v[3] + 2] - s.coords[3 * v[0] + 2]};
    const double vol = std::abs(a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                                a[2] * (b[0] * c[1] - b[1] * c[0])) /
                       6.0;
    for (int i = 0; i < 4; ++i) {
      if (s.dirichlet[v[i]]) continue;
      for (int j = 0; j < 4; ++j) {
        if (s.dirichlet[v[j]]) continue;
        double g = 0;
        for (int r = 0; r < 3; ++r) g += I[r + 1][i] * I[r + 1][j];
        y[v[i]] += vol * g * x[v[j]];
      }
    }
  }
  return y;
}

TEST(FemPoisson, EveryOperatorIsTheHostProduct) {
  const mesh::Mesh m = jittered_box(5);
  for (const int order : {1, 2}) {
    const TetSpace s = make_tet_space(m, order);
    const auto system = make_poisson_system<double>(s);
    const auto x = test::random_vector(static_cast<size_t>(s.nnodes));
    // The reference: P1 from the host's own gradients; P2 from the assembled matrix, which the
    // polynomial test below checks.
    std::vector<double> want;
    if (order == 1) {
      want = host_p1_product(s, x);
    } else {
      const auto rp = to_host(system.A.row_ptr);
      const auto ci = to_host(system.A.col_idx);
      const auto va = to_host(system.A.values);
      want.assign(x.size(), 0.0);
      for (size_t i = 0; i < x.size(); ++i)
        for (offset_t k = rp[i]; k < rp[i + 1]; ++k) want[i] += va[k] * x[ci[k]];
    }
    for (const auto kind : all_poisson_operators()) {
      const PoissonOperator<Exec, double> op(kind, system);
      EXPECT_LT(max_difference(product(op, x), want), 1e-12 * max_abs(want)) << "P" << order << " " << op.describe();
      EXPECT_GT(op.traffic().matrix_bytes, 0);
      EXPECT_GT(op.traffic().vector_bytes, 0);
      // FP32: the same product to single precision.
      const auto system32 = make_poisson_system<float>(s);
      const PoissonOperator<Exec, float> op32(kind, system32);
      EXPECT_LT(max_difference(product(op32, x), want), 2e-5 * max_abs(want)) << "P" << order << " " << name(kind);
    }
  }
}

TEST(FemPoisson, PolynomialsOfTheSpaceAreReproduced) {
  // Interior rows (whose elements touch no Dirichlet node): A u = -lap(u) * b, exactly, for u
  // linear (P1 and P2) and quadratic (P2): the integral of grad(phi_i) . grad(u) is then
  // -lap(u) times the integral of phi_i.
  const double h = 0.25;
  const mesh::Mesh m = jittered_box(6, h);
  for (const int order : {1, 2}) {
    const TetSpace s = make_tet_space(m, order);
    const auto system = make_poisson_system<double>(s);
    const auto p = node_coords(s);
    const auto b = to_host(system.rhs);
    std::vector<char> near_boundary(static_cast<size_t>(s.nnodes), 0);
    for (ordinal_t e = 0; e < s.nelements(); ++e) {
      const ordinal_t* v = &s.elem_nodes[static_cast<size_t>(e) * s.nodes_per_element()];
      const bool touches = std::any_of(v, v + s.nodes_per_element(), [&](ordinal_t k) { return s.dirichlet[k] != 0; });
      if (touches)
        for (int i = 0; i < s.nodes_per_element(); ++i) near_boundary[v[i]] = 1;
    }
    struct Case {
      int degree;
      double laplacian;
      double (*u)(const std::array<double, 3>&);
    };
    const Case cases[] = {
        {1, 0.0, [](const std::array<double, 3>& q) { return 0.5 + 2 * q[0] - q[1] + 3 * q[2]; }},
        {2, 4.0,
         [](const std::array<double, 3>& q) { return q[0] * q[0] + 2 * q[1] * q[1] - q[2] * q[2] + q[0] * q[1]; }},
    };
    const PoissonOperator<Exec, double> op(PoissonOperatorKind::matrix_free, system);
    int checked = 0;
    for (const Case& c : cases) {
      if (c.degree > order) continue;
      std::vector<double> u(p.size());
      for (size_t i = 0; i < p.size(); ++i) u[i] = c.u(p[i]);
      const auto Au = product(op, u);
      for (ordinal_t i = 0; i < s.nnodes; ++i) {
        if (near_boundary[i]) continue;
        ASSERT_NEAR(Au[i], -c.laplacian * b[i], 1e-11) << "P" << order << ", degree " << c.degree << ", node " << i;
        ++checked;
      }
    }
    EXPECT_GT(checked, 10);
  }
}

TEST(FemPoisson, ConjugateGradientsConvergeWithEveryOperator) {
  // -lap(u) = 1 on the unit cube, u = 0 on its sides: u(1/2, 1/2, 1/2) = 0.0562 (the series).
  const ordinal_t n = 6;
  const mesh::Mesh m = box_tet_mesh(n, n, n, 1.0 / n);
  for (const int order : {1, 2}) {
    const TetSpace s = make_tet_space(m, order);
    const auto system = make_poisson_system<double>(s);
    const auto p = node_coords(s);
    ordinal_t centre = 0;
    for (ordinal_t i = 0; i < s.nnodes; ++i)
      if (std::abs(p[i][0] - 0.5) + std::abs(p[i][1] - 0.5) + std::abs(p[i][2] - 0.5) < 1e-12) centre = i;
    std::vector<double> first;
    for (const auto kind : all_poisson_operators()) {
      const PoissonOperator<Exec, double> op(kind, system);
      Kokkos::View<double*, Mem> u("u", static_cast<size_t>(s.nnodes));
      const CgResult r = solve_cg(op, Kokkos::View<const double*, Mem>(system.diagonal),
                                  Kokkos::View<const double*, Mem>(system.rhs), u, 1e-10, 500);
      EXPECT_TRUE(r.converged) << name(kind) << " P" << order << ": " << r.iterations << " iterations";
      EXPECT_LT(r.final_residual, 2e-10 * r.initial_residual) << name(kind);
      const auto uh = to_host(u);
      EXPECT_NEAR(uh[centre], 0.0562, order == 1 ? 0.006 : 0.0015) << name(kind) << " P" << order;
      if (first.empty())
        first = uh;
      else
        EXPECT_LT(max_difference(uh, first), 1e-8) << name(kind);
    }
  }
}

TEST(FemPoisson, RealMeshes) {
  const auto path = test::shared_dir() / "meshes" / "brick_tets.su2";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no ../shared/meshes/brick_tets.su2";
  const TetSpace s = make_tet_space(mesh::read(path.string()), 1);
  const auto system = make_poisson_system<float>(s);
  for (const auto kind : {PoissonOperatorKind::csr, PoissonOperatorKind::matrix_free}) {
    const PoissonOperator<Exec, float> op(kind, system);
    Kokkos::View<float*, Mem> u("u", static_cast<size_t>(s.nnodes));
    const CgResult r = solve_cg(op, Kokkos::View<const float*, Mem>(system.diagonal),
                                Kokkos::View<const float*, Mem>(system.rhs), u, 1e-5, 2000);
    EXPECT_TRUE(r.converged) << name(kind) << ": " << r.iterations << " iterations, " << r.final_residual;
  }
}

TEST(FemPoisson, BadCallsAreNamed) {
  const TetSpace s = make_tet_space(box_tet_mesh(2, 2, 2), 1);
  const auto system = make_poisson_system<double>(s);
  const PoissonOperator<Exec, double> op(PoissonOperatorKind::ell, system);
  Kokkos::View<double*, Mem> x("x", 5), y("y", static_cast<size_t>(s.nnodes));
  PPSPARSE_EXPECT_THROW_MESSAGE(op.apply(x, y), InvalidArgument, "fem operator ell: x has 5 entries and y 27");
  PPSPARSE_EXPECT_THROW_MESSAGE(solve_cg(op, Kokkos::View<const double*, Mem>(system.diagonal),
                                         Kokkos::View<const double*, Mem>(system.rhs), y, 2.0, 10),
                                InvalidArgument, "rtol = 2.0");
  EXPECT_EQ(parse_poisson_operator("lma_colored"), PoissonOperatorKind::lma_colored);
  PPSPARSE_EXPECT_THROW_MESSAGE(parse_poisson_operator("lma"), InvalidArgument,
                                "unknown finite element operator 'lma' (valid: csr, ell, lma_atomic, lma_colored, "
                                "matrix_free, matrix_free_blocked)");
}

}  // namespace
}  // namespace ppsparse::fem

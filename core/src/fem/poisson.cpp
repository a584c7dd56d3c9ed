// The finite element Poisson problem: reference integrals, element matrices, assembly, the
// operators' dispatch (fem/operators.def) and Jacobi-preconditioned CG.
#include <ppsparse/fem/poisson.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <iterator>
#include <string>

#include <ppsparse/error.hpp>
#include <ppsparse/util/names.hpp>

#include "tet_element.hpp"

namespace ppsparse::fem {

namespace {

// The basis functions of order `order` at barycentric point l (l[0] = 1 - xi1 - xi2 - xi3):
// values phi[i] and reference gradients grad[i][a] = d phi_i / d xi_a.
void basis(int order, const std::array<double, 4>& l, double* phi, double (*grad)[3]) {
  static constexpr double dl[4][3] = {{-1, -1, -1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};  // d lambda_k / d xi
  if (order == 1) {
    for (int i = 0; i < 4; ++i) {
      phi[i] = l[i];
      for (int a = 0; a < 3; ++a) grad[i][a] = dl[i][a];
    }
    return;
  }
  for (int i = 0; i < 4; ++i) {
    phi[i] = l[i] * (2 * l[i] - 1);
    for (int a = 0; a < 3; ++a) grad[i][a] = (4 * l[i] - 1) * dl[i][a];
  }
  for (int k = 0; k < 6; ++k) {
    const int p = kTetEdges[k][0], q = kTetEdges[k][1];
    phi[4 + k] = 4 * l[p] * l[q];
    for (int a = 0; a < 3; ++a) grad[4 + k][a] = 4 * (l[q] * dl[p][a] + l[p] * dl[q][a]);
  }
}

// The 4-point rule on the reference tetrahedron (volume 1/6), exact for degree 2.
template <class F>
void integrate(F&& f) {
  const double a = 0.5854101966249685, b = 0.1381966011250105;
  for (int q = 0; q < 4; ++q) {
    std::array<double, 4> l = {b, b, b, b};
    l[q] = a;
    f(l, 1.0 / 24.0);
  }
}

struct Reference {
  int m = 4;
  std::vector<double> stiffness;  // ((i*m + j)*3 + a)*3 + b
  std::vector<double> mass_row;   // integral of phi_i
  std::vector<double> gradients;  // (q*m + i)*3 + a: d phi_i / d xi_a at the rule's point q
};

Reference reference(int order) {
  Reference r;
  r.m = order == 1 ? 4 : 10;
  const int m = r.m;
  r.stiffness.assign(static_cast<size_t>(m) * m * 9, 0.0);
  r.mass_row.assign(static_cast<size_t>(m), 0.0);
  integrate([&](const std::array<double, 4>& l, double w) {
    double phi[10], grad[10][3];
    basis(order, l, phi, grad);
    for (int i = 0; i < m; ++i)
      for (int a = 0; a < 3; ++a) r.gradients.push_back(grad[i][a]);
    for (int i = 0; i < m; ++i) {
      r.mass_row[i] += w * phi[i];
      for (int j = 0; j < m; ++j)
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) r.stiffness[((i * m + j) * 3 + a) * 3 + b] += w * grad[i][a] * grad[j][b];
    }
  });
  return r;
}

template <class Scalar, class MemSpace>
Kokkos::View<Scalar*, MemSpace> to_device_as(const std::vector<double>& v, const char* label) {
  return detail::to_device<Scalar, MemSpace>(std::vector<Scalar>(v.begin(), v.end()), label);
}

constexpr const char* kNames[] = {
#define PPSPARSE_FEM_OPERATOR(id, summary) #id,
#include <ppsparse/fem/operators.def>
#undef PPSPARSE_FEM_OPERATOR
};

}  // namespace

template <class Scalar, class MemSpace>
PoissonSystem<Scalar, MemSpace> make_poisson_system(const TetSpace& space) {
  if (space.order != 1 && space.order != 2)
    throw InvalidArgument("fem Poisson system: order " + std::to_string(space.order) + " (1 or 2)");
  const int m = space.nodes_per_element();
  const ordinal_t ne = space.nelements(), n = space.nnodes;
  const Reference ref = reference(space.order);
  std::vector<double> local(static_cast<size_t>(m) * m * ne), rhs(static_cast<size_t>(n), 0.0);
  // Each node's neighbours (the nodes it shares an element with), for the pattern.
  std::vector<std::vector<ordinal_t>> columns(static_cast<size_t>(n));
  for (ordinal_t e = 0; e < ne; ++e) {
    const ordinal_t* v = &space.elem_nodes[static_cast<size_t>(e) * m];
    double p[4][3], g[4][3], C[3][3];
    for (int k = 0; k < 4; ++k)
      for (int r = 0; r < 3; ++r) p[k][r] = space.coords[3 * static_cast<size_t>(v[k]) + r];
    const double det = detail::barycentric_gradients(p, g);
    detail::inverse_metric(g, C);
    for (int i = 0; i < m; ++i) {
      if (!space.dirichlet[v[i]]) rhs[v[i]] += det * ref.mass_row[i];
      for (int j = 0; j < m; ++j) {
        double k = 0;
        if (!space.dirichlet[v[i]] && !space.dirichlet[v[j]]) {
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) k += C[a][b] * ref.stiffness[((i * m + j) * 3 + a) * 3 + b];
          k *= det;
          columns[v[i]].push_back(v[j]);
        }
        local[(static_cast<size_t>(i) * m + j) * ne + e] = k;
      }
    }
  }
  // A: the interior couplings summed, the Dirichlet rows those of the identity.
  CsrMatrix<Scalar, HostSpace> A_host;
  {
    offset_t nnz = 0;
    for (ordinal_t i = 0; i < n; ++i) {
      auto& c = columns[i];
      if (space.dirichlet[i]) c.assign(1, i);
      std::sort(c.begin(), c.end());
      c.erase(std::unique(c.begin(), c.end()), c.end());
      nnz += static_cast<offset_t>(c.size());
    }
    A_host = CsrMatrix<Scalar, HostSpace>(n, n, nnz, "fem.A");
    A_host.row_ptr(0) = 0;
    for (ordinal_t i = 0; i < n; ++i) {
      A_host.row_ptr(i + 1) = A_host.row_ptr(i) + static_cast<offset_t>(columns[i].size());
      std::copy(columns[i].begin(), columns[i].end(), A_host.col_idx.data() + A_host.row_ptr(i));
    }
    std::vector<double> values(static_cast<size_t>(nnz), 0.0);
    for (ordinal_t i = 0; i < n; ++i)
      if (space.dirichlet[i]) values[A_host.row_ptr(i)] = 1.0;
    for (ordinal_t e = 0; e < ne; ++e) {
      const ordinal_t* v = &space.elem_nodes[static_cast<size_t>(e) * m];
      for (int i = 0; i < m; ++i) {
        if (space.dirichlet[v[i]]) continue;
        const ordinal_t* row = A_host.col_idx.data() + A_host.row_ptr(v[i]);
        const ordinal_t* row_end = A_host.col_idx.data() + A_host.row_ptr(v[i] + 1);
        for (int j = 0; j < m; ++j) {
          if (space.dirichlet[v[j]]) continue;
          values[std::lower_bound(row, row_end, v[j]) - A_host.col_idx.data()] +=
              local[(static_cast<size_t>(i) * m + j) * ne + e];
        }
      }
    }
    for (offset_t k = 0; k < nnz; ++k) A_host.values(k) = static_cast<Scalar>(values[k]);
  }
  std::vector<double> diagonal(static_cast<size_t>(n));
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t k = A_host.row_ptr(i); k < A_host.row_ptr(i + 1); ++k)
      if (A_host.col_idx(k) == i) diagonal[i] = A_host.values(k);

  PoissonSystem<Scalar, MemSpace> s;
  s.order = space.order;
  s.m = m;
  s.nnodes = n;
  s.nelements = ne;
  s.nvertices = space.nvertices;
  s.host_elem_nodes = space.elem_nodes;
  s.elem_nodes = detail::to_device<ordinal_t, MemSpace>(space.elem_nodes, "fem.elem_nodes");
  s.coords = to_device_as<Scalar, MemSpace>(space.coords, "fem.coords");
  s.local = to_device_as<Scalar, MemSpace>(local, "fem.local");
  s.A = copy_to<MemSpace>(A_host);
  s.dirichlet = detail::to_device<char, MemSpace>(space.dirichlet, "fem.dirichlet");
  s.diagonal = to_device_as<Scalar, MemSpace>(diagonal, "fem.diagonal");
  s.rhs = to_device_as<Scalar, MemSpace>(rhs, "fem.rhs");
  s.reference = to_device_as<Scalar, MemSpace>(ref.gradients, "fem.reference");
  return s;
}

const char* name(PoissonOperatorKind k) { return util::name_of(k, kNames); }

const std::vector<PoissonOperatorKind>& all_poisson_operators() {
  static const std::vector<PoissonOperatorKind> all = util::enumerators<PoissonOperatorKind>(std::size(kNames));
  return all;
}

PoissonOperatorKind parse_poisson_operator(const std::string& s) {
  return util::parse_name<PoissonOperatorKind>(s, kNames, "finite element operator");
}

template <class ExecSpace, class Scalar>
PoissonOperator<ExecSpace, Scalar>::PoissonOperator(PoissonOperatorKind kind,
                                                    const PoissonSystem<Scalar, memory_space>& system,
                                                    const ExecSpace& space)
    : kind_(kind), space_(space), nnodes_(system.nnodes) {
  const auto t0 = std::chrono::steady_clock::now();
  switch (kind) {
#define PPSPARSE_FEM_OPERATOR(id, summary)                                        \
  case PoissonOperatorKind::id:                                                   \
    kernel_ = detail::make_poisson_kernel_##id<ExecSpace, Scalar>(space, system); \
    break;
#include <ppsparse/fem/operators.def>
#undef PPSPARSE_FEM_OPERATOR
  }
  if (!kernel_) throw InvalidArgument("fem operator: unknown kind " + std::to_string(static_cast<int>(kind)));
  space_.fence();
  setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class ExecSpace, class Scalar>
PoissonOperator<ExecSpace, Scalar>::~PoissonOperator() = default;
template <class ExecSpace, class Scalar>
PoissonOperator<ExecSpace, Scalar>::PoissonOperator(PoissonOperator&&) noexcept = default;
template <class ExecSpace, class Scalar>
PoissonOperator<ExecSpace, Scalar>& PoissonOperator<ExecSpace, Scalar>::operator=(PoissonOperator&&) noexcept = default;

template <class ExecSpace, class Scalar>
void PoissonOperator<ExecSpace, Scalar>::apply(const ConstVector& x, const Vector& y) const {
  if (x.extent(0) != static_cast<size_t>(nnodes_) || y.extent(0) != static_cast<size_t>(nnodes_))
    throw InvalidArgument(std::string("fem operator ") + name(kind_) + ": x has " + std::to_string(x.extent(0)) +
                          " entries and y " + std::to_string(y.extent(0)) + ", expected " + std::to_string(nnodes_));
  kernel_->apply(space_, x, y);
}

template <class ExecSpace, class Scalar>
FemTraffic PoissonOperator<ExecSpace, Scalar>::traffic() const {
  return kernel_->traffic();
}

template <class ExecSpace, class Scalar>
std::string PoissonOperator<ExecSpace, Scalar>::describe() const {
  const std::string p = kernel_->parameters();
  return std::string(name(kind_)) + (p.empty() ? "" : " (" + p + ")");
}

template <class ExecSpace, class Scalar>
CgResult solve_cg(const PoissonOperator<ExecSpace, Scalar>& op,
                  const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& diagonal,
                  const Kokkos::View<const Scalar*, typename ExecSpace::memory_space>& b,
                  const Kokkos::View<Scalar*, typename ExecSpace::memory_space>& u, double rtol, int max_iterations) {
  using Mem = typename ExecSpace::memory_space;
  const size_t n = static_cast<size_t>(op.nnodes());
  if (diagonal.extent(0) != n || b.extent(0) != n || u.extent(0) != n)
    throw InvalidArgument("fem cg: diagonal, b and u need " + std::to_string(n) + " entries (they have " +
                          std::to_string(diagonal.extent(0)) + ", " + std::to_string(b.extent(0)) + ", " +
                          std::to_string(u.extent(0)) + ")");
  if (!(rtol > 0 && rtol < 1)) throw InvalidArgument("fem cg: rtol = " + std::to_string(rtol) + " is not in (0, 1)");
  if (max_iterations < 1)
    throw InvalidArgument("fem cg: max_iterations = " + std::to_string(max_iterations) + " (at least 1)");
  Kokkos::View<Scalar*, Mem> r("fem.cg.r", n), z("fem.cg.z", n), p("fem.cg.p", n), q("fem.cg.q", n),
      inv("fem.cg.inverse_diagonal", n);
  Kokkos::parallel_for(
      "ppsparse::fem_cg_inverse_diagonal", Kokkos::RangePolicy<ExecSpace>(op.space(), 0, n),
      KOKKOS_LAMBDA(const size_t i) { inv(i) = diagonal(i) != Scalar(0) ? Scalar(1) / diagonal(i) : Scalar(1); });
  // r = b - A u
  op.apply(u, r);
  KokkosBlas::axpby(Scalar(1), b, Scalar(-1), r);
  CgResult result;
  result.initial_residual = std::sqrt(static_cast<double>(KokkosBlas::dot(r, r)));
  result.final_residual = result.initial_residual;
  if (result.initial_residual == 0) {
    result.converged = true;
    return result;
  }
  KokkosBlas::mult(Scalar(0), z, Scalar(1), inv, r);
  Kokkos::deep_copy(p, z);
  double rz = KokkosBlas::dot(r, z);
  bool met = false;
  for (int it = 1; it <= max_iterations; ++it) {
    op.apply(p, q);
    const double pq = KokkosBlas::dot(p, q);
    if (!(pq > 0) || !std::isfinite(pq))
      throw NumericalError("fem cg: p'Ap = " + std::to_string(pq) + " at iteration " + std::to_string(it) +
                           " (the matrix is not positive definite, or the iteration broke down)");
    const Scalar alpha = static_cast<Scalar>(rz / pq);
    KokkosBlas::axpby(alpha, p, Scalar(1), u);
    KokkosBlas::axpby(-alpha, q, Scalar(1), r);
    result.iterations = it;
    result.final_residual = std::sqrt(static_cast<double>(KokkosBlas::dot(r, r)));
    if (result.final_residual <= rtol * result.initial_residual) {
      met = true;
      break;
    }
    KokkosBlas::mult(Scalar(0), z, Scalar(1), inv, r);
    const double rz_next = KokkosBlas::dot(r, z);
    KokkosBlas::axpby(Scalar(1), z, static_cast<Scalar>(rz_next / rz), p);
    rz = rz_next;
  }
  // Reported: the true residual (the recursive one, which decided, drifts from it in FP32).
  op.apply(u, r);
  KokkosBlas::axpby(Scalar(1), b, Scalar(-1), r);
  result.final_residual = std::sqrt(static_cast<double>(KokkosBlas::dot(r, r)));
  result.converged = met;
  return result;
}

#define PPSPARSE_INSTANTIATE_FEM(S)                                                                    \
  template PoissonSystem<S, DefaultMemSpace> make_poisson_system<S, DefaultMemSpace>(const TetSpace&); \
  template class PoissonOperator<DefaultExecSpace, S>;                                                 \
  template CgResult solve_cg<DefaultExecSpace, S>(                                                     \
      const PoissonOperator<DefaultExecSpace, S>&, const Kokkos::View<const S*, DefaultMemSpace>&,     \
      const Kokkos::View<const S*, DefaultMemSpace>&, const Kokkos::View<S*, DefaultMemSpace>&, double, int);

PPSPARSE_INSTANTIATE_FEM(float)
PPSPARSE_INSTANTIATE_FEM(double)

}  // namespace ppsparse::fem

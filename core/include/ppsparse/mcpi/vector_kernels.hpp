#pragma once
/// @file
/// The solver's vector kernels (renumbering, widening, norms, the block operator, the scatter
/// of user values), as free functions: a CUDA extended lambda may not sit in a private member.
#include <climits>
#include <cmath>

#include <ppsparse/types.hpp>

namespace ppsparse::mcpi::impl {

/// xi(p * nb + e) = x(n2o(p) * nb + e): user's numbering -> colour order (with conversion).
template <class ExecSpace, class N2O, class X, class XI>
void to_internal(const ExecSpace& exec, const N2O& n2o, int nb, const X& x, const XI& xi) {
  using T = typename XI::non_const_value_type;
  Kokkos::parallel_for(
      "ppsparse::mcpi::to_internal", Kokkos::RangePolicy<ExecSpace>(exec, 0, xi.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { xi(q) = static_cast<T>(x(static_cast<size_t>(n2o(q / nb)) * nb + q % nb)); });
}

/// x(n2o(p) * nb + e) = xi(p * nb + e): colour order -> user's numbering (with conversion).
template <class ExecSpace, class N2O, class XI, class X>
void to_user(const ExecSpace& exec, const N2O& n2o, int nb, const XI& xi, const X& x) {
  using T = typename X::non_const_value_type;
  Kokkos::parallel_for(
      "ppsparse::mcpi::to_user", Kokkos::RangePolicy<ExecSpace>(exec, 0, xi.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { x(static_cast<size_t>(n2o(q / nb)) * nb + q % nb) = static_cast<T>(xi(q)); });
}

/// y = x with conversion.
template <class ExecSpace, class X, class Y>
void convert(const ExecSpace& exec, const X& x, const Y& y) {
  using T = typename Y::non_const_value_type;
  Kokkos::parallel_for(
      "ppsparse::mcpi::convert", Kokkos::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { y(q) = static_cast<T>(x(q)); });
}

/// r = b - r.
template <class ExecSpace, class B, class R>
void subtract_from(const ExecSpace& exec, const B& b, const R& r) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::subtract_from", Kokkos::RangePolicy<ExecSpace>(exec, 0, r.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { r(q) = b(q) - r(q); });
}

/// sum_q x(q)^2 (NaN if x holds a NaN or Inf); synchronises.
template <class ExecSpace, class X>
double sum_squares(const ExecSpace& exec, const X& x) {
  double sum = 0.0;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::norm", Kokkos::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q, double& acc) { acc += static_cast<double>(x(q)) * x(q); }, sum);
  return sum;
}

/// The first block row (entries / nb) of x holding a NaN or Inf, or -1; synchronises.
template <class ExecSpace, class X>
long long first_not_finite_row(const ExecSpace& exec, const X& x, int nb) {
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::find_not_finite", Kokkos::RangePolicy<ExecSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q, long long& mn) {
        const double v = x(q);
        const long long row = static_cast<long long>(q / nb);
        if (!(v - v == 0.0) && row < mn) mn = row;
      },
      Kokkos::Min<long long>(first));
  return first == LLONG_MAX ? -1 : first;
}

/// Scatters the user's D blocks (n * nb * nb, by user block row, `row_major` or column-major)
/// into D (column-major, colour order) through o2n.
template <class ExecSpace, class Src, class O2N, class Dst>
void scatter_d(const ExecSpace& exec, const Src& d, const O2N& o2n, int nb, bool row_major, const Dst& D) {
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  Kokkos::parallel_for(
      "ppsparse::mcpi::scatter_d", Kokkos::RangePolicy<ExecSpace>(exec, 0, d.extent(0)), KOKKOS_LAMBDA(const size_t q) {
        const size_t r = q / nb2, e = q % nb2;
        const size_t i = row_major ? e / nb : e % nb, j = row_major ? e % nb : e / nb;
        D(static_cast<size_t>(o2n(r)) * nb2 + j * nb + i) = static_cast<typename Dst::non_const_value_type>(d(q));
      });
}

/// Scatters the user's O blocks (block k at k * nb * nb) into their slots of O (column-major,
/// converted to O's precision); returns the first user block holding a NaN or Inf, or -1 (synchronises).
template <class ExecSpace, class Src, class Slot, class Dst>
long long scatter_o(const ExecSpace& exec, const Src& o, const Slot& slot, int nb, bool row_major, const Dst& O) {
  const size_t nb2 = static_cast<size_t>(nb) * nb;
  long long bad = LLONG_MAX;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::scatter_o", Kokkos::RangePolicy<ExecSpace>(exec, 0, o.extent(0)),
      KOKKOS_LAMBDA(const size_t q, long long& first) {
        const size_t k = q / nb2, e = q % nb2;
        const size_t i = row_major ? e / nb : e % nb, j = row_major ? e % nb : e / nb;
        const auto x = static_cast<typename Dst::non_const_value_type>(o(q));
        O(static_cast<size_t>(slot(k)) * nb2 + j * nb + i) = x;
        if (!(x - x == 0) && static_cast<long long>(k) < first) first = static_cast<long long>(k);
      },
      Kokkos::Min<long long>(bad));
  return bad == LLONG_MAX ? -1 : bad;
}

/// Row q (block row q / nb, entry q % nb) of (D + O) x in FP64, D from its LU factors: x in the
/// user's numbering (`user`, through n2o) or in colour order; u holds U x (upper()).
template <class MemSpace, class XView, class OS = float, class DS = double>
struct OperatorRow {
  Kokkos::View<const ordinal_t*, MemSpace> n2o;
  Kokkos::View<const DS*, MemSpace> D;
  Kokkos::View<const double*, MemSpace> u;
  Kokkos::View<const offset_t*, MemSpace> ia;
  Kokkos::View<const ordinal_t*, MemSpace> ja;
  Kokkos::View<const OS*, MemSpace> O;
  XView x;
  int nb;
  bool user;

  KOKKOS_INLINE_FUNCTION size_t at(const size_t p) const { return user ? static_cast<size_t>(n2o(p)) : p; }
  /// (U x) of block row p, entry i (U: D's upper factor, diagonal included).
  KOKKOS_INLINE_FUNCTION double upper(const size_t p, const int i) const {
    const DS* lu = D.data() + p * nb * nb;
    const size_t xp = at(p);
    double s = 0.0;
    for (int j = i; j < nb; ++j) s += lu[j * nb + i] * x(xp * nb + j);
    return s;
  }
  KOKKOS_INLINE_FUNCTION double operator()(const size_t q) const {
    const size_t p = q / nb, nb2 = static_cast<size_t>(nb) * nb;
    const int i = static_cast<int>(q % nb);
    const DS* lu = D.data() + p * nb2;
    double s = u(q);
    for (int k = 0; k < i; ++k) s += lu[k * nb + i] * u(p * nb + k);
    for (offset_t b = ia(p); b < ia(p + 1); ++b) {
      const size_t c = at(static_cast<size_t>(ja(b)));
      const OS* blk = O.data() + static_cast<size_t>(b) * nb2 + i;
      for (int j = 0; j < nb; ++j) s += static_cast<double>(blk[j * nb]) * x(c * nb + j);
    }
    return s;
  }
};

/// Fills u = U x for every block row (the first pass of OperatorRow).
template <class ExecSpace, class Op, class U>
void operator_upper(const ExecSpace& exec, const Op& op, const U& u) {
  const int nb = op.nb;
  Kokkos::parallel_for(
      "ppsparse::mcpi::operator_upper", Kokkos::RangePolicy<ExecSpace>(exec, 0, u.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { u(q) = op.upper(q / nb, static_cast<int>(q % nb)); });
}

/// y = (D + O) x, y in the numbering of x.
template <class ExecSpace, class Op, class Y>
void operator_apply(const ExecSpace& exec, const Op& op, const Y& y) {
  const int nb = op.nb;
  Kokkos::parallel_for(
      "ppsparse::mcpi::operator", Kokkos::RangePolicy<ExecSpace>(exec, 0, y.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { y(op.at(q / nb) * nb + q % nb) = op(q); });
}

/// ||rhs - (D + O) x||_2^2 with rhs and x in colour order; synchronises.
template <class ExecSpace, class Op, class Rhs>
double residual_squares(const ExecSpace& exec, const Op& op, const Rhs& rhs) {
  double sum = 0.0;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::residual", Kokkos::RangePolicy<ExecSpace>(exec, 0, rhs.extent(0)),
      KOKKOS_LAMBDA(const size_t q, double& acc) {
        const double e = rhs(q) - op(q);
        acc += e * e;
      },
      sum);
  return sum;
}

}  // namespace ppsparse::mcpi::impl

#pragma once
// The multigrid cycle's vector kernels (multigrid.cpp): the restriction and prolongation
// between the colour orders of two levels, and the K-cycle's and the corrections' inner
// products and updates, whose scalars stay on the device so that a cycle never waits for the
// host and can be recorded as one device graph.
#include <Kokkos_Core.hpp>

#include <ppsparse/types.hpp>

// A named namespace: CUDA's extended lambdas may not live in an unnamed one.
namespace ppsparse::mcpi::multigrid {

/// b_c(c) = sum of r(p) over the fine rows p of coarse row c (colour orders), in a fixed order.
template <class E, class M>
void restrict_residual(const E& exec, int nb, const Kokkos::View<const offset_t*, M>& ptr,
                       const Kokkos::View<const ordinal_t*, M>& rows, const Kokkos::View<const double*, M>& r,
                       const Kokkos::View<double*, M>& b) {
  const ordinal_t nc = static_cast<ordinal_t>(ptr.extent(0)) - 1;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::restrict", Kokkos::RangePolicy<E>(exec, 0, nc), KOKKOS_LAMBDA(const ordinal_t c) {
        for (int e = 0; e < nb; ++e) {
          double sum = 0;
          for (offset_t t = ptr(c); t < ptr(c + 1); ++t) sum += r(static_cast<size_t>(rows(t)) * nb + e);
          b(static_cast<size_t>(c) * nb + e) = sum;
        }
      });
}

/// x(p) += x_c(to_coarse(p)) for every fine row p (colour orders); x(p) = x_c(...) where not
/// `accumulate` (one launch, not a fill and an add: the coarse levels are latency-bound).
template <class E, class M, class XC, class X>
void prolong_correction(const E& exec, int nb, const Kokkos::View<const ordinal_t*, M>& to_coarse, const XC& xc,
                        const X& x, bool accumulate) {
  const ordinal_t n = static_cast<ordinal_t>(to_coarse.extent(0));
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::prolong", Kokkos::RangePolicy<E>(exec, 0, n), KOKKOS_LAMBDA(const ordinal_t p) {
        for (int e = 0; e < nb; ++e) {
          const size_t at = static_cast<size_t>(p) * nb + e;
          const auto v = xc(static_cast<size_t>(to_coarse(p)) * nb + e);
          x(at) = accumulate ? x(at) + v : v;
        }
      });
}

/// The scalars of one level's coarse correction, kept on the device so that a cycle never
/// waits for the host (and can be recorded as one device graph): the K-cycle's inner products
/// and the correction's scaling, each written by dot_into and read by the kernels below.
enum Scalar : int {
  w1w1,  ///< (w1, w1), w1 = A_c z1
  bb,    ///< (b, b)
  rr,    ///< (r, r), r = b - a1 w1
  w1b,   ///< (w1, b)
  w2w1,
  w2w2,
  w2r,
  scale_num,  ///< the correction's scale: scale_num / scale_den
  scale_den,
  scalar_count
};

/// The K-cycle's first step size a1 = (w1, b) / (w1, w1); 1 where w1 = 0 (the first direction
/// kept as the cycle gave it).
template <class S>
KOKKOS_INLINE_FUNCTION double first_step(const S& s) {
  return s(w1w1) > 0 ? s(w1b) / s(w1w1) : 1.0;
}
/// The second step size a2; 0 where the first step cut the coarse residual 4-fold (the second
/// direction is not used) or there is none.
template <class S>
KOKKOS_INLINE_FUNCTION double second_step(const S& s) {
  const bool used = s(w1w1) > 0 && !(s(rr) <= 0.0625 * s(bb)) && s(w2w2) > 0;
  return used ? s(w2r) / s(w2w2) : 0.0;
}

/// s(slot) = x . y, on exec, into device memory (asynchronous).
template <class E, class X, class Y, class S>
void dot_into(const E& exec, const X& x, const Y& y, const S& s, Scalar slot) {
  using M = typename E::memory_space;
  Kokkos::parallel_reduce(
      "ppsparse::mcpi::multigrid::dot", Kokkos::RangePolicy<E>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q, double& acc) { acc += x(q) * y(q); },
      Kokkos::View<double, M, Kokkos::MemoryUnmanaged>(s.data() + slot));
}

/// r = b - a1 w1 (a1 from s).
template <class E, class V, class S>
void first_residual(const E& exec, const V& b, const V& w1, const V& r, const S& s) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::first_residual", Kokkos::RangePolicy<E>(exec, 0, r.extent(0)),
      KOKKOS_LAMBDA(const size_t q) { r(q) = b(q) - first_step(s) * w1(q); });
}

/// z2 -= beta z1, w2 -= beta w1, beta = (w2, w1) / (w1, w1): the second direction made
/// orthogonal to the first's image.
template <class E, class V, class S>
void orthogonalise(const E& exec, const V& z1, const V& w1, const V& z2, const V& w2, const S& s) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::orthogonalise", Kokkos::RangePolicy<E>(exec, 0, z2.extent(0)),
      KOKKOS_LAMBDA(const size_t q) {
        const double beta = s(w1w1) > 0 ? s(w2w1) / s(w1w1) : 0.0;
        z2(q) -= beta * z1(q);
        w2(q) -= beta * w1(q);
      });
}

/// z1 = a1 z1 + a2 z2; z2 is not read where a2 = 0 (then it may hold anything).
template <class E, class V, class S>
void combine(const E& exec, const V& z1, const V& z2, const S& s) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::combine", Kokkos::RangePolicy<E>(exec, 0, z1.extent(0)),
      KOKKOS_LAMBDA(const size_t q) {
        const double a1 = first_step(s), a2 = second_step(s);
        z1(q) = a2 == 0 ? a1 * z1(q) : a1 * z1(q) + a2 * z2(q);
      });
}

/// y += alpha x with alpha = scale_num / scale_den from s, or `fallback` where scale_den <= 0.
template <class E, class X, class Y, class S>
void add_scaled(const E& exec, const X& x, const Y& y, const S& s, double fallback) {
  using T = typename Y::non_const_value_type;
  Kokkos::parallel_for(
      "ppsparse::mcpi::multigrid::add_scaled", Kokkos::RangePolicy<E>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const size_t q) {
        const double alpha = s(scale_den) > 0 ? s(scale_num) / s(scale_den) : fallback;
        y(q) += static_cast<T>(alpha * x(q));
      });
}

}  // namespace ppsparse::mcpi::multigrid

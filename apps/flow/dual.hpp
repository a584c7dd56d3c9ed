#pragma once
// Forward-mode automatic differentiation: a value with its N partial derivatives, so that the
// flux functions written once for double give their exact Jacobian when called with Dual<N>.
// Branches (max, abs, the entropy fix) follow the value, as the residual's do.
#include <Kokkos_Core.hpp>
#include <ppsparse/kokkos_compat.hpp>

namespace flow {

template <int N>
struct Dual {
  double v = 0;
  double d[N] = {};

  KOKKOS_INLINE_FUNCTION Dual() = default;
  KOKKOS_INLINE_FUNCTION Dual(double value) : v(value) {}  // NOLINT: constants mix freely
  /// The independent variable k of N with this value.
  KOKKOS_INLINE_FUNCTION static Dual variable(double value, int k) {
    Dual x(value);
    x.d[k] = 1;
    return x;
  }
  KOKKOS_INLINE_FUNCTION Dual& operator+=(const Dual& b) {
    v += b.v;
    for (int k = 0; k < N; ++k) d[k] += b.d[k];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION Dual& operator-=(const Dual& b) {
    v -= b.v;
    for (int k = 0; k < N; ++k) d[k] -= b.d[k];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION Dual& operator*=(const Dual& b) { return *this = *this * b; }
  KOKKOS_INLINE_FUNCTION Dual& operator/=(const Dual& b) { return *this = *this / b; }

  KOKKOS_INLINE_FUNCTION friend Dual operator+(Dual a, const Dual& b) { return a += b; }
  KOKKOS_INLINE_FUNCTION friend Dual operator-(Dual a, const Dual& b) { return a -= b; }
  KOKKOS_INLINE_FUNCTION friend Dual operator-(const Dual& a) {
    Dual r;
    r.v = -a.v;
    for (int k = 0; k < N; ++k) r.d[k] = -a.d[k];
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v * b.v;
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend Dual operator/(const Dual& a, const Dual& b) {
    Dual r;
    const double inv = 1.0 / b.v;
    r.v = a.v * inv;
    for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) * inv;
    return r;
  }
  KOKKOS_INLINE_FUNCTION friend bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  KOKKOS_INLINE_FUNCTION friend bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
};

KOKKOS_INLINE_FUNCTION double value(double x) { return x; }
template <int N>
KOKKOS_INLINE_FUNCTION double value(const Dual<N>& x) {
  return x.v;
}

KOKKOS_INLINE_FUNCTION double sqrt_of(double x) { return ppsparse::compat::sqrt(x); }
template <int N>
KOKKOS_INLINE_FUNCTION Dual<N> sqrt_of(const Dual<N>& x) {
  Dual<N> r;
  r.v = ppsparse::compat::sqrt(x.v);
  const double s = r.v > 0 ? 0.5 / r.v : 0.0;
  for (int k = 0; k < N; ++k) r.d[k] = s * x.d[k];
  return r;
}
KOKKOS_INLINE_FUNCTION double pow_of(double x, double e) { return ppsparse::compat::pow(x, e); }
template <int N>
KOKKOS_INLINE_FUNCTION Dual<N> pow_of(const Dual<N>& x, double e) {
  Dual<N> r;
  r.v = ppsparse::compat::pow(x.v, e);
  const double s = x.v != 0 ? e * r.v / x.v : 0.0;
  for (int k = 0; k < N; ++k) r.d[k] = s * x.d[k];
  return r;
}
template <class T>
KOKKOS_INLINE_FUNCTION T abs_of(const T& x) {
  return value(x) < 0 ? T(-x) : x;
}
template <class T>
KOKKOS_INLINE_FUNCTION T max_of(const T& a, const T& b) {
  return value(a) < value(b) ? b : a;
}
template <class T>
KOKKOS_INLINE_FUNCTION T min_of(const T& a, const T& b) {
  return value(b) < value(a) ? b : a;
}

}  // namespace flow

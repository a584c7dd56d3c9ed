#pragma once
// The compressible Euler equations of an ideal gas on median-dual control volumes (Blazek 2015,
// ch. 4-5, 8): the physical flux, the Roe, HLLC, HLLE, AUSM+up and Rusanov numerical fluxes and
// the boundary fluxes, written once for T = double (the residual) and T = Dual<N> (its exact
// Jacobian). Conserved variables (rho, rho u, rho v, [rho w], rho E), non-dimensional with the
// free stream's density 1 and speed of sound 1 (so p_inf = 1 / gamma, T = gamma p / rho).
#include <type_traits>

#include <Kokkos_Core.hpp>
#include <ppsparse/kokkos_compat.hpp>

#include "dual.hpp"

namespace flow {

enum class FluxScheme { roe, rusanov, hllc, ausm_up, hlle };

/// "roe", "rusanov", "hllc", "ausm+up", "hlle".
inline const char* name(FluxScheme s) {
  return s == FluxScheme::roe       ? "roe"
         : s == FluxScheme::rusanov ? "rusanov"
         : s == FluxScheme::hllc    ? "hllc"
         : s == FluxScheme::hlle    ? "hlle"
                                    : "ausm+up";
}

/// f(std::integral_constant<FluxScheme, s>{}): code compiled once per scheme, chosen at run time.
template <class F>
void with_flux(FluxScheme s, F&& f) {
  switch (s) {
    case FluxScheme::roe:
      f(std::integral_constant<FluxScheme, FluxScheme::roe>{});
      return;
    case FluxScheme::rusanov:
      f(std::integral_constant<FluxScheme, FluxScheme::rusanov>{});
      return;
    case FluxScheme::hllc:
      f(std::integral_constant<FluxScheme, FluxScheme::hllc>{});
      return;
    case FluxScheme::ausm_up:
      f(std::integral_constant<FluxScheme, FluxScheme::ausm_up>{});
      return;
    case FluxScheme::hlle:
      f(std::integral_constant<FluxScheme, FluxScheme::hlle>{});
      return;
  }
}

/// Boundary conditions, as the --bc option names them.
enum class BoundaryKind : int {
  wall,              ///< slip wall: only the pressure acts
  symmetry,          ///< a mirror plane: the same flux as a slip wall
  farfield,          ///< characteristic: the numerical flux between the state and the free stream
  inlet,             ///< subsonic: total pressure, total temperature and direction given
  outlet,            ///< subsonic: static pressure given
  supersonic_inlet,  ///< every quantity from the free stream
  supersonic_outlet  ///< every quantity from inside
};

/// What the boundary fluxes need: the free stream and the inlet and outlet data.
template <int D>
struct FlowConstants {
  double gamma = 1.4;
  double entropy_fix = 0.1;  ///< Harten's delta as a fraction of the Roe-averaged speed of sound
  double mach = 0.5;         ///< the free stream's Mach number (AUSM+up's low-speed scaling)
  double free[D + 2] = {};   ///< the free stream's conserved state
  double inlet_total_pressure = 0, inlet_total_temperature = 0;
  double inlet_direction[D] = {};
  double outlet_pressure = 0;
};

template <int D, class T>
KOKKOS_INLINE_FUNCTION T pressure(const T* U, double gamma) {
  T kinetic = 0;
  for (int k = 0; k < D; ++k) kinetic += U[1 + k] * U[1 + k];
  return (gamma - 1) * (U[D + 1] - 0.5 * kinetic / U[0]);
}

/// F(U) . n, with U's pressure p.
template <int D, class T>
KOKKOS_INLINE_FUNCTION void physical_flux(const T* U, const T& p, const double* n, T* F) {
  T un = 0;
  for (int k = 0; k < D; ++k) un += U[1 + k] * n[k];
  un = un / U[0];
  F[0] = U[0] * un;
  for (int k = 0; k < D; ++k) F[1 + k] = U[1 + k] * un + p * n[k];
  F[D + 1] = (U[D + 1] + p) * un;
}

/// What every numerical flux of a face starts from: its area and unit normal, and each side's
/// pressure and physical flux through the face (area-weighted, physical_flux).
template <int D, class T>
struct FaceFluxes {
  double area = 0, nh[D] = {};
  T pL, pR, FL[D + 2], FR[D + 2];
  KOKKOS_INLINE_FUNCTION FaceFluxes(const T* L, const T* R, const double* n, double gamma) {
    double area2 = 0;
    for (int k = 0; k < D; ++k) area2 += n[k] * n[k];
    area = ppsparse::compat::sqrt(area2);
    for (int k = 0; k < D; ++k) nh[k] = n[k] / area;
    pL = pressure<D>(L, gamma);
    pR = pressure<D>(R, gamma);
    physical_flux<D>(L, pL, n, FL);
    physical_flux<D>(R, pR, n, FR);
  }
};

/// Roe's averages across a face (Blazek 2015, eq. 4.89): the sides' and the averaged
/// velocities and their components along the unit normal, the average's |u|^2, total enthalpy,
/// density and speed of sound.
template <int D, class T>
struct RoeAverages {
  T uL[D], uR[D], u[D];
  T VL = 0, VR = 0, V = 0, q2 = 0;
  T H, rho, a;
  KOKKOS_INLINE_FUNCTION RoeAverages(const T* L, const T* R, const FaceFluxes<D, T>& f, double gamma) {
    const T sL = sqrt_of(L[0]), sR = sqrt_of(R[0]);
    const T wsum = sL + sR;
    for (int k = 0; k < D; ++k) {
      uL[k] = L[1 + k] / L[0];
      uR[k] = R[1 + k] / R[0];
      u[k] = (sL * uL[k] + sR * uR[k]) / wsum;
      q2 += u[k] * u[k];
      V += u[k] * f.nh[k];
      VL += uL[k] * f.nh[k];
      VR += uR[k] * f.nh[k];
    }
    const T HL = (L[D + 1] + f.pL) / L[0], HR = (R[D + 1] + f.pR) / R[0];
    H = (sL * HL + sR * HR) / wsum;
    rho = sL * sR;
    a = sqrt_of((gamma - 1) * (H - 0.5 * q2));
  }
};

/// Roe's flux with Harten's entropy fix on all three wave families (Blazek 2015, eqs. 4.89-4.91).
template <int D, class T>
KOKKOS_INLINE_FUNCTION void roe_flux(const T* L, const T* R, const double* n, const FlowConstants<D>& c, T* F) {
  const FaceFluxes<D, T> face(L, R, n, c.gamma);
  const RoeAverages<D, T> avg(L, R, face, c.gamma);
  const double area = face.area;
  const double* nh = face.nh;
  const T* FL = face.FL;
  const T* FR = face.FR;
  const T* u = avg.u;
  const T *uL = avg.uL, *uR = avg.uR;
  const T &V = avg.V, &VL = avg.VL, &VR = avg.VR, &q2 = avg.q2, &H = avg.H, &rho = avg.rho, &a = avg.a;
  const T drho = R[0] - L[0], dp = face.pR - face.pL, dV = VR - VL;
  const T delta = c.entropy_fix * a;
  auto fixed = [&](const T& lambda) {
    const T m = abs_of(lambda);
    return m < delta ? T((lambda * lambda + delta * delta) / (2.0 * delta)) : m;
  };
  const T l1 = fixed(V - a), l2 = fixed(V), l5 = fixed(V + a);
  const T a2 = a * a;
  const T w1 = l1 * (dp - rho * a * dV) / (2.0 * a2);
  const T w2 = l2 * (drho - dp / a2);
  const T w5 = l5 * (dp + rho * a * dV) / (2.0 * a2);
  T diss[D + 2];
  diss[0] = w1 + w2 + w5;
  T udu = 0;
  for (int k = 0; k < D; ++k) {
    const T du = uR[k] - uL[k];
    udu += u[k] * du;
    diss[1 + k] = w1 * (u[k] - a * nh[k]) + w2 * u[k] + l2 * rho * (du - dV * nh[k]) + w5 * (u[k] + a * nh[k]);
  }
  diss[D + 1] = w1 * (H - a * V) + w2 * (0.5 * q2) + l2 * rho * (udu - V * dV) + w5 * (H + a * V);
  for (int k = 0; k < D + 2; ++k) F[k] = 0.5 * (FL[k] + FR[k]) - (0.5 * area) * diss[k];
}

/// Rusanov's (local Lax-Friedrichs) flux: the central flux less the largest wave speed times
/// the jump.
template <int D, class T>
KOKKOS_INLINE_FUNCTION void rusanov_flux(const T* L, const T* R, const double* n, const FlowConstants<D>& c, T* F) {
  const double gamma = c.gamma;
  const FaceFluxes<D, T> face(L, R, n, gamma);
  const double area = face.area;
  const T &pL = face.pL, &pR = face.pR;
  const T* FL = face.FL;
  const T* FR = face.FR;
  T VL = 0, VR = 0;
  for (int k = 0; k < D; ++k) {
    VL += L[1 + k] * n[k];
    VR += R[1 + k] * n[k];
  }
  VL = VL / (L[0] * area);
  VR = VR / (R[0] * area);
  const T sL = abs_of(VL) + sqrt_of(gamma * pL / L[0]);
  const T sR = abs_of(VR) + sqrt_of(gamma * pR / R[0]);
  const T s = max_of(sL, sR);
  for (int k = 0; k < D + 2; ++k) F[k] = 0.5 * (FL[k] + FR[k]) - (0.5 * area) * s * (R[k] - L[k]);
}

/// The HLLC flux (Toro, Spruce and Speares 1994): the two outer waves at Einfeldt's speeds (the
/// one-sided and the Roe-averaged acoustic speeds' extremes) and the contact wave between them,
/// which the HLL flux smears and which Roe's flux resolves but at the price of its shock
/// instability (Quirk 1994).
template <int D, class T>
KOKKOS_INLINE_FUNCTION void hllc_flux(const T* L, const T* R, const double* n, const FlowConstants<D>& c, T* F) {
  const double gamma = c.gamma;
  const FaceFluxes<D, T> face(L, R, n, gamma);
  const RoeAverages<D, T> avg(L, R, face, gamma);
  const double area = face.area;
  const double* nh = face.nh;
  const T* FL = face.FL;
  const T* FR = face.FR;
  const T &pL = face.pL, &pR = face.pR, &VL = avg.VL, &VR = avg.VR, &V = avg.V, &a = avg.a;
  const T SL = min_of(T(VL - sqrt_of(gamma * pL / L[0])), T(V - a));
  const T SR = max_of(T(VR + sqrt_of(gamma * pR / R[0])), T(V + a));
  if (value(SL) >= 0) {
    for (int k = 0; k < D + 2; ++k) F[k] = FL[k];
    return;
  }
  if (value(SR) <= 0) {
    for (int k = 0; k < D + 2; ++k) F[k] = FR[k];
    return;
  }
  const T mL = L[0] * (SL - VL), mR = R[0] * (SR - VR);
  const T S = (pR - pL + mL * VL - mR * VR) / (mL - mR);  // the contact's speed
  // F = F_K + S_K (U*_K - U_K) on the side K of the contact that the face sees.
  const bool left = value(S) >= 0;
  const T* U = left ? L : R;
  const T* FK = left ? FL : FR;
  const T SK = left ? SL : SR, VK = left ? VL : VR, pK = left ? pL : pR;
  const T f = U[0] * (SK - VK) / (SK - S);
  T star[D + 2];
  star[0] = f;
  for (int k = 0; k < D; ++k) star[1 + k] = f * (U[1 + k] / U[0] + (S - VK) * nh[k]);
  star[D + 1] = f * (U[D + 1] / U[0] + (S - VK) * (S + pK / (U[0] * (SK - VK))));
  for (int k = 0; k < D + 2; ++k) F[k] = FK[k] + area * SK * (star[k] - U[k]);
}

/// The HLLE flux (Einfeldt 1988): the HLL flux between the two outer waves at Einfeldt's speeds
/// (those of HLLC, without its contact). Positive and free of the carbuncle (Quirk 1994), it
/// smears contacts and shear layers as Rusanov's flux does, but its wave speeds are each
/// side's own rather than the largest of both.
template <int D, class T>
KOKKOS_INLINE_FUNCTION void hlle_flux(const T* L, const T* R, const double* n, const FlowConstants<D>& c, T* F) {
  const double gamma = c.gamma;
  const FaceFluxes<D, T> face(L, R, n, gamma);
  const RoeAverages<D, T> avg(L, R, face, gamma);
  const T* FL = face.FL;
  const T* FR = face.FR;
  const T SL = min_of(T(0.0), min_of(T(avg.VL - sqrt_of(gamma * face.pL / L[0])), T(avg.V - avg.a)));
  const T SR = max_of(T(0.0), max_of(T(avg.VR + sqrt_of(gamma * face.pR / R[0])), T(avg.V + avg.a)));
  const T inv = 1.0 / (SR - SL);
  for (int k = 0; k < D + 2; ++k) F[k] = (SR * FL[k] - SL * FR[k] + face.area * SR * SL * (R[k] - L[k])) * inv;
}

/// Liou's AUSM+up flux (Liou 2006): the mass flux from split Mach numbers and the pressure from
/// split pressures at a common speed of sound, each with a dissipation term that acts at low
/// speed (the pressure jump in the mass flux, the velocity jump in the pressure), scaled by
/// f_a for all speeds. It upwinds the convected quantities by the sign of the mass flux alone,
/// which keeps strong shocks free of the carbuncle (Liou 2000).
template <int D, class T>
KOKKOS_INLINE_FUNCTION void ausm_up_flux(const T* L, const T* R, const double* n, const FlowConstants<D>& c, T* F) {
  constexpr double beta = 1.0 / 8, Kp = 0.25, Ku = 0.75, sigma = 1.0;
  const double g = c.gamma;
  double area2 = 0;
  for (int k = 0; k < D; ++k) area2 += n[k] * n[k];
  const double area = ppsparse::compat::sqrt(area2);
  double nh[D];
  for (int k = 0; k < D; ++k) nh[k] = n[k] / area;
  const T pL = pressure<D>(L, g), pR = pressure<D>(R, g);
  T VL = 0, VR = 0;
  for (int k = 0; k < D; ++k) {
    VL += L[1 + k] * nh[k];
    VR += R[1 + k] * nh[k];
  }
  VL = VL / L[0];
  VR = VR / R[0];
  const T HL = (L[D + 1] + pL) / L[0], HR = (R[D + 1] + pR) / R[0];
  // The interface speed of sound from each side's critical one (Liou 2006, eq. 28-30).
  const T sL = 2 * (g - 1) / (g + 1) * HL, sR = 2 * (g - 1) / (g + 1) * HR;
  const T aL = sL / max_of(sqrt_of(sL), VL), aR = sR / max_of(sqrt_of(sR), T(-VR));
  const T a = min_of(aL, aR);
  const T ML = VL / a, MR = VR / a;
  const T M2 = 0.5 * (ML * ML + MR * MR);  // the mean normal Mach number, squared
  const double minf2 = c.mach * c.mach < 1 ? c.mach * c.mach : 1.0;
  const T Mo2 = min_of(T(1.0), max_of(M2, T(minf2)));
  const T Mo = sqrt_of(Mo2);
  const T fa = Mo * (2.0 - Mo);
  const T alpha = (3.0 / 16) * (-4.0 + 5.0 * fa * fa);
  // The fourth-degree split Mach number and fifth-degree split pressure of M (Liou 2006, eq.
  // 18-19), + (sign 1) or - (sign -1).
  auto split = [&](const T& M, double sign, T& mach, T& pressure_factor) {
    if (value(abs_of(M)) >= 1) {
      mach = 0.5 * (M + sign * abs_of(M));
      pressure_factor = mach / M;
      return;
    }
    const T m2p = sign * 0.25 * (M + sign) * (M + sign), m2m = -sign * 0.25 * (M - sign) * (M - sign);
    mach = m2p * (1.0 - sign * 16 * beta * m2m);
    pressure_factor = m2p * ((sign * 2 - M) - sign * 16 * alpha * M * m2m);
  };
  T ML4, PL, MR4, PR;
  split(ML, 1, ML4, PL);
  split(MR, -1, MR4, PR);
  const T rho = 0.5 * (L[0] + R[0]);
  const T one_minus = 1.0 - sigma * M2;
  const T Mp = value(one_minus) > 0 ? T(-(Kp / fa) * one_minus * (pR - pL) / (rho * a * a)) : T(0.0);
  const T M = ML4 + MR4 + Mp;
  const T p = PL * pL + PR * pR - Ku * PL * PR * (L[0] + R[0]) * (fa * a) * (VR - VL);
  const bool left = value(M) > 0;
  const T* U = left ? L : R;
  const T mdot = a * M * U[0];
  F[0] = area * mdot;
  for (int k = 0; k < D; ++k) F[1 + k] = area * (mdot * (U[1 + k] / U[0]) + p * nh[k]);
  F[D + 1] = area * mdot * (left ? HL : HR);
}

template <FluxScheme S, int D, class T>
KOKKOS_INLINE_FUNCTION void numerical_flux(const T* L, const T* R, const double* n, const FlowConstants<D>& c, T* F) {
  if constexpr (S == FluxScheme::roe) {
    roe_flux<D>(L, R, n, c, F);
  } else if constexpr (S == FluxScheme::hllc) {
    hllc_flux<D>(L, R, n, c, F);
  } else if constexpr (S == FluxScheme::ausm_up) {
    ausm_up_flux<D>(L, R, n, c, F);
  } else if constexpr (S == FluxScheme::hlle) {
    hlle_flux<D>(L, R, n, c, F);
  } else {
    rusanov_flux<D>(L, R, n, c, F);
  }
}

/// The flux through a boundary vertex's outward normal n (its part of the boundary faces) for
/// the inner state U.
template <FluxScheme S, int D, class T>
KOKKOS_INLINE_FUNCTION void boundary_flux(BoundaryKind kind, const T* U, const double* n, const FlowConstants<D>& c,
                                          T* F) {
  const double g = c.gamma;
  T ghost[D + 2];
  switch (kind) {
    case BoundaryKind::wall:
    case BoundaryKind::symmetry: {
      const T p = pressure<D>(U, g);
      F[0] = 0;
      for (int k = 0; k < D; ++k) F[1 + k] = p * n[k];
      F[D + 1] = 0;
      return;
    }
    case BoundaryKind::supersonic_outlet:
      physical_flux<D>(U, pressure<D>(U, g), n, F);
      return;
    case BoundaryKind::supersonic_inlet: {
      for (int k = 0; k < D + 2; ++k) ghost[k] = c.free[k];
      physical_flux<D>(ghost, pressure<D>(ghost, g), n, F);
      return;
    }
    case BoundaryKind::farfield:
      for (int k = 0; k < D + 2; ++k) ghost[k] = c.free[k];
      break;
    case BoundaryKind::inlet: {
      // The static pressure from inside; Mach number and temperature from the totals.
      const T p = pressure<D>(U, g);
      T m2 = (2.0 / (g - 1)) * (pow_of(c.inlet_total_pressure / p, (g - 1) / g) - 1.0);
      if (value(m2) < 0) m2 = 0;  // inflow stops where the inner pressure passes the total
      const T t = c.inlet_total_temperature / (1.0 + 0.5 * (g - 1) * m2);
      const T rho = g * p / t;
      const T speed = sqrt_of(m2 * t);
      ghost[0] = rho;
      T kinetic = 0;
      for (int k = 0; k < D; ++k) {
        ghost[1 + k] = rho * speed * c.inlet_direction[k];
        kinetic += ghost[1 + k] * ghost[1 + k];
      }
      ghost[D + 1] = p / (g - 1) + 0.5 * kinetic / rho;
      break;
    }
    case BoundaryKind::outlet: {
      T kinetic = 0;
      for (int k = 0; k <= D; ++k) ghost[k] = U[k];
      for (int k = 0; k < D; ++k) kinetic += U[1 + k] * U[1 + k];
      ghost[D + 1] = c.outlet_pressure / (g - 1) + 0.5 * kinetic / U[0];
      break;
    }
  }
  numerical_flux<S, D>(U, ghost, n, c, F);
}

/// The spectral radius |u . n| + c |n| of the state U across n (local time steps).
template <int D>
KOKKOS_INLINE_FUNCTION double spectral_radius(const double* U, const double* n, double gamma) {
  double un = 0, area2 = 0;
  for (int k = 0; k < D; ++k) {
    un += U[1 + k] * n[k];
    area2 += n[k] * n[k];
  }
  const double p = pressure<D>(U, gamma);
  return ppsparse::compat::fabs(un / U[0]) + ppsparse::compat::sqrt(gamma * p / U[0] * area2);
}

}  // namespace flow

#pragma once
/// @file
/// The launch of the portable sweep functor (sweep_functor.hpp) with a kernel's Body over a
/// colour's rows, compiled where a kernel file (kernels/<id>.cpp) instantiates its run_<id>:
/// once per precision, O accessor and block-size case, for that kernel's Body only. The Sweeper
/// dispatches to the kernels; the kernels launch through this, never back into the Sweeper.
#include <type_traits>

#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/types.hpp>

#include "sweep_functor.hpp"
#include "sweep_stage.hpp"
#include "sweeper.hpp"

namespace ppsparse::mcpi::detail {

namespace launch {

template <class Body, class E, class OS, class DS, class XS, class OA, int NB, bool StageD, bool WideAcc>
void at_nb(const Sweeper<E, OS, DS, XS>& s, const E& exec, const OA& oa, const Geometry& g, impl::Stage stage,
           ordinal_t b, ordinal_t e, bool residual) {
  using Functor = impl::SweepFunctor<Body, E, NB, StageD, OA, DS, XS, WideAcc>;
  Functor f;
  f.v = {s.ia, s.ja, oa, s.D, s.rhs, s.dq, s.dq, s.r_tmp, s.residual_sq};
  f.g = g;
  f.nb_rt = s.nb;
  f.row_begin = b;
  f.row_end = e;
  f.stage = stage;
  f.prefetch = Body::prefetch && g.map == LaneMap::rows;
  f.stage_d = stage != impl::Stage::spmv_only && Functor::can_stage_d(g, s.nb);
  f.residual = residual;
  const bool gpu = compat::is_gpu_space<E>();
  const int league = static_cast<int>((static_cast<long long>(e - b) + g.rows_per_team() - 1) / g.rows_per_team());
  Kokkos::TeamPolicy<E> policy(exec, league, gpu ? g.team_size() : 1, gpu ? g.W : 1);
  policy.set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(g, s.nb, f.prefetch, f.stage_d, residual)));
  Kokkos::parallel_for("ppsparse::mcpi::sweep", policy, f);
}

template <class Body, class E, class OS, class DS, class XS, class OA, bool StageD, bool WideAcc>
void by_nb(const Sweeper<E, OS, DS, XS>& s, const E& exec, const OA& oa, const Geometry& g, impl::Stage stage,
           ordinal_t b, ordinal_t e, bool residual) {
  // Compile-time block sizes for the common small nb (unrolled column loops).
  switch (s.nb) {
    case 1:
      return at_nb<Body, E, OS, DS, XS, OA, 1, StageD, WideAcc>(s, exec, oa, g, stage, b, e, residual);
    case 2:
      return at_nb<Body, E, OS, DS, XS, OA, 2, StageD, WideAcc>(s, exec, oa, g, stage, b, e, residual);
    case 3:
      return at_nb<Body, E, OS, DS, XS, OA, 3, StageD, WideAcc>(s, exec, oa, g, stage, b, e, residual);
    case 4:
      return at_nb<Body, E, OS, DS, XS, OA, 4, StageD, WideAcc>(s, exec, oa, g, stage, b, e, residual);
    case 5:
      return at_nb<Body, E, OS, DS, XS, OA, 5, StageD, WideAcc>(s, exec, oa, g, stage, b, e, residual);
    default:
      return at_nb<Body, E, OS, DS, XS, OA, 0, StageD, WideAcc>(s, exec, oa, g, stage, b, e, residual);
  }
}

}  // namespace launch

/// One launch of the functor with `Body` over rows [b, e) of s's arrays, asynchronously on exec:
/// lanes laid out as g, the pass `stage` (not residual_only), and with `residual` each row's
/// squared residual before its update added to s.residual_sq (a checked sweep).
template <class Body, class E, class OS, class DS, class XS>
void launch_sweep(const Sweeper<E, OS, DS, XS>& s, const E& exec, const Geometry& g, impl::Stage stage, ordinal_t b,
                  ordinal_t e, bool residual = false) {
  s.visit_o(false, [&](const auto& oa) {
    using OA = std::decay_t<decltype(oa)>;
    // The register staging of D is a benchmark setting compiled for the stored-as-is formats only.
    constexpr bool plain = std::is_same_v<OA, impl::PlainO<typename E::memory_space, OS>>;
    if (plain && s.stage_diagonal)
      launch::by_nb<Body, E, OS, DS, XS, OA, plain, false>(s, exec, oa, g, stage, b, e, residual);
    else
      launch::by_nb<Body, E, OS, DS, XS, OA, false, false>(s, exec, oa, g, stage, b, e, residual);
  });
}

/// The true residual's pass over rows [b, e): their squared residuals of the current dQ, in FP64
/// sums and products, into s.residual_sq; dQ unchanged. `full_o`: O read from its FP32 copy (a
/// coded format's keep_fp32) instead of its stored format.
template <class Body, class E, class OS, class DS, class XS>
void launch_residual_pass(const Sweeper<E, OS, DS, XS>& s, const E& exec, const Geometry& g, ordinal_t b, ordinal_t e,
                          bool full_o) {
  s.visit_o(full_o, [&](const auto& oa) {
    using OA = std::decay_t<decltype(oa)>;
    launch::by_nb<Body, E, OS, DS, XS, OA, false, true>(s, exec, oa, g, impl::Stage::residual_only, b, e, true);
  });
}

}  // namespace ppsparse::mcpi::detail

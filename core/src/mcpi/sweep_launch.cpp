// The launches of the portable MCPI functor (sweep_functor.hpp), compiled here once per
// precision, O accessor and block-size case: the building block of the portable kernels
// (kernels/<id>.cpp) and of the true residual.
#include "sweep_launch.hpp"

#include <type_traits>

#include "precisions.hpp"
#include "sweep_functor.hpp"

namespace ppsparse::mcpi::detail {

namespace {

template <class E, class OS, class DS, class XS, class OA, class DV, int NB, bool StageD, bool WideAcc>
void launch_nb(const Sweeper<E, OS, DS, XS>& s, const E& exec, const OA& oa, const DV& d, const Geometry& g,
               impl::Stage stage, bool prefetch, ordinal_t b, ordinal_t e, bool residual) {
  using Functor = impl::SweepFunctor<E, NB, StageD, OA, typename DV::non_const_value_type, XS, WideAcc>;
  Functor f;
  f.v = {s.ia, s.ja, oa, d, s.rhs, s.dq, s.dq, s.r_tmp, s.residual_sq};
  f.g = g;
  f.nb_rt = s.nb;
  f.row_begin = b;
  f.row_end = e;
  f.stage = stage;
  f.prefetch = prefetch;
  f.stage_d = stage != impl::Stage::spmv_only && Functor::can_stage_d(g, s.nb);
  f.residual = residual;
  const bool gpu = compat::is_gpu_space<E>();
  const int league = static_cast<int>((static_cast<long long>(e - b) + g.rows_per_team() - 1) / g.rows_per_team());
  Kokkos::TeamPolicy<E> policy(exec, league, gpu ? g.team_size() : 1, gpu ? g.W : 1);
  policy.set_scratch_size(0, Kokkos::PerTeam(Functor::scratch_bytes(g, s.nb, prefetch, f.stage_d, residual)));
  Kokkos::parallel_for("ppsparse::mcpi::sweep", policy, f);
}

template <class E, class OS, class DS, class XS, class OA, bool StageD, bool WideAcc, class DV>
void launch_dispatch(const Sweeper<E, OS, DS, XS>& s, const E& exec, const OA& oa, const DV& d, const Geometry& g,
                     impl::Stage stage, bool prefetch, ordinal_t b, ordinal_t e, bool residual) {
  // Compile-time block sizes for the common small nb (unrolled column loops).
  switch (s.nb) {
    case 1:
      return launch_nb<E, OS, DS, XS, OA, DV, 1, StageD, WideAcc>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
    case 2:
      return launch_nb<E, OS, DS, XS, OA, DV, 2, StageD, WideAcc>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
    case 3:
      return launch_nb<E, OS, DS, XS, OA, DV, 3, StageD, WideAcc>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
    case 4:
      return launch_nb<E, OS, DS, XS, OA, DV, 4, StageD, WideAcc>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
    case 5:
      return launch_nb<E, OS, DS, XS, OA, DV, 5, StageD, WideAcc>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
    default:
      return launch_nb<E, OS, DS, XS, OA, DV, 0, StageD, WideAcc>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
  }
}

}  // namespace

template <class E, class OS, class DS, class XS>
void launch_sweep_functor(const Sweeper<E, OS, DS, XS>& s, const E& exec, const Geometry& g, impl::Stage stage,
                          bool prefetch, ordinal_t b, ordinal_t e, bool residual, bool full_o) {
  using M = typename E::memory_space;
  s.visit_o(full_o, [&](const auto& oa) {
    using OA = std::decay_t<decltype(oa)>;
    // The register staging of D is a benchmark setting compiled for the stored-as-is formats only.
    constexpr bool plain = std::is_same_v<OA, impl::PlainO<M, OS>>;
    const Kokkos::View<const DS*, M> d = s.D;
    if (stage == impl::Stage::residual_only) {  // FP64 sums and D's FP64 factors: the true residual
      launch_dispatch<E, OS, DS, XS, OA, false, true>(s, exec, oa, d, g, stage, prefetch, b, e, true);
      return;
    }
    if constexpr (Sweeper<E, OS, DS, XS>::default_precision) {
      if (s.d_lu32.extent(0) > 0) {  // OStorage::lu_fp32: the sweeps read the FP32 factors
        const Kokkos::View<const float*, M> d32 = s.d_lu32;
        launch_dispatch<E, OS, DS, XS, OA, false, false>(s, exec, oa, d32, g, stage, prefetch, b, e, residual);
        return;
      }
    }
    if (plain && s.stage_diagonal)
      launch_dispatch<E, OS, DS, XS, OA, plain, false>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
    else
      launch_dispatch<E, OS, DS, XS, OA, false, false>(s, exec, oa, d, g, stage, prefetch, b, e, residual);
  });
}

#define PPSPARSE_MCPI_INSTANTIATE_LAUNCH(unused, OS, DS, XS)                                                \
  template void launch_sweep_functor(const Sweeper<DefaultExecSpace, OS, DS, XS>&, const DefaultExecSpace&, \
                                     const Geometry&, impl::Stage, bool, ordinal_t, ordinal_t, bool, bool);
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_LAUNCH, _)
#undef PPSPARSE_MCPI_INSTANTIATE_LAUNCH

}  // namespace ppsparse::mcpi::detail

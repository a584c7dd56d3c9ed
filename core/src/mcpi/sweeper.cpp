// The MCPI sweeper: variant resolution, the dispatch table of kernels.def, and the launches of
// the portable functor (compiled here once per precision and block-size case).
#include "sweeper.hpp"

#include <ppsparse/error.hpp>

#include "sweep_functor.hpp"

namespace ppsparse::mcpi::detail {

namespace {

// kernels.def's dispatch table of portable kernels: run_<id> for each kernel.
template <class E, class OS, class DS, class XS>
void run_portable(const Sweeper<E, OS, DS, XS>& s, const E& exec, Kernel kernel, ordinal_t b, ordinal_t e,
                  bool residual) {
  using Run = void (*)(const Sweeper<E, OS, DS, XS>&, const E&, ordinal_t, ordinal_t, bool);
  static constexpr Run kRun[] = {
#define PPSPARSE_MCPI_KERNEL(id, layout, summary) &run_##id<E, OS, DS, XS>,
#include <ppsparse/mcpi/kernels.def>
#undef PPSPARSE_MCPI_KERNEL
  };
  const auto i = static_cast<std::size_t>(kernel);
  if (i >= sizeof(kRun) / sizeof(kRun[0])) throw InvalidArgument("mcpi: not a kernel of kernels.def");
  kRun[i](s, exec, b, e, residual);
}

}  // namespace

template <class E, class OS, class DS, class XS>
ResolvedSweep Sweeper<E, OS, DS, XS>::resolve(const E& exec, const Variant& v, bool backend_kernels,
                                              const KernelTuning& tuning) const {
  ResolvedSweep r;
  r.variant = resolve_variant(v, nb);
  r.tuning = tuning;
  if constexpr (default_precision)
    r.specialised = backend_kernels && backend::has_kernel(exec, r.variant.kernel, nb, o_format);
  r.residual_in_kernel = r.specialised && backend::has_residual_kernel(exec, r.variant.kernel, nb, o_format);
  r.may_overlap = r.specialised || r.variant.kernel != Kernel::split;
  r.name = r.specialised ? backend::features(exec).name + " " + name(r.variant)
                         : std::string("portable ") + name(r.variant.kernel);
  return r;
}

template <class E, class OS, class DS, class XS>
void Sweeper<E, OS, DS, XS>::run(const E& exec, const ResolvedSweep& r, ordinal_t b, ordinal_t e) const {
  if constexpr (default_precision) {
    if (r.specialised) {
      backend::run(exec, r.variant, color_args(b, e, false), r.tuning);
      return;
    }
  }
  run_portable(*this, exec, r.variant.kernel, b, e, false);
}

template <class E, class OS, class DS, class XS>
void Sweeper<E, OS, DS, XS>::run_checked(const E& exec, const ResolvedSweep& r, ordinal_t b, ordinal_t e) const {
  if constexpr (default_precision) {
    if (r.residual_in_kernel) {
      backend::run(exec, r.variant, color_args(b, e, true), KernelTuning{});
      return;
    }
  }
  run_portable(*this, exec, r.variant.kernel, b, e, true);
}

template <class E, class OS, class DS, class XS>
backend::ColorArgs Sweeper<E, OS, DS, XS>::color_args(ordinal_t b, ordinal_t e, bool checked) const {
  backend::ColorArgs a;
  if constexpr (default_precision) {
    a.nb = nb;
    a.row_begin = b;
    a.row_end = e;
    a.ia = ia.data();
    a.ja = ja.data();
    a.O = O.data();
    a.o_format = o_format;
    a.O16 = O16.data();
    a.O8 = O8.data();
    a.o_scale = o_scale.data();
    a.D = D.data();
    a.R = rhs.data();
    a.dq = dq.data();
    if (checked) {
      a.residual_sq = residual_sq.data();
      a.residual_slots = static_cast<int>(residual_sq.extent(0));
    }
  }
  return a;
}

namespace {

template <class E, class OS, class DS, class XS, class OA, int NB, bool StageD, bool WideAcc>
void launch_nb(const Sweeper<E, OS, DS, XS>& s, const E& exec, const OA& oa, const Geometry& g, impl::Stage stage,
               bool prefetch, ordinal_t b, ordinal_t e, bool residual) {
  using Functor = impl::SweepFunctor<E, NB, StageD, OA, DS, XS, WideAcc>;
  Functor f;
  f.v = {s.ia, s.ja, oa, s.D, s.rhs, s.dq, s.dq, s.r_tmp, s.residual_sq};
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

}  // namespace

template <class E, class OS, class DS, class XS, class OA, bool StageD, bool WideAcc>
void launch_dispatch(const Sweeper<E, OS, DS, XS>& s, const E& exec, const OA& oa, const Geometry& g, impl::Stage stage,
                     bool prefetch, ordinal_t b, ordinal_t e, bool residual) {
  // Compile-time block sizes for the common small nb (unrolled column loops).
  switch (s.nb) {
    case 1:
      return launch_nb<E, OS, DS, XS, OA, 1, StageD, WideAcc>(s, exec, oa, g, stage, prefetch, b, e, residual);
    case 2:
      return launch_nb<E, OS, DS, XS, OA, 2, StageD, WideAcc>(s, exec, oa, g, stage, prefetch, b, e, residual);
    case 3:
      return launch_nb<E, OS, DS, XS, OA, 3, StageD, WideAcc>(s, exec, oa, g, stage, prefetch, b, e, residual);
    case 4:
      return launch_nb<E, OS, DS, XS, OA, 4, StageD, WideAcc>(s, exec, oa, g, stage, prefetch, b, e, residual);
    case 5:
      return launch_nb<E, OS, DS, XS, OA, 5, StageD, WideAcc>(s, exec, oa, g, stage, prefetch, b, e, residual);
    default:
      return launch_nb<E, OS, DS, XS, OA, 0, StageD, WideAcc>(s, exec, oa, g, stage, prefetch, b, e, residual);
  }
}

template <class E, class OS, class DS, class XS>
void Sweeper<E, OS, DS, XS>::launch(const E& exec, const Geometry& g, impl::Stage stage, bool prefetch, ordinal_t b,
                                    ordinal_t e, bool residual) const {
  visit_o(false, [&](const auto& oa) {
    using OA = std::decay_t<decltype(oa)>;
    // The register staging of D is a benchmark setting compiled for the stored-as-is formats only.
    constexpr bool plain = std::is_same_v<OA, impl::PlainO<memory_space, OS>>;
    if (stage == impl::Stage::residual_only)  // FP64 sums: the true residual
      launch_dispatch<E, OS, DS, XS, OA, false, true>(*this, exec, oa, g, stage, prefetch, b, e, true);
    else if (plain && stage_diagonal)
      launch_dispatch<E, OS, DS, XS, OA, plain, false>(*this, exec, oa, g, stage, prefetch, b, e, residual);
    else
      launch_dispatch<E, OS, DS, XS, OA, false, false>(*this, exec, oa, g, stage, prefetch, b, e, residual);
  });
}

template <class E, class OS, class DS, class XS>
void Sweeper<E, OS, DS, XS>::residual_only(const E& exec, ordinal_t b, ordinal_t e, bool full) const {
  const Geometry g = geometry(Kernel::rows_per_warp);
  visit_o(full, [&](const auto& oa) {
    launch_dispatch<E, OS, DS, XS, std::decay_t<decltype(oa)>, false, true>(
        *this, exec, oa, g, impl::Stage::residual_only, false, b, e, true);
  });
}

#define PPSPARSE_MCPI_INSTANTIATE_SWEEPER(unused, OS, DS, XS) template struct Sweeper<DefaultExecSpace, OS, DS, XS>;
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_SWEEPER, _)
#undef PPSPARSE_MCPI_INSTANTIATE_SWEEPER

}  // namespace ppsparse::mcpi::detail

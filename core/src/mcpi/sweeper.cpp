// The MCPI sweeper: variant resolution and the dispatch to the backend's kernels or to the
// table of portable kernels that kernels.def generates (compiled here once per precision).
#include "sweeper.hpp"

#include <ppsparse/error.hpp>

#include "sweep_launch.hpp"

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
    a.o_coded = o_coded.data();
    a.o_scale = o_scale.data();
    a.D = D.data();
    a.d_lu32 = d_lu32.extent(0) > 0 ? d_lu32.data() : nullptr;
    a.R = rhs.data();
    a.dq = dq.data();
    if (checked) {
      a.residual_sq = residual_sq.data();
      a.residual_slots = static_cast<int>(residual_sq.extent(0));
    }
  }
  return a;
}

template <class E, class OS, class DS, class XS>
void Sweeper<E, OS, DS, XS>::residual_only(const E& exec, ordinal_t b, ordinal_t e, bool full) const {
  launch_sweep_functor(*this, exec, geometry(Kernel::rows_per_warp), impl::Stage::residual_only, false, b, e, true,
                       full);
}

#define PPSPARSE_MCPI_INSTANTIATE_SWEEPER(unused, OS, DS, XS) template struct Sweeper<DefaultExecSpace, OS, DS, XS>;
PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_SWEEPER, _)
#undef PPSPARSE_MCPI_INSTANTIATE_SWEEPER

}  // namespace ppsparse::mcpi::detail

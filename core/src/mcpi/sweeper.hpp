#pragma once
/// @file
/// The MCPI family's sweeper: the arrays a sweep reads and writes, and the dispatch of a
/// colour's rows to the backend's kernel or to the table of portable kernels that
/// mcpi/kernels.def generates (each kernel's run_<id> lives in its own file under kernels/ and
/// launches the portable functor through sweep_launch.hpp). The colour loop resolves a variant
/// once into a ResolvedSweep and hands it to every sweep.
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/backend.hpp>
#include <ppsparse/mcpi/geometry.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mcpi/tuning.hpp>
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/types.hpp>

#include "o_access.hpp"
#include "precisions.hpp"
#include "sweep_stage.hpp"

namespace ppsparse::mcpi::detail {

/// What a variant runs on this solver: resolved once (auto, the backend's kernel or the
/// portable fallback) and used by every sweep of an apply or a benchmark run.
struct ResolvedSweep {
  Variant variant = Kernel::rows_per_warp;  ///< auto resolved for the solver's nb
  bool specialised = false;                 ///< the backend's kernel runs (else the portable one)
  bool residual_in_kernel = false;          ///< the backend's kernel also forms a check's residual
  /// A colour's interior rows may run on a second instance beside its boundary rows (the
  /// split kernel's temporary holds one range of rows at a time).
  bool may_overlap = true;
  KernelTuning tuning = {};
  std::string name;  ///< "cuda rows_per_warp_l2", "portable rows_per_warp", ...
};

/// The arrays of one solver as the kernels see them, and the launches over a colour's rows.
template <class ExecSpace, class OScalar, class DScalar, class XScalar>
struct Sweeper {
  using memory_space = typename ExecSpace::memory_space;
  /// FUN3D's precisions (FP32 O and dQ, FP64 D), the only ones the backends' kernels take.
  static constexpr bool default_precision =
      std::is_same_v<OScalar, float> && std::is_same_v<DScalar, double> && std::is_same_v<XScalar, float>;

  int nb = 0;
  Kokkos::View<offset_t*, memory_space> ia;  ///< colour-ordered block CSR of O
  Kokkos::View<ordinal_t*, memory_space> ja;
  /// O as stored for the sweeps (mcpi/o_formats.def): `O` itself for the plain fp32; for a
  /// coded format its codec's entries in `o_coded` (padded by 16 bytes: the CUDA kernels read a
  /// column as the aligned words covering it) with the scale exponents `o_scale` where the codec
  /// has scales, and `O` only as the FP32 copy or the staging of an assembly in place (else
  /// empty).
  OFormat o_format = OFormat::fp32;
  Kokkos::View<OScalar*, memory_space> O;
  Kokkos::View<unsigned char*, memory_space> o_coded;
  Kokkos::View<std::int8_t*, memory_space> o_scale;
  Kokkos::View<DScalar*, memory_space> D;  ///< LU factors
  /// D's LU factors rounded to FP32 (OStorage::lu_fp32), which the sweeps then read instead of
  /// D; empty otherwise. The true residuals and the operator read D.
  Kokkos::View<float*, memory_space> d_lu32;
  Kokkos::View<double*, memory_space> rhs;    ///< what the sweeps read as R
  Kokkos::View<XScalar*, memory_space> dq;    ///< owned rows, then ghosts
  Kokkos::View<double*, memory_space> r_tmp;  ///< the split kernel's r of one colour
  /// A checked sweep's squared residual, in slots over which teams spread their additions.
  Kokkos::View<double*, memory_space> residual_sq;
  bool stage_diagonal = false;  ///< stage D through registers (a benchmark setting)

  /// Calls f(accessor) with O's accessor (o_access.hpp): the stored format's (the plain view
  /// `O` for fp32), or with `full` the plain view `O` (a coded format's FP32 copy).
  template <class F>
  void visit_o(bool full, F&& f) const {
    if constexpr (default_precision) {
      bool coded_format = false;
      if (!full)
        detail::with_codec(o_format, [&](auto codec) {
          using Codec = decltype(codec);
          if constexpr (!Codec::plain) {
            f(coded<Codec>());
            coded_format = true;
          }
        });
      if (coded_format) return;
    }
    f(impl::PlainO<memory_space, OScalar>{O});
  }

  /// O's accessor for a coded format: o_coded read as the codec's stored type.
  template <class Codec>
  impl::CodedO<memory_space, Codec> coded() const {
    using Stored = typename Codec::stored;
    return {impl::RandomAccessView<memory_space, Stored>(reinterpret_cast<const Stored*>(o_coded.data()),
                                                         o_coded.extent(0) / sizeof(Stored)),
            o_scale, nb};
  }

  /// Vector-group width the kernels are laid out for (logical 32 on CPUs).
  static int group_width() { return compat::is_gpu_space<ExecSpace>() ? compat::vector_width_for<ExecSpace>() : 32; }
  Geometry geometry(Kernel k) const { return make_geometry(k, nb, group_width()); }

  /// v resolved for this solver: its kernel and where it runs.
  ResolvedSweep resolve(const ExecSpace& exec, const Variant& v, bool backend_kernels,
                        const KernelTuning& tuning) const;

  /// Rows [b, e) of one colour by the resolved kernel, asynchronously on exec.
  void run(const ExecSpace& exec, const ResolvedSweep& r, ordinal_t b, ordinal_t e) const;
  /// The same, also adding the rows' squared residuals before their update to residual_sq.
  void run_checked(const ExecSpace& exec, const ResolvedSweep& r, ordinal_t b, ordinal_t e) const;
  /// The rows' squared residuals of the current dQ into residual_sq in FP64; dQ unchanged.
  /// `full`: with the FP32 copy of O (a reduced format's keep_fp32).
  void residual_only(const ExecSpace& exec, ordinal_t b, ordinal_t e, bool full = false) const;

 private:
  backend::ColorArgs color_args(ordinal_t b, ordinal_t e, bool checked) const;
};

/// Each kernel's portable form over the colour rows [b, e), one per line of kernels.def,
/// defined in kernels/<id>.cpp. With `residual`, it also adds each row's squared residual
/// before its update to s.residual_sq (a checked sweep).
#define PPSPARSE_MCPI_KERNEL(id, layout, summary)                                                           \
  template <class ExecSpace, class OScalar, class DScalar, class XScalar>                                   \
  void run_##id(const Sweeper<ExecSpace, OScalar, DScalar, XScalar>& s, const ExecSpace& exec, ordinal_t b, \
                ordinal_t e, bool residual);
#include <ppsparse/mcpi/kernels.def>
#undef PPSPARSE_MCPI_KERNEL

/// Compiles kernel `id`'s run function for every precision on the default execution space
/// (the last line of a kernel file).
#define PPSPARSE_MCPI_INSTANTIATE_KERNEL_AT(id, OS, DS, XS)                                          \
  template void run_##id<DefaultExecSpace, OS, DS, XS>(const Sweeper<DefaultExecSpace, OS, DS, XS>&, \
                                                       const DefaultExecSpace&, ordinal_t, ordinal_t, bool);
#define PPSPARSE_MCPI_INSTANTIATE_KERNEL(id) PPSPARSE_MCPI_FOR_EACH_PRECISION(PPSPARSE_MCPI_INSTANTIATE_KERNEL_AT, id)

}  // namespace ppsparse::mcpi::detail

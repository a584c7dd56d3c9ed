#include <ppsparse/mpk/cost_model.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>

#include <ppsparse/error.hpp>

namespace ppsparse::mpk {

template <class ExecSpace>
MpkDeviceModel default_device_model() {
  if (compat::is_gpu_space<ExecSpace>()) return MpkDeviceModel{3000.0, 2.5, 4.0, 1.5, 0.5};
  return MpkDeviceModel{20.0, 2.5, 1.0, 1.0, 0.05};
}
template MpkDeviceModel default_device_model<DefaultExecSpace>();

double MpkEstimate::seconds(MpkVariant v) const {
  if (v == MpkVariant::automatic) return seconds(best);
  // One estimate per line of variants.def, in a field named after the variant.
  static constexpr double MpkEstimate::*kSeconds[] = {
#define PPSPARSE_MPK_VARIANT(id, summary) &MpkEstimate::id,
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
  };
  const auto i = static_cast<std::size_t>(v);
  return i < std::size(kSeconds) ? this->*kSeconds[i] : 0.0;
}

MpkEstimate estimate_mpk(const MpkShape& s, const MpkDeviceModel& m) {
  if (!(m.memory_gbs > 0) || !(m.cache_speedup > 0))
    throw InvalidArgument("mpk cost model: memory_gbs and cache_speedup must be positive");
  if (!(m.launch_us >= 0) || !(m.graph_launch_us >= 0) || !(m.tile_sync_us >= 0))
    throw InvalidArgument("mpk cost model: launch, graph and tile costs must be nonnegative");
  if (s.powers < 1 || !(s.spmv_bytes >= 0) || !(s.vector_bytes >= 0) || s.launches < 0 || s.tiles < 0 ||
      !(s.cache_bytes >= 0))
    throw InvalidArgument("mpk cost model: the shape needs powers >= 1 and nonnegative sizes");
  if (s.pipelined_passes < 1 || s.pipelined_passes > s.powers)
    throw InvalidArgument("mpk cost model: pipelined_passes must be in [1, powers] (got " +
                          std::to_string(s.pipelined_passes) + " for " + std::to_string(s.powers) + " powers)");
  const int p = s.powers;
  const double t_mem = s.spmv_bytes / (m.memory_gbs * 1e9);
  const double t_cache = t_mem / m.cache_speedup;
  const double t_blocked_data = t_mem + (p - 1) * t_cache;
  MpkEstimate e;
  // The whole problem in cache: the matrix once plus all p+1 vectors.
  e.fits_in_cache = s.spmv_bytes + (p - 1) * s.vector_bytes <= s.cache_bytes;
  const double launch = m.launch_us * 1e-6;
  e.back_to_back = (e.fits_in_cache ? t_blocked_data : p * t_mem) + p * launch;
  e.blocked = t_blocked_data + s.launches * launch;
  e.graph = s.graph_native ? t_blocked_data + launch + s.launches * m.graph_launch_us * 1e-6 : e.blocked;
  e.persistent = t_blocked_data + launch + static_cast<double>(s.tiles) * m.tile_sync_us * 1e-6;
  const int passes = s.pipelined_passes;
  e.pipelined = s.pipelined_native ? passes * (t_mem + launch) +
                                         (p - passes) * 2.0 * s.vector_bytes / (m.cache_speedup * m.memory_gbs * 1e9) +
                                         static_cast<double>(s.tiles) * m.tile_sync_us * 1e-6
                                   : e.persistent;
  e.best_blocked = MpkVariant::blocked;
  for (MpkVariant v : {MpkVariant::graph, MpkVariant::persistent, MpkVariant::pipelined})
    if (e.seconds(v) < e.seconds(e.best_blocked)) e.best_blocked = v;
  e.best = e.seconds(e.best_blocked) < e.back_to_back ? e.best_blocked : MpkVariant::back_to_back;
  e.worth_timing = e.seconds(e.best_blocked) <= kAutomaticTimingMargin * e.back_to_back;
  char line[360];
  std::snprintf(line, sizeof line,
                "model (us): back_to_back %.1f, blocked %.1f, graph %.1f, persistent %.1f, pipelined %.1f%s -> %s%s",
                e.back_to_back * 1e6, e.blocked * 1e6, e.graph * 1e6, e.persistent * 1e6, e.pipelined * 1e6,
                e.fits_in_cache ? " (fits in cache)" : "", to_string(e.best),
                e.worth_timing ? "" : " (not worth timing)");
  e.reason = line;
  return e;
}

}  // namespace ppsparse::mpk

#pragma once
/// @file
/// The cost model behind MpkVariant::automatic: which of back-to-back, blocked, graph,
/// persistent and pipelined to run for a matrix on a device.
///
/// W = bytes one SpMV streams (matrix + x read + y written). Let t_mem = W / B_mem and
/// t_cache = W / (cache_speedup B_mem).
///  * fits: if the matrix and all p+1 vectors fit the cache budget, every variant reads memory
///    only at the first power: t_data = t_mem + (p-1) t_cache for all of them;
///  * otherwise back_to_back streams the matrix p times (t_data = p t_mem), while the blocked
///    variants read each group from memory at its first power and from cache at the other
///    p-1 (t_data = t_mem + (p-1) t_cache: Panzlaff 2024, eq. 4.8).
/// Overheads (Panzlaff 2024, sec. 4.4.2.3: p x N_groups launches were what lost on A100 and GH200):
///  * back_to_back  p launches:            t = t_data + p launch
///  * blocked       one per schedule launch: t = t_data + launches launch
///  * graph         one graph launch, then a smaller cost per captured launch:
///                                         t = t_data + launch + launches graph_launch
///                  (without Kokkos graphs: as blocked)
///  * persistent    one launch, then a wait/handoff per tile:
///                                         t = t_data + launch + tiles tile_sync
///  * pipelined     as persistent, but the matrix comes from memory once and only the
///                  vectors from cache after it (where it runs itself, else = persistent):
///                                         t = passes (t_mem + launch)
///                                             + (p-passes) 2 vector / (cache_speedup B_mem)
///                                             + tiles tile_sync
///                  (passes: its launches, each reading the matrix once)
/// The variant with the least t wins; ties go to the earlier in this list (back_to_back first).
/// The model only ranks; MatrixPowerKernel times its two best blocked variants against
/// back_to_back before trusting it (MpkOptions::verify_automatic), also where back_to_back
/// wins the model by less than kAutomaticTimingMargin: its estimates can be off by a third.
#include <string>

#include <ppsparse/mpk/variant.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mpk {

/// The device figures the cost model uses.
struct MpkDeviceModel {
  double memory_gbs = 0;       ///< streaming bandwidth from memory (GB/s)
  double cache_speedup = 0;    ///< last-level-cache bandwidth / memory bandwidth
  double launch_us = 0;        ///< one kernel launch, with its ramp-up and tail
  double graph_launch_us = 0;  ///< one kernel inside an already captured graph
  double tile_sync_us = 0;     ///< persistent kernel: handoff of one tile between teams
};

/// Defaults: GPUs 3000 GB/s, cache 2.5x (Panzlaff 2024, table 4.2: GH200 9715 vs 3883 GB/s,
/// A100 3x), launch 4 us, graph 1.5 us, tile sync 0.5 us; CPUs 20 GB/s, 2.5x, 1 us, 1 us,
/// 0.05 us. Instantiated for DefaultExecSpace.
template <class ExecSpace>
MpkDeviceModel default_device_model();

/// What the model needs to know about one matrix and schedule.
struct MpkShape {
  double spmv_bytes = 0;    ///< W above
  double vector_bytes = 0;  ///< one vector of n entries
  int powers = 1;
  int launches = 0;               ///< launches of the blocked schedule
  long long tiles = 0;            ///< groups x powers
  double cache_bytes = 0;         ///< the cache budget
  bool graph_native = false;      ///< Kokkos graphs available (else graph = blocked)
  bool pipelined_native = false;  ///< the pipelined kernel runs itself (else pipelined = persistent)
  int pipelined_passes = 1;       ///< its launches
};

/// A blocked variant estimated within this factor of back_to_back is worth timing: the model
/// has been measured wrong by 1.3x (docs/perf/kernel_choices.md, "MPK timing margin").
inline constexpr double kAutomaticTimingMargin = 1.5;

/// The cost model's estimate of each variant's time and its choice.
struct MpkEstimate {
  double back_to_back = 0, blocked = 0, graph = 0, persistent = 0, pipelined = 0;  ///< seconds
  MpkVariant best = MpkVariant::back_to_back;
  MpkVariant best_blocked = MpkVariant::blocked;  ///< the least t of blocked, graph, persistent, pipelined
  bool worth_timing = false;                      ///< best_blocked within kAutomaticTimingMargin of back_to_back (so
                                                  // always where it is the best)
  bool fits_in_cache = false;
  std::string reason;  ///< one line: the estimates and the choice
  double seconds(MpkVariant v) const;
};

/// InvalidArgument if a model bandwidth or speedup is not positive, a cost is negative, or
/// the shape has negative sizes or powers < 1.
MpkEstimate estimate_mpk(const MpkShape& shape, const MpkDeviceModel& model);

}  // namespace ppsparse::mpk

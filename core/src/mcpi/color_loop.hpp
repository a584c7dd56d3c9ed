#pragma once
/// @file
/// The second layer of the MCPI solver: sweeps over the colours of one LevelArrays
/// (level_arrays.hpp). Each colour's rows run through the Sweeper's resolved kernel; with a
/// halo (a distributed solver) a colour's boundary rows run first, their dQ travels while the
/// interior rows run, and the ghosts are written before the next colour; runs of sweeps are
/// recorded as device graphs and replayed. Residual checks, true residuals and the agreement of
/// errors and sums over ranks live here too. The stopping rules are the apply loop's
/// (apply_loop.hpp).
#include <memory>
#include <string>
#include <vector>

#include <ppsparse/backend/device_graph.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/control.hpp>
#include <ppsparse/mcpi/halo.hpp>

#include "level_arrays.hpp"

namespace ppsparse::mcpi::detail {

template <class ExecSpace, class OScalar, class DScalar, class XScalar>
class ColorLoop {
 public:
  using Arrays = LevelArrays<ExecSpace, OScalar, DScalar, XScalar>;
  using HaloType = Halo<ExecSpace, XScalar>;

  /// Sweeps over `arrays` (which must outlive the loop); `halo` null on one rank. logic_error
  /// when the halo's colours are not the arrays'.
  ColorLoop(Arrays& arrays, std::shared_ptr<HaloType> halo);

  HaloType* halo() const { return halo_.get(); }

  /// v resolved on this system, cached for the last (variant, backend_kernels, tuning) asked.
  const ResolvedSweep& resolved(const ExecSpace& exec, const Variant& v, bool backend_kernels,
                                const KernelTuning& tuning);

  /// One sweep over all colours (asynchronous on exec).
  void sweep(const ExecSpace& exec, const ResolvedSweep& rs);
  /// `count` sweeps (asynchronous on exec): with `graph`, one replay of their recorded graph,
  /// recorded first where none matches (the same count, kernel and arrays); else, or where no
  /// graph can be recorded, the colours one by one. Returns whether a graph ran.
  bool run_sweeps(const ExecSpace& exec, const ResolvedSweep& rs, int count, bool graph);
  /// One sweep that also forms the residual: each colour's ||R_c - A_c dQ||^2 just before its
  /// update, summed over colours (and ranks). Returns its square root; synchronises.
  double checked_sweep(const ExecSpace& exec, const ResolvedSweep& rs);
  /// The true ||rhs - A dQ||_2 of the current dQ in FP64 (dQ unchanged), on exec; synchronises.
  double true_residual(const ExecSpace& exec) const;
  /// Every ghost of dQ from its owner (a given initial guess); nothing on one rank.
  void exchange_all(const ExecSpace& exec);

  GraphStats graph_stats() const { return graph_stats_; }
  /// Why sweeps of rs could not be recorded on exec (empty if they can): the backend, the
  /// kernels, a stream setting, host exchanges, or an earlier failed recording. The multigrid
  /// records its whole cycle under the same conditions on every level.
  std::string graph_obstacle(const ExecSpace& exec, const ResolvedSweep& rs) const;
  /// The addresses a recorded sweep reads and writes (a graph recorded on others is stale).
  std::vector<const void*> sweep_arrays() const;

  /// The sum of `local` over ranks.
  double global_sum(double local) const { return halo_ ? halo_->sum(local) : local; }

  /// Runs `local` (which may throw ppsparse errors); on a distributed solver every rank then
  /// throws the first failing rank's error, so that no rank is left waiting in a collective.
  template <class F>
  void collectively(F&& local) const {
    if (!halo_) {
      local();
      return;
    }
    std::string message;
    const ErrorKind agreed = halo_->agree(capture_error(local, message), message);
    if (agreed != ErrorKind::none) throw_error(agreed, message);
  }

 private:
  /// A recorded graph of `count` sweeps of a variant on the arrays it was recorded on.
  struct RecordedSweeps {
    ppsparse::backend::DeviceGraph graph;
    int count = 0;
    Variant variant;
    KernelTuning tuning;
    std::vector<const void*> arrays;
    HaloStats exchanges;  ///< what one replay exchanges
  };

  const RecordedSweeps* recorded_sweeps(const ExecSpace& exec, const ResolvedSweep& rs, int count);
  double read_residual(const ExecSpace& exec) const;
  template <class Rows>
  void for_each_color(const ExecSpace& exec, bool overlap, Rows&& rows);

  Arrays& a_;
  std::shared_ptr<HaloType> halo_;                 ///< distributed: the exchanges; null on one rank
  static constexpr size_t kMaxRecordedSweeps = 4;  // runs of sweeps of a few lengths
  std::vector<RecordedSweeps> recorded_;
  GraphStats graph_stats_;
  std::string graph_failure_;  ///< set when a recording failed: no graphs after it
  // The last variant asked, and what it resolved to.
  ResolvedSweep resolved_;
  Variant asked_variant_;
  bool asked_backend_ = true;
  KernelTuning asked_tuning_;
  bool resolved_valid_ = false;
};

}  // namespace ppsparse::mcpi::detail

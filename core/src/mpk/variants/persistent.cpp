// The MPK variant persistent: one launch: teams take tiles by ticket and wait on per-group counters.
#include <cmath>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/error.hpp>

#include "../matrix_power_internal.hpp"

namespace ppsparse::mpk {

namespace detail {

template <class ExecSpace, class Scalar, class MemSpace>
void run_persistent(MatrixPowerKernel<ExecSpace, Scalar, MemSpace>& mpk) {
  if (mpk.plan_.blocks == 0) return;
  const ExecSpace& space = mpk.matrix_->space();
  // Committed with the tickets once the launch is accepted: a launch that Kokkos refuses
  // (throws) must not leave later runs waiting for counts of a run that never happened.
  const std::uint64_t epoch = mpk.epoch_ + 1;
  with_rows(*mpk.matrix_, mpk.plan_.vector_length, mpk.plan_.row_batch, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    detail::PersistentFunctor<ExecSpace, Scalar, MemSpace, Rows> f;
    f.rows = rows;
    f.y_in = mpk.work_;
    f.y_out = mpk.work_;
    f.blocks = mpk.impl_->blocks;
    mpk.impl_->set_handoff(f, mpk.plan_.dependency_segments, epoch, mpk.options_.spin_limit);
    f.ngroups = mpk.plan_.schedule.ngroups();
    f.total_blocks = mpk.plan_.blocks;
    constexpr int min_teams = detail::persistent_min_teams_per_sm(Rows::batch);
    if constexpr (min_teams > 0) {
      if (mpk.plan_.team_size * mpk.plan_.vector_length == detail::kPersistentBoundThreads) {
        using Bounds = Kokkos::LaunchBounds<detail::kPersistentBoundThreads, min_teams>;
        Kokkos::parallel_for("ppsparse::mpk_persistent",
                             Kokkos::TeamPolicy<ExecSpace, Bounds>(space, mpk.plan_.persistent_teams,
                                                                   mpk.plan_.team_size, mpk.plan_.vector_length),
                             f);
        return;
      }
    }
    Kokkos::parallel_for(
        "ppsparse::mpk_persistent",
        Kokkos::TeamPolicy<ExecSpace>(space, mpk.plan_.persistent_teams, mpk.plan_.team_size, mpk.plan_.vector_length),
        f);
  });
  mpk.epoch_ = epoch;
  // Every team ends with one fetch-add past the last ticket.
  mpk.impl_->tickets_issued += static_cast<detail::Counter>(mpk.plan_.blocks + mpk.plan_.persistent_teams);
  mpk.impl_->last_single_launch = MpkVariant::persistent;
  if (mpk.options_.check_persistent) mpk.check_persistent_status();
}

PPSPARSE_MPK_INSTANTIATE_VARIANT(persistent)

}  // namespace detail

}  // namespace ppsparse::mpk

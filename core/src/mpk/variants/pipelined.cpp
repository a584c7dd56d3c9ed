// The MPK variant pipelined: one launch per pass: a team takes a row block through the pass's powers, its entries in
// team scratch; the launch plan that depends on the functor (plan_pipelined) is here too.
#include <cmath>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/error.hpp>

#include "../matrix_power_internal.hpp"

namespace ppsparse::mpk {

namespace detail {

template <class ExecSpace, class Scalar, class MemSpace>
void run_pipelined(MatrixPowerKernel<ExecSpace, Scalar, MemSpace>& mpk) {
  if (!mpk.plan_.pipelined_fallback.empty()) {
    run_persistent(mpk);
    return;
  }
  const ExecSpace& space = mpk.matrix_->space();
  const std::uint64_t epoch = mpk.epoch_ + 1;  // committed once the launch is accepted
  const long long nblocks = static_cast<long long>(mpk.impl_->row_blocks.extent(0));
  // One launch per pass. The passes of a run share its epoch: every power's counters still
  // count each block once per run. Each launch hands out its own tickets.
  int first_power = 0;
  for (const int pass_powers : mpk.plan_.pipelined_passes) {
    with_rows(*mpk.matrix_, mpk.plan_.vector_length, mpk.plan_.row_batch, [&](const auto& rows) {
      using Rows = std::decay_t<decltype(rows)>;
      with_pipelined_functor<ExecSpace, Scalar, MemSpace>(rows, mpk.plan_.pipelined_rows_in_flight, [&](auto f) {
        using Functor = decltype(f);
        f.rows = rows;
        f.y_in = mpk.work_;
        f.y_out = mpk.work_;
        f.blocks = mpk.impl_->row_blocks;
        mpk.impl_->set_handoff(f, mpk.plan_.dependency_segments, epoch, mpk.options_.spin_limit);
        f.nblocks = nblocks;
        f.first_power = first_power;
        f.powers = pass_powers;
        f.scratch_entries = mpk.plan_.pipelined_scratch_entries;
        f.block_rows = mpk.plan_.rows_per_block;
        with_pipelined_policy<ExecSpace, Rows::batch>(
            space, mpk.plan_.pipelined_teams, mpk.plan_.team_size, mpk.plan_.vector_length,
            Functor::scratch_bytes(mpk.plan_.pipelined_scratch_entries, mpk.plan_.rows_per_block),
            [&](const auto& policy) { Kokkos::parallel_for("ppsparse::mpk_pipelined", policy, f); });
      });
    });
    mpk.epoch_ = epoch;
    mpk.impl_->tickets_issued += static_cast<detail::Counter>(nblocks + mpk.plan_.pipelined_teams);
    first_power += pass_powers;
  }
  mpk.impl_->last_single_launch = MpkVariant::pipelined;
  if (mpk.options_.check_persistent) mpk.check_persistent_status();
}

PPSPARSE_MPK_INSTANTIATE_VARIANT(pipelined)

}  // namespace detail

using namespace detail;

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::plan_pipelined(const offset_t largest_block_entries,
                                                                    const long long team_bound,
                                                                    const ordinal_t nrow_blocks) {
  constexpr bool gpu = compat::is_gpu_space<ExecSpace>();
  const int p = powers();
  const std::size_t entry_bytes = sizeof(Scalar) + static_cast<std::size_t>(matrix_->column_bytes());
  plan_.pipelined_fallback.clear();
  plan_.pipelined_passes.clear();
  plan_.pipelined_teams = plan_.pipelined_guaranteed_teams = 0;
  plan_.pipelined_scratch_entries = 0;
  if (nrow_blocks == 0) return;
  // Teams whose residency is guaranteed, the teams launched, and the team scratch each may take.
  long long resident = 0, launched = 0;
  std::size_t scratch_cap = 0;
  if (gpu) {
    const ppsparse::backend::MultiprocessorLimits mp = ppsparse::backend::multiprocessor_limits(matrix_->space());
    const int threads = plan_.team_size * plan_.vector_length;
    const int min_teams = detail::pipelined_min_teams_per_sm(plan_.row_batch, threads);
    if (mp.count == 0) {
      plan_.pipelined_fallback = std::string("the residency of teams is unknown on ") + ExecSpace::name();
      return;
    }
    if (min_teams == 0) {
      plan_.pipelined_fallback = "needs teams of 32, 64 or 128 threads for its register bound (team_threads gives " +
                                 std::to_string(threads) + ")";
      return;
    }
    // Shared memory of a team: the kernel's scratch plus Kokkos' own (a dynamic broadcast
    // buffer of team size + 2 doubles, and as much again in static memory on CUDA, 1040
    // bytes for 128 threads), plus what the runtime reserves per team.
    // The register bound asks for min_teams teams per multiprocessor, and Kokkos refuses a
    // launch whose teams' shared memory would not let that many fit: a team's scratch is at
    // most its share (measured: 37 KB teams of 8 per SM were refused). Kokkos' own check
    // (team_size_max) has the last word.
    const std::size_t kokkos_team = 2 * 8 * static_cast<std::size_t>(plan_.team_size + 2) + 64;
    const std::size_t per_team = mp.shared_bytes / static_cast<std::size_t>(min_teams);
    const std::size_t max_scratch = static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
    scratch_cap = per_team > kokkos_team + mp.reserved_per_team
                      ? std::min(per_team - kokkos_team - mp.reserved_per_team, max_scratch)
                      : 0;
    if (options_.pipelined_scratch_bytes) scratch_cap = std::min(scratch_cap, options_.pipelined_scratch_bytes);
    // The rows' spans (where the functor keeps them) come first; the entries take the rest.
    const std::size_t span_bytes = pipelined_scratch_bytes(0);
    plan_.pipelined_scratch_entries =
        scratch_cap > span_bytes
            ? std::min<offset_t>(largest_block_entries, static_cast<offset_t>((scratch_cap - span_bytes) / entry_bytes))
            : 0;
    while (!pipelined_launch_accepted()) {
      if (plan_.pipelined_scratch_entries == 0) {
        plan_.pipelined_fallback =
            "Kokkos refuses teams of " + std::to_string(threads) + " threads with its register bound";
        return;
      }
      plan_.pipelined_scratch_entries = plan_.pipelined_scratch_entries * 7 / 8;
    }
    const std::size_t team_shared = pipelined_scratch_bytes(plan_.pipelined_scratch_entries) + kokkos_team;
    // Kokkos sets the multiprocessor's shared-memory carve-out for the teams the registers
    // allow (at least min_teams) without the runtime's reserve: count on no more than that.
    const std::size_t carveout = std::min(mp.shared_bytes, static_cast<std::size_t>(min_teams) * team_shared);
    long long per_sm = std::min<long long>(min_teams, mp.max_threads / threads);
    if (mp.max_teams > 0) per_sm = std::min<long long>(per_sm, mp.max_teams);
    // The launch may take more teams than the plan counts on: as many as the whole shared
    // memory allows. Where the runtime's carve-out is larger than the one counted on, they run
    // (docs/perf/kernel_choices.md, "MPK launched teams"); where not, they wait for a slot, and a team that is not
    // running holds no ticket.
    const long long launch_per_sm = std::min<long long>(
        std::min<long long>(min_teams, mp.max_threads / threads),
        std::min<long long>(mp.max_teams > 0 ? mp.max_teams : min_teams,
                            static_cast<long long>(mp.shared_bytes / (team_shared + mp.reserved_per_team))));
    per_sm = std::min<long long>(per_sm, static_cast<long long>(carveout / (team_shared + mp.reserved_per_team)));
    resident = per_sm * mp.count;
    launched = std::max<long long>(resident, launch_per_sm * mp.count);
  } else {
    // Host teams are threads, all running; one team (Serial) takes the blocks in order.
    resident = team_bound;
    launched = resident;
    plan_.pipelined_scratch_entries =
        options_.pipelined_scratch_bytes
            ? std::min<offset_t>(largest_block_entries,
                                 static_cast<offset_t>(options_.pipelined_scratch_bytes / entry_bytes))
            : largest_block_entries;
  }
  // Every block of the first (q-1) x reach + 1 unfinished ones must be held by a running team,
  // or the smallest unfinished block can wait forever (see "Pipelined kernel" in the header).
  // q, the powers of one pass: the option's, or p unless that does not fit or more than 60 %
  // of the teams would wait ((q-1) x reach of them; where every block has a team at once,
  // none waits for a team to come free), else the most within both, at least 2 (one power per
  // pass is back-to-back with waits). The 60 % threshold lies between where shorter passes won
  // and lost (docs/perf/kernel_choices.md, "MPK passes").
  auto fits = [&](long long q) { return resident >= (q - 1) * plan_.pipelined_reach + 1; };
  auto few_wait = [&](long long q) {
    return resident >= nrow_blocks ||
           static_cast<double>((q - 1) * plan_.pipelined_reach) <= 0.6 * static_cast<double>(resident);
  };
  int q = options_.pipelined_powers_per_pass;
  if (q == 0) {
    q = p;
    while (q > 2 && !(fits(q) && few_wait(q))) --q;
  }
  if (!fits(q)) {
    const long long needed = (q - 1) * plan_.pipelined_reach + 1;
    plan_.pipelined_fallback = std::to_string(needed) + " teams must run at once ((q-1) x reach " +
                               std::to_string(plan_.pipelined_reach) + " + 1 for q = " + std::to_string(q) +
                               " powers per pass), the device guarantees " + std::to_string(resident);
    plan_.pipelined_scratch_entries = 0;
    return;
  }
  // ceil(p / q) passes of balanced sizes, the larger first.
  const int passes = (p + q - 1) / q;
  for (int i = 0; i < passes; ++i) plan_.pipelined_passes.push_back(p / passes + (i < p % passes ? 1 : 0));
  plan_.pipelined_guaranteed_teams = static_cast<int>(std::min<long long>(resident, nrow_blocks));
  plan_.pipelined_teams = static_cast<int>(std::min<long long>(launched, nrow_blocks));
}

template <class ExecSpace, class Scalar, class MemSpace>
bool MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::pipelined_launch_accepted() const {
  bool accepted = false;
  with_rows(*matrix_, plan_.vector_length, plan_.row_batch, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    with_pipelined_functor<ExecSpace, Scalar, MemSpace>(rows, plan_.pipelined_rows_in_flight, [&](const auto& functor) {
      using Functor = std::decay_t<decltype(functor)>;
      with_pipelined_policy<ExecSpace, Rows::batch>(
          matrix_->space(), 1, plan_.team_size, plan_.vector_length,
          Functor::scratch_bytes(plan_.pipelined_scratch_entries, plan_.rows_per_block), [&](const auto& policy) {
            accepted = policy.team_size_max(functor, Kokkos::ParallelForTag()) >= plan_.team_size;
          });
    });
  });
  return accepted;
}

template <class ExecSpace, class Scalar, class MemSpace>
std::size_t MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::pipelined_scratch_bytes(const offset_t entries) const {
  std::size_t bytes = 0;
  with_rows(*matrix_, plan_.vector_length, plan_.row_batch, [&](const auto& rows) {
    with_pipelined_functor<ExecSpace, Scalar, MemSpace>(rows, plan_.pipelined_rows_in_flight, [&](const auto& functor) {
      bytes = std::decay_t<decltype(functor)>::scratch_bytes(entries, plan_.rows_per_block);
    });
  });
  return bytes;
}

#define PPSPARSE_MPK_INSTANTIATE_PIPELINED_PLAN(S)                                                                \
  template void MatrixPowerKernel<DefaultExecSpace, S, DefaultMemSpace>::plan_pipelined(offset_t, long long,      \
                                                                                        ordinal_t);               \
  template std::size_t MatrixPowerKernel<DefaultExecSpace, S, DefaultMemSpace>::pipelined_scratch_bytes(offset_t) \
      const;                                                                                                      \
  template bool MatrixPowerKernel<DefaultExecSpace, S, DefaultMemSpace>::pipelined_launch_accepted() const;
PPSPARSE_MPK_INSTANTIATE_PIPELINED_PLAN(float)
PPSPARSE_MPK_INSTANTIATE_PIPELINED_PLAN(double)
#undef PPSPARSE_MPK_INSTANTIATE_PIPELINED_PLAN

}  // namespace ppsparse::mpk

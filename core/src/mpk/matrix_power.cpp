// MatrixPowerKernel's runners (mpk/matrix_power.hpp): apply, the variants' launches, the
// automatic choice, and the pipelined kernel's launch plan, which depends on its functor. The
// planner is matrix_power_plan.cpp, the level-ordered matrix level_ordered_matrix.cpp.
#include <cmath>
#include <iterator>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/error.hpp>

#include "matrix_power_internal.hpp"

namespace ppsparse::mpk {

using namespace detail;

template <class ExecSpace, class Scalar, class MemSpace>
MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::MatrixPowerKernel(const CsrMatrix<Scalar, HostSpace>& a,
                                                                  const MpkOptions& options, const ExecSpace& space)
    : MatrixPowerKernel(std::make_shared<Matrix>(a, options.matrix, space), options) {}

template <class ExecSpace, class Scalar, class MemSpace>
MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::~MatrixPowerKernel() = default;

template <class ExecSpace, class Scalar, class MemSpace>
bool MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::graph_is_native() const {
  return PPSPARSE_KOKKOS_HAS_GRAPH != 0;
}

template <class ExecSpace, class Scalar, class MemSpace>
MpkTraffic MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::traffic() const {
  const double n = matrix_->nrows(), nnz = static_cast<double>(matrix_->nnz());
  const int p = powers();
  MpkTraffic t;
  t.spmv_bytes = spmv::csr_min_bytes<Scalar>(matrix_->nrows(), matrix_->nrows(), matrix_->nnz(), false);
  t.back_to_back_bytes = p * t.spmv_bytes;
  t.blocked_bytes =
      nnz * (sizeof(Scalar) + sizeof(ordinal_t)) + (n + 1) * sizeof(offset_t) + (p + 1) * n * sizeof(Scalar);
  t.flops = 2.0 * nnz * p;
  return t;
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::apply(MpkVariant variant, const ConstVector& x,
                                                           const MultiVector& y) {
  const ordinal_t n = nrows();
  if (static_cast<long long>(x.extent(0)) != n)
    throw InvalidArgument("mpk apply: x has " + std::to_string(x.extent(0)) + " entries, the matrix has " +
                          std::to_string(n) + " rows");
  if (static_cast<long long>(y.extent(0)) != n || static_cast<long long>(y.extent(1)) != powers() + 1)
    throw InvalidArgument("mpk apply: Y is " + std::to_string(y.extent(0)) + " x " + std::to_string(y.extent(1)) +
                          ", expected n x (p+1) = " + std::to_string(n) + " x " + std::to_string(powers() + 1));
  const ExecSpace& space = matrix_->space();
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<ordinal_t>>;
  Kokkos::parallel_for("ppsparse::mpk_gather_x", Range(space, 0, n),
                       detail::GatherX<Scalar, MemSpace>{work_, x, matrix_->device_new_to_old()});
  apply_internal(variant);
  Kokkos::parallel_for("ppsparse::mpk_scatter_y", Range(space, 0, n),
                       detail::ScatterY<Scalar, MemSpace>{y, work_, matrix_->device_new_to_old(), powers() + 1});
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::apply_internal(MpkVariant variant) {
  // variants.def's dispatch table: run_<id> for each variant.
  using Run = void (MatrixPowerKernel::*)();
  static constexpr Run kRun[] = {
#define PPSPARSE_MPK_VARIANT(id, summary) &MatrixPowerKernel::run_##id,
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
  };
  const auto i = static_cast<std::size_t>(resolve(variant));
  if (i >= std::size(kRun)) throw InvalidArgument("mpk: unknown variant");
  (this->*kRun[i])();
}

template <class ExecSpace, class Scalar, class MemSpace>
MpkVariant MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::resolve(MpkVariant variant) {
  if (variant == MpkVariant::pipelined && !plan_.pipelined_fallback.empty()) return MpkVariant::persistent;
  if (variant != MpkVariant::automatic) return variant;
  if (!automatic_choice_) {
    MpkVariant choice = plan_.estimate.best;
    automatic_timing_ = !options_.verify_automatic     ? "not timed (verify_automatic off)"
                        : nrows() == 0                 ? "not timed (no rows)"
                        : !plan_.estimate.worth_timing ? "not timed (the model's choice: back_to_back)"
                                                       : "";
    if (automatic_timing_.empty()) {
      // The model's two best blocked variants (graph only where it differs from blocked),
      // timed against back_to_back in interleaved rounds (so that drift hits all alike); a
      // blocked variant must beat back_to_back by 2% to be chosen (noise favours nobody).
      // Also where the model prefers back_to_back by less than kAutomaticTimingMargin
      // (MpkEstimate::worth_timing).
      std::vector<MpkVariant> candidates{MpkVariant::back_to_back};
      std::vector<MpkVariant> ranked;
      for (MpkVariant v : concrete_variants())
        if (v != MpkVariant::back_to_back && (v != MpkVariant::graph || graph_is_native()) &&
            (v != MpkVariant::pipelined || plan_.pipelined_fallback.empty()))
          ranked.push_back(v);
      std::stable_sort(ranked.begin(), ranked.end(), [&](MpkVariant a, MpkVariant b) {
        return plan_.estimate.seconds(a) < plan_.estimate.seconds(b);
      });
      for (size_t i = 0; i < ranked.size() && i < 2; ++i) candidates.push_back(ranked[i]);
      const std::vector<double> t = time_variants(candidates);
      choice = MpkVariant::back_to_back;
      double best = 0.98 * t[0];
      for (size_t i = 1; i < candidates.size(); ++i)
        if (t[i] < best) {
          best = t[i];
          choice = candidates[i];
        }
      automatic_timing_ = "timed (us):";
      for (size_t i = 0; i < candidates.size(); ++i)
        automatic_timing_ += std::string(i ? ", " : " ") + to_string(candidates[i]) + " " + format_us(t[i]);
      // The winner must win again in a second measurement: on launch-bound runs of tens of
      // microseconds one measurement can favour either side by 10-30 %.
      if (choice != MpkVariant::back_to_back) {
        const std::vector<double> again = time_variants({MpkVariant::back_to_back, choice});
        automatic_timing_ += std::string("; again: back_to_back ") + format_us(again[0]) + ", " + to_string(choice) +
                             " " + format_us(again[1]);
        if (!(again[1] < 0.98 * again[0])) choice = MpkVariant::back_to_back;
      }
      automatic_timing_ += std::string(" -> ") + to_string(choice);
    }
    automatic_choice_ = choice;
  }
  return *automatic_choice_;
}

template <class ExecSpace, class Scalar, class MemSpace>
std::vector<double> MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::time_variants(
    const std::vector<MpkVariant>& variants) {
  const ExecSpace& space = matrix_->space();
  for (MpkVariant v : variants) apply_internal(v);  // warm-up (graph capture, first launch)
  // One run of each, timed: runs of a few milliseconds or less are launch-sensitive.
  space.fence();
  const double probe_start = seconds_now();
  for (MpkVariant v : variants) apply_internal(v);
  space.fence();
  const bool short_runs = seconds_now() - probe_start < 0.01;
  std::vector<std::vector<double>> t(variants.size());
  const double start = seconds_now();
  // Short runs: rounds of 8 consecutive runs of each variant, as a solver calls it, alternating
  // so that drift hits all alike; at least 3 rounds and 30 ms (one run of each in turn chose
  // wrongly: docs/perf/kernel_choices.md, "MPK automatic timing"). Runs of tens of
  // microseconds are launch-bound, though, and the choice stays noisy, hence resolve()'s
  // second measurement. Longer runs (CPUs,
  // large matrices): one run of each in turn, at least 5 rounds and 30 ms.
  const int runs = short_runs ? 8 : 1;
  const int min_rounds = short_runs ? 3 : 5;
  for (int round = 0; round < 50 && (round < min_rounds || seconds_now() - start < 0.03); ++round)
    for (size_t i = 0; i < variants.size(); ++i)
      for (int run = 0; run < runs; ++run) {
        space.fence();
        const double s = seconds_now();
        apply_internal(variants[i]);
        space.fence();
        t[i].push_back(seconds_now() - s);
      }
  std::vector<double> medians;
  for (auto& v : t) medians.push_back(median_of(v));
  return medians;
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_back_to_back() {
  auto& op = matrix_->baseline();
  for (int k = 1; k <= powers(); ++k) op.apply(Scalar(1), column(work_, k - 1), Scalar(0), mutable_column(work_, k));
}

namespace {

template <int Batch, class Matrix, class F>
void with_rows_of_batch(const Matrix& m, const int lanes, F&& f) {
  using Scalar = typename std::decay_t<decltype(m.device_matrix())>::scalar_type;
  using MemSpace = typename std::decay_t<decltype(m.device_matrix())>::memory_space;
  if (m.format() == MpkFormat::sell) {
    const auto& s = *m.sell_matrix();
    if (s.compressed_columns())
      f(detail::SellRows<Scalar, MemSpace, true, Batch>{s.chunk_ptr, s.row_len, s.col_idx, s.col_offset, s.values, s.C,
                                                        lanes});
    else
      f(detail::SellRows<Scalar, MemSpace, false, Batch>{s.chunk_ptr, s.row_len, s.col_idx, s.col_offset, s.values, s.C,
                                                         lanes});
  } else {
    const auto& a = m.device_matrix();
    f(detail::CsrRows<Scalar, MemSpace, Batch>{a.row_ptr, a.col_idx, a.values, lanes});
  }
}

// Calls f(rows) with the device row source of the matrix's format, for launches of `lanes`
// vector lanes, loading `batch` entries of a row at a time (detail::row_dot; 1: strided_dot).
template <class Matrix, class F>
void with_rows(const Matrix& m, const int lanes, const int batch, F&& f) {
  if (batch == 8)
    with_rows_of_batch<8>(m, lanes, f);
  else if (batch == 16)
    with_rows_of_batch<16>(m, lanes, f);
  else
    with_rows_of_batch<0>(m, lanes, f);
}

// Calls f(policy) with the pipelined kernel's launch policy (`teams` teams, `scratch_bytes`
// of team scratch), on GPUs with the register bound for its team size (32, 64 or 128
// threads; plan_pipelined falls back for any other) and rows loaded in batches of Batch.
template <class ExecSpace, int Batch, class F>
void with_pipelined_policy(const ExecSpace& space, const int teams, const int team_size, const int vector_length,
                           const std::size_t scratch_bytes, F&& f) {
  const auto scratch = Kokkos::PerTeam(static_cast<int>(scratch_bytes));
  auto bounded = [&](auto threads) {
    constexpr int T = decltype(threads)::value;
    using Bounds = Kokkos::LaunchBounds<T, detail::pipelined_min_teams_per_sm(Batch, T)>;
    f(Kokkos::TeamPolicy<ExecSpace, Bounds>(space, teams, team_size, vector_length).set_scratch_size(0, scratch));
  };
  const int threads = team_size * vector_length;
  if (!compat::is_gpu_space<ExecSpace>())
    f(Kokkos::TeamPolicy<ExecSpace>(space, teams, team_size, vector_length).set_scratch_size(0, scratch));
  else if (threads == 32)
    bounded(std::integral_constant<int, 32>());
  else if (threads == 64)
    bounded(std::integral_constant<int, 64>());
  else
    bounded(std::integral_constant<int, 128>());
}

// Calls f(functor) with a default-constructed pipelined functor for `rows` and rows_in_flight
// (1 or 2) rows computed at once per team thread.
template <class ExecSpace, class Scalar, class MemSpace, class Rows, class F>
void with_pipelined_functor(const Rows&, const int rows_in_flight, F&& f) {
  if (rows_in_flight == 2)
    f(detail::PipelinedFunctor<ExecSpace, Scalar, MemSpace, Rows, 2>());
  else
    f(detail::PipelinedFunctor<ExecSpace, Scalar, MemSpace, Rows, 1>());
}

}  // namespace

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_blocked() {
  const ExecSpace& space = matrix_->space();
  with_rows(*matrix_, plan_.vector_length, plan_.row_batch, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    detail::LaunchFunctor<ExecSpace, Scalar, MemSpace, Rows> f{rows, work_, work_, impl_->blocks, 0};
    for (size_t l = 0; l + 1 < plan_.launch_block_offsets.size(); ++l) {
      f.first_block = plan_.launch_block_offsets[l];
      const int nblocks = static_cast<int>(plan_.launch_block_offsets[l + 1] - plan_.launch_block_offsets[l]);
      Kokkos::parallel_for("ppsparse::mpk_blocked_launch",
                           Kokkos::TeamPolicy<ExecSpace>(space, nblocks, plan_.team_size, plan_.vector_length), f);
    }
  });
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_graph() {
#if PPSPARSE_KOKKOS_HAS_GRAPH
  const ExecSpace& space = matrix_->space();
  if (!impl_->graph) {
    with_rows(*matrix_, plan_.vector_length, plan_.row_batch, [&](const auto& rows) {
      using Rows = std::decay_t<decltype(rows)>;
      impl_->graph = Kokkos::Experimental::create_graph(space, [&](const auto& root) {
        Kokkos::Experimental::GraphNodeRef<ExecSpace> node = root;
        for (size_t l = 0; l + 1 < plan_.launch_block_offsets.size(); ++l) {
          detail::LaunchFunctor<ExecSpace, Scalar, MemSpace, Rows> f{rows, work_, work_, impl_->blocks,
                                                                     plan_.launch_block_offsets[l]};
          const int nblocks = static_cast<int>(plan_.launch_block_offsets[l + 1] - plan_.launch_block_offsets[l]);
          node = node.then_parallel_for(
              "ppsparse::mpk_graph_launch",
              Kokkos::TeamPolicy<ExecSpace>(space, nblocks, plan_.team_size, plan_.vector_length), f);
        }
      });
    });
    impl_->graph->instantiate();
  }
  impl_->graph->submit(space);
#else
  run_blocked();  // Kokkos < 4: no graph, the same launches one by one
#endif
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_persistent() {
  if (plan_.blocks == 0) return;
  const ExecSpace& space = matrix_->space();
  // Committed with the tickets once the launch is accepted: a launch that Kokkos refuses
  // (throws) must not leave later runs waiting for counts of a run that never happened.
  const std::uint64_t epoch = epoch_ + 1;
  with_rows(*matrix_, plan_.vector_length, plan_.row_batch, [&](const auto& rows) {
    using Rows = std::decay_t<decltype(rows)>;
    detail::PersistentFunctor<ExecSpace, Scalar, MemSpace, Rows> f;
    f.rows = rows;
    f.y_in = work_;
    f.y_out = work_;
    f.blocks = impl_->blocks;
    impl_->set_handoff(f, plan_.dependency_segments, epoch, options_.spin_limit);
    f.ngroups = plan_.schedule.ngroups();
    f.total_blocks = plan_.blocks;
    constexpr int min_teams = detail::persistent_min_teams_per_sm(Rows::batch);
    if constexpr (min_teams > 0) {
      if (plan_.team_size * plan_.vector_length == detail::kPersistentBoundThreads) {
        using Bounds = Kokkos::LaunchBounds<detail::kPersistentBoundThreads, min_teams>;
        Kokkos::parallel_for(
            "ppsparse::mpk_persistent",
            Kokkos::TeamPolicy<ExecSpace, Bounds>(space, plan_.persistent_teams, plan_.team_size, plan_.vector_length),
            f);
        return;
      }
    }
    Kokkos::parallel_for(
        "ppsparse::mpk_persistent",
        Kokkos::TeamPolicy<ExecSpace>(space, plan_.persistent_teams, plan_.team_size, plan_.vector_length), f);
  });
  epoch_ = epoch;
  // Every team ends with one fetch-add past the last ticket.
  impl_->tickets_issued += static_cast<detail::Counter>(plan_.blocks + plan_.persistent_teams);
  impl_->last_single_launch = MpkVariant::persistent;
  if (options_.check_persistent) check_persistent_status();
}

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
    const backend::MultiprocessorLimits mp = backend::multiprocessor_limits(matrix_->space());
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

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::run_pipelined() {
  if (!plan_.pipelined_fallback.empty()) {
    run_persistent();
    return;
  }
  const ExecSpace& space = matrix_->space();
  const std::uint64_t epoch = epoch_ + 1;  // committed once the launch is accepted
  const long long nblocks = static_cast<long long>(impl_->row_blocks.extent(0));
  // One launch per pass. The passes of a run share its epoch: every power's counters still
  // count each block once per run. Each launch hands out its own tickets.
  int first_power = 0;
  for (const int pass_powers : plan_.pipelined_passes) {
    with_rows(*matrix_, plan_.vector_length, plan_.row_batch, [&](const auto& rows) {
      using Rows = std::decay_t<decltype(rows)>;
      with_pipelined_functor<ExecSpace, Scalar, MemSpace>(rows, plan_.pipelined_rows_in_flight, [&](auto f) {
        using Functor = decltype(f);
        f.rows = rows;
        f.y_in = work_;
        f.y_out = work_;
        f.blocks = impl_->row_blocks;
        impl_->set_handoff(f, plan_.dependency_segments, epoch, options_.spin_limit);
        f.nblocks = nblocks;
        f.first_power = first_power;
        f.powers = pass_powers;
        f.scratch_entries = plan_.pipelined_scratch_entries;
        f.block_rows = plan_.rows_per_block;
        with_pipelined_policy<ExecSpace, Rows::batch>(
            space, plan_.pipelined_teams, plan_.team_size, plan_.vector_length,
            Functor::scratch_bytes(plan_.pipelined_scratch_entries, plan_.rows_per_block),
            [&](const auto& policy) { Kokkos::parallel_for("ppsparse::mpk_pipelined", policy, f); });
      });
    });
    epoch_ = epoch;
    impl_->tickets_issued += static_cast<detail::Counter>(nblocks + plan_.pipelined_teams);
    first_power += pass_powers;
  }
  impl_->last_single_launch = MpkVariant::pipelined;
  if (options_.check_persistent) check_persistent_status();
}

template <class ExecSpace, class Scalar, class MemSpace>
void MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::check_persistent_status() const {
  long long flag = 0;
  Kokkos::deep_copy(flag, Kokkos::subview(impl_->stalled, 0));  // fences
  if (flag == 0) return;
  const long long code = flag - 1;
  const std::string after = " polls waiting for the dependencies of ";
  const std::string invalid = "; the results of that run are invalid";
  if (impl_->last_single_launch == MpkVariant::pipelined) {
    const long long nblocks = std::max<long long>(1, static_cast<long long>(impl_->row_blocks.extent(0)));
    throw Error("mpk pipelined: a team gave up after " + std::to_string(options_.spin_limit) + after + "row block " +
                std::to_string(code % nblocks) + " at power " + std::to_string(code / nblocks + 1) + invalid);
  }
  const ordinal_t G = std::max<ordinal_t>(1, plan_.schedule.ngroups());
  throw Error("mpk persistent: a team gave up after " + std::to_string(options_.spin_limit) + after + "tile (group " +
              std::to_string(code % G) + ", power " + std::to_string(code / G + 1) + ")" + invalid);
}

template <class ExecSpace, class Scalar, class MemSpace>
std::string MatrixPowerKernel<ExecSpace, Scalar, MemSpace>::describe() const {
  char line[512];
  const Matrix& m = *matrix_;
  std::snprintf(
      line, sizeof line,
      "p=%d format=%s%s order=%s groups=%d launches=%d skew=%d budget=%.3gMB (LLC %.3gMB) blocks=%lld rows/block=%d "
      "segments=%d team=%dx%d row_batch=%d persistent_teams=%d graph=%s baseline=%s",
      powers(), to_string(m.format()),
      m.format() == MpkFormat::sell ? ("-" + std::to_string(m.sell_chunk())).c_str() : "", to_string(m.ordering()),
      plan_.schedule.ngroups(), plan_.schedule.nlaunches(), plan_.schedule.skew, plan_.cache_budget_bytes / 1e6,
      plan_.last_level_cache / 1e6, plan_.blocks, plan_.rows_per_block, plan_.dependency_segments, plan_.team_size,
      plan_.vector_length, plan_.row_batch, plan_.persistent_teams, graph_is_native() ? "kokkos" : "plain-launches",
      m.baseline_description().c_str());
  auto pass_list = [&] {
    std::string l;
    for (int q : plan_.pipelined_passes) l += (l.empty() ? "" : "+") + std::to_string(q);
    return l;
  };
  std::string pipelined = plan_.pipelined_fallback.empty()
                              ? " pipelined: teams=" + std::to_string(plan_.pipelined_teams) + " (" +
                                    std::to_string(plan_.pipelined_guaranteed_teams) +
                                    " guaranteed) reach=" + std::to_string(plan_.pipelined_reach) +
                                    " scratch=" + std::to_string(plan_.pipelined_scratch_entries) +
                                    " entries rows_in_flight=" + std::to_string(plan_.pipelined_rows_in_flight) +
                                    " passes=" + pass_list()
                              : " pipelined: runs persistent (" + plan_.pipelined_fallback + ")";
  return line + pipelined;
}

template class MatrixPowerKernel<DefaultExecSpace, float, DefaultMemSpace>;
template class MatrixPowerKernel<DefaultExecSpace, double, DefaultMemSpace>;

}  // namespace ppsparse::mpk

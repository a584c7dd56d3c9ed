// MatrixPowerKernel's runners (mpk/matrix_power.hpp): apply, the dispatch to the variants
// (variants.def; each variant's run_<id> in variants/<id>.cpp) and the automatic choice. The
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
  using Run = void (*)(MatrixPowerKernel&);
  static constexpr Run kRun[] = {
#define PPSPARSE_MPK_VARIANT(id, summary) &detail::run_##id<ExecSpace, Scalar, MemSpace>,
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
  };
  const MpkVariant v = resolve(variant);
  const auto i = static_cast<std::size_t>(v);
  if (i >= std::size(kRun)) throw InvalidArgument("mpk: unknown variant");
  kRun[i](*this);
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

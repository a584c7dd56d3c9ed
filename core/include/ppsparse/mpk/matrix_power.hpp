#pragma once
/// @file
/// Matrix power kernel: y_k = A^k x for k = 1..p into p+1 vectors (column 0 holds x).
///
///   mpk::MpkOptions o;
///   o.powers = 6;
///   mpk::MatrixPowerKernel<Kokkos::DefaultExecutionSpace, double> mpk(A_host, o);
///   mpk.apply(mpk::MpkVariant::automatic, x, Y);   // Y: n x (p+1), LayoutLeft
///
/// Setup (LevelOrderedMatrix, independent of p): BFS levels of A's symmetrised pattern
/// (reorder/bfs_levels.hpp) and the symmetric permutation P A P^T into level order, or, where
/// A's own numbering has narrower levels (LevelMatrixOptions::ordering), that numbering cut
/// into levels (input_order_levels) with P = I; the device
/// copies of that matrix (CSR, and SELL-C-1 for the blocked kernels on GPUs), and the
/// baseline SpMV (the fastest of the spmv module's kernels on the level-ordered matrix,
/// timed at setup unless named).
/// Per p (MatrixPowerKernel): levels merged into groups that fit the cache budget
/// (schedule.hpp), the wavefront schedule, its checked legality, and the block lists the
/// kernels walk.
///
/// Variants (variant.hpp):
///  * back_to_back: p SpMVs with the baseline kernel.
///  * blocked: one launch per schedule launch; a launch is a TeamPolicy over blocks of
///    rows_per_block rows of its tiles; a team computes its block's rows of y_k = A y_{k-1}
///    (a row-range SpMV on CSR or SELL-C; groups start on multiples of C).
///  * graph: the blocked launches captured once as a Kokkos::Experimental::Graph (a chain,
///    submitted with one call) on Kokkos >= 4; on Kokkos 3.4 plain launches, as blocked
///    (graph_is_native() says which).
///  * persistent: one launch (see "Persistent kernel" below).
///  * pipelined: one launch (see "Pipelined kernel" below); runs persistent where the
///    residency its teams need is not guaranteed (pipelined_fallback() says why).
///  * automatic: the cost model's choice (cost_model.hpp). With verify_automatic (default)
///    the first use times back_to_back and the model's two best blocked variants where the
///    model puts one of them within kAutomaticTimingMargin x back_to_back
///    (MpkEstimate::worth_timing; medians over alternating rounds of 8 consecutive runs each
///    where a run takes milliseconds or less, at least 3 rounds and 30 ms; one run each in
///    turn for longer runs) and keeps the fastest, a blocked variant only if it beats
///    back_to_back by 2% in that measurement and again in a second one, so automatic is
///    never slower than back_to_back beyond timing noise; without it the model alone decides.
///
/// Persistent kernel. The blocks of all tiles, in schedule order (a topological order of
/// the wavefront dependencies: check_schedule enforces that every dependency of a tile lies
/// in an earlier launch, hence earlier in the order), are numbered 0..B-1: the tickets.
/// Completion is counted per (dependency segment, power): a segment is a run of about
/// dependency_rows rows of one group, in whole blocks. Setup records, for every block, the
/// segments [dep_lo, dep_hi] from the one holding its smallest column to the one holding its
/// largest (all within the neighbouring groups, by check_schedule). Each team loops: its leader
/// takes the next ticket with an atomic fetch-add on a global counter, waits until the counters
/// of those segments at power k-1 reach their block counts (relaxed loads, then an acquire
/// fence), the team computes the block, and after a team barrier the leader increments its
/// segment's counter with release semantics (the barrier-release-atomic pattern of a grid
/// barrier; backend::handoff_* in core/src/backend/team_handoff.hpp). y_{k-1} is read with
/// ordinary loads (never the non-coherent read-only path), so after the acquire the team sees
/// the values other teams wrote. Waiting for segments instead of whole neighbouring tiles lets
/// a tile start while its neighbours' far ends still run, so the wavefront does not drain at
/// every tile.
/// Why it cannot deadlock:
///  1. Tickets are handed out in a topological order, one at a time, only to a team that is
///     running (it is executing the fetch-add), and a team works on its ticket until done.
///     A team holding ticket t waits only for blocks with tickets < t (its segments belong to
///     tiles that precede its own in the order), and those were all handed out before t,
///     hence to teams that are already running.
///  2. By induction on t: the smallest unfinished ticket has all its dependencies finished,
///     so its team does not wait and finishes. Hence every ticket finishes, provided a
///     running team is never starved by the spinning of others. A resident GPU team is not
///     (it keeps its SM slot until it exits), and the number of teams never exceeds what can
///     be co-resident: concurrency() / (team threads), the device's resident-thread capacity
///     divided by the threads of a team (fewer if the register budget allows fewer; then
///     the extra teams start when earlier ones exit, and by 1. they hold no ticket while
///     waiting to start, so nothing waits on them).
///  3. On backends where co-residency cannot be guaranteed (Serial, and any host backend
///     without a concurrency figure) the kernel runs with one team, which takes the tickets
///     in order: every dependency is then already done, and nothing ever waits.
/// Counters are never reset: run e (1, 2, ...) waits for e x (blocks of the segment), and its
/// tickets start at (e-1) x (B + teams), because every team ends with one failed fetch-add.
/// As a last defence against a broken invariant, a wait gives up after spin_limit polls and
/// flags the run: apply() then throws ppsparse::Error (check_persistent) instead of hanging.
///
/// Pipelined kernel. The persistent kernel re-reads a group's matrix from the cache at every
/// power. Here a team takes the row blocks (the same blocks and segments, in row order) by
/// ticket and carries its block through all p powers: it keeps the block's stored entries in
/// team scratch, copied there before power 1 (all loads at once, cp.async on CUDA) where a
/// thread computes two rows, or kept as power 1 reads them where it computes one (where they
/// fit; a larger block reads memory at every power), and before power k > 1 its leader waits
/// until the segments of y_{k-1} that the block reads are complete (the same counters, fences
/// and release as persistent). The cache then serves only vectors after the first power.
/// Why it cannot deadlock, given R teams that are guaranteed to run at once, and the reach F:
/// the most row blocks past its own that a block's last dependency segment ends.
///  1. Tickets go out in row order, one at a time, to running teams, and a team keeps its
///     block until all its powers are done. Let b be the smallest unfinished block: every
///     smaller one is finished, the teams that hold unfinished blocks hold b and larger ones,
///     and a free team takes the next ticket, so blocks b .. b + R - 1 are all held (or the
///     blocks run out). A team that is launched but not resident holds no ticket.
///  2. If R >= (p-1) F + 1, by induction on k every block in b .. b + (p-k) F finishes power k:
///     power 1 reads only x, and such a block at power k reads y_{k-1} of blocks up to
///     F further, all finished at power k-1 (or finished outright, below b). So b finishes.
///  3. R is what the device guarantees: multiprocessors x the teams per multiprocessor that
///     the kernel's register bound (Kokkos::LaunchBounds), its scratch and the thread limit
///     all allow (backend/multiprocessors.hpp); on host backends the threads; one on Serial.
///     The launch may hold more teams than R (as many as the whole shared memory fits): those
///     that run take tickets too, and those that do not hold none, so the argument stands.
///     Where R < (p-1) F + 1, or (p-1) F teams, the share that waits, exceed 60 % of them, the p
///     powers run as several launches (passes) of at most q powers each, q the most within
///     both (MpkOptions::pipelined_powers_per_pass);
///     each pass reads y of the last power of the one before, finished by stream order, so
///     the argument holds per pass. Each pass reads the matrix from memory again. Where no
///     q >= 2 fits, or R is unknown, pipelined runs the persistent kernel.
/// Where a team thread has two rows of a block and rows have one vector lane, it computes
/// both at once (pipelined_rows_in_flight), so that their loads are in flight together.
/// Its one-launch advantage costs waiting: a team holds its block while the blocks up to F
/// ahead catch up, so about (p-1) F / R of the teams wait at any time.
///
/// Numbering: apply() takes x and Y in the user's numbering and permutes in and out (two
/// extra passes over the vectors). A solver that works in the level numbering calls
/// apply_internal() on work() instead (column 0: x in level numbering, permutation()).
///
/// Instantiated for (DefaultExecSpace, float|double, DefaultMemSpace).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>
#include <ppsparse/formats/sell.hpp>
#include <ppsparse/mpk/cost_model.hpp>
#include <ppsparse/mpk/schedule.hpp>
#include <ppsparse/mpk/variant.hpp>
#include <ppsparse/reorder/permutation.hpp>
#include <ppsparse/spmv/spmv.hpp>

namespace ppsparse::mpk {

/// Options of the p-independent part.
struct LevelMatrixOptions {
  MpkFormat format = MpkFormat::automatic;        ///< storage of the blocked/persistent kernels
  int sell_chunk = 0;                             ///< C of SELL-C-1 (a power of two on GPUs); 0: SELL SpMV's
                                                  // rule (spmv::sell_resolve_options)
  int index_bits = 0;                             ///< SELL columns: 16 (offsets from the row), 32, or 0: 16
                                                  // where every column is within 32767 of its row, else 32
  std::optional<spmv::SpmvAlgorithm> baseline;    ///< back_to_back's kernel; none: the fastest, timed at setup
  MpkOrdering ordering = MpkOrdering::automatic;  ///< the levels' numbering: BFS levels, or the input's own
                                                  // where its adjacent levels are narrower (a structured
                                                  // grid's planes), which shortens what a block waits for
};

/// Options of MatrixPowerKernel: p, the cache budget and the kernels' geometry; 0 selects the
/// automatic rule where a field says so.
struct MpkOptions {
  int powers = 4;                    ///< p >= 1
  LevelMatrixOptions matrix;         ///< when MatrixPowerKernel builds its own LevelOrderedMatrix
  std::size_t cache_bytes = 0;       ///< cache budget; 0: cache_fraction * last_level_cache_bytes()
  double cache_fraction = 0.5;       ///< in (0, 16]
  int skew = 2;                      ///< wavefront skew, 1 (RACE, launch per tile) or 2 (launch per step)
  ordinal_t align_rows = 0;          ///< group cuts on multiples of this; 0: max(32, C)
  ordinal_t rows_per_block = 0;      ///< rows of one team's block; 0: 1024 on CPUs; on GPUs a power of two
                                     // in [32, 256] keeping teams x block rows within budget / 4, and at
                                     // least a row per team thread (two where row_batch is 8)
  ordinal_t dependency_rows = 0;     ///< persistent: rows of a dependency segment, rounded up to whole
                                     // blocks (see "Persistent kernel"); 0: 1024
  int vector_length = 0;             ///< lanes per row; 0: W/C for SELL, ~sqrt(row length) for CSR (1 on CPUs)
  int team_threads = 0;              ///< threads of a team (team size x vector length); 0: 128 on GPUs, 1 on CPUs
  int persistent_teams = 0;          ///< 0: the co-resident bound (see above); capped by it and by the blocks
  bool verify_automatic = true;      ///< automatic: time the model's two best against back_to_back once
  bool check_persistent = true;      ///< persistent: read the stall flag after every run (a 4-byte copy)
  long long spin_limit = 1LL << 26;  ///< polls before a waiting team gives up and flags the run
  int row_batch = 0;                 ///< blocked/persistent: entries of a row a lane loads before their gathers:
                                     // 8 or 16, 1 for spmv's strided loop; 0: on GPUs 16 where a lane's
                                     // average share of a row exceeds 12 entries, else 8; 1 on CPUs
  std::size_t pipelined_scratch_bytes = 0;  ///< pipelined: team scratch for a block's stored entries; 0: the
                                            // largest block, within the multiprocessor's shared memory / the
                                            // teams of the register bound on GPUs; a larger block reads memory
                                            // at every power
  int pipelined_rows_in_flight = 0;         ///< pipelined: rows a team thread computes at once, 1 or 2 (2 needs
                                            // one vector lane per row); 0: 2 where a block has at least two
                                            // rows per team thread and rows have one lane, else 1
  int pipelined_powers_per_pass = 0;        ///< pipelined: powers one launch carries a block through, q in 1..p
                                            // (the p powers run as ceil(p/q) launches of balanced sizes, each
                                            // reading the matrix once); 0: the rule, p where (p-1) F + 1 teams
                                            // are resident and (p-1) F is at most 60 % of them (the share that
                                            // waits), else the most powers within both (see "Pipelined kernel")
  std::optional<MpkDeviceModel> model;      ///< cost model parameters; none: default_device_model
};

/// Bytes models of one run (p powers), for GB/s figures.
struct MpkTraffic {
  double spmv_bytes = 0;          ///< one SpMV by the CSR model (spmv::csr_min_bytes): matrix + x + y
  double back_to_back_bytes = 0;  ///< p * spmv_bytes: the matrix streamed once per power
  double blocked_bytes = 0;       ///< the matrix once, x once, p vectors written: the least any variant moves
  double flops = 0;               ///< 2 nnz p
};

/// The level-ordered matrix and everything about it that does not depend on p.
template <class ExecSpace, class Scalar, class MemSpace = typename ExecSpace::memory_space>
class LevelOrderedMatrix {
 public:
  /// InvalidArgument, naming the defect, if `a` is not square or not a valid CSR matrix
  /// (formats/csr.hpp validate: sorted, in-range columns), or sell_chunk is negative (or, on
  /// GPUs, positive but not a power of two), or index_bits is not 0, 16 or 32, or 16 where a
  /// column lies farther than 32767 from its row in the level order.
  LevelOrderedMatrix(const CsrMatrix<Scalar, HostSpace>& a, const LevelMatrixOptions& options = {},
                     const ExecSpace& space = ExecSpace());

  ordinal_t nrows() const { return host_.nrows; }
  offset_t nnz() const { return host_.nnz(); }
  const Permutation& permutation() const { return perm_; }
  const std::vector<ordinal_t>& level_offsets() const { return level_offsets_; }
  MpkOrdering ordering() const { return ordering_; }                         // bfs or input (resolved)
  const CsrMatrix<Scalar, HostSpace>& host_matrix() const { return host_; }  // P A P^T
  const CsrMatrix<Scalar, MemSpace>& device_matrix() const { return device_; }
  const SellMatrix<Scalar, MemSpace>* sell_matrix() const { return sell_ ? sell_.get() : nullptr; }
  MpkFormat format() const { return format_; }  // csr or sell (resolved)
  int sell_chunk() const { return chunk_; }
  /// Bytes of a stored column index of the blocked kernels' format: 2 (SELL with 16-bit
  /// offsets from the row) or sizeof(ordinal_t).
  int column_bytes() const { return sell_ ? sell_->column_bytes() : static_cast<int>(sizeof(ordinal_t)); }
  spmv::SpmvAlgorithm baseline_algorithm() const { return baseline_->algorithm(); }
  std::string baseline_description() const { return baseline_->describe(); }
  spmv::SpmvOperator<ExecSpace, Scalar, MemSpace>& baseline() const { return *baseline_; }
  const Kokkos::View<ordinal_t*, MemSpace>& device_new_to_old() const { return new_to_old_; }
  const ExecSpace& space() const { return space_; }
  double setup_seconds() const { return setup_seconds_; }
  /// Stored entries of rows [row_begin, row_end) in the blocked kernels' format (SELL: the
  /// whole chunks that hold them, padding included).
  offset_t stored_entries(ordinal_t row_begin, ordinal_t row_end) const;
  /// Bytes of one row in the blocked kernels' format, for group sizing.
  double row_matrix_bytes(ordinal_t r) const;
  /// Bytes of the matrix in the blocked kernels' format.
  double matrix_bytes() const;

 private:
  ExecSpace space_;
  Permutation perm_;
  std::vector<ordinal_t> level_offsets_;
  CsrMatrix<Scalar, HostSpace> host_;
  CsrMatrix<Scalar, MemSpace> device_;
  std::shared_ptr<SellMatrix<Scalar, MemSpace>> sell_;
  std::vector<ordinal_t> host_chunk_len_;
  MpkFormat format_ = MpkFormat::csr;
  MpkOrdering ordering_ = MpkOrdering::bfs;
  int chunk_ = 8;
  std::shared_ptr<spmv::SpmvOperator<ExecSpace, Scalar, MemSpace>> baseline_;
  Kokkos::View<ordinal_t*, MemSpace> new_to_old_;
  double setup_seconds_ = 0;
};

/// What MatrixPowerKernel's setup planned for the options and the device: the schedule, the
/// kernels' geometry, the row blocks and the single-launch kernels' teams, and the cost model's
/// estimate. Read it through MatrixPowerKernel::plan() (tests, benchmarks, reports).
struct MpkPlan {
  MpkSchedule schedule;
  std::size_t cache_budget_bytes = 0;  ///< what the groups were cut for
  std::size_t last_level_cache = 0;    ///< of the device
  int team_size = 1, vector_length = 1;
  int row_batch = 1;  ///< entries a lane loads before its gathers: 1 (spmv's strided loop), 8 or 16
  ordinal_t rows_per_block = 0;
  long long blocks = 0;                         ///< row blocks x powers, in schedule order
  std::vector<long long> launch_block_offsets;  ///< where each launch of the schedule starts in them
  ordinal_t dependency_segments = 0;
  int persistent_teams = 1;
  /// Pipelined kernel: why it runs persistent instead (empty when it runs itself), its teams
  /// (launched, and those whose residency the plan counts on: R, at most the blocks), its reach
  /// in row blocks, the entries of a block its team scratch holds, the rows a thread computes at
  /// once (1 or 2), and the powers of each of its launches (passes; summing to p, empty where it
  /// falls back).
  std::string pipelined_fallback;
  int pipelined_teams = 0;
  int pipelined_guaranteed_teams = 0;
  long long pipelined_reach = 0;
  offset_t pipelined_scratch_entries = 0;
  int pipelined_rows_in_flight = 1;
  std::vector<int> pipelined_passes;
  MpkEstimate estimate;
};

/// The matrix power kernel Y(:, k) = A^k x, k = 1..p, for one matrix and p: the setup plans
/// (MpkPlan) and allocates once, apply() runs a variant (mpk/variants.def).
template <class ExecSpace, class Scalar, class MemSpace>
class MatrixPowerKernel;
namespace detail {
/// Each variant's launches over a kernel's plan and work array (core/src/mpk/variants/<id>.cpp).
#define PPSPARSE_MPK_VARIANT(id, summary) \
  template <class E, class S, class M>    \
  void run_##id(MatrixPowerKernel<E, S, M>& k);
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
}  // namespace detail

template <class ExecSpace, class Scalar, class MemSpace = typename ExecSpace::memory_space>
class MatrixPowerKernel {
 public:
  using Matrix = LevelOrderedMatrix<ExecSpace, Scalar, MemSpace>;
  using MultiVector = Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace>;
  using ConstVector = Kokkos::View<const Scalar*, MemSpace>;

  /// Builds the level-ordered matrix from `a` (options.matrix) and the schedule for options.powers.
  MatrixPowerKernel(const CsrMatrix<Scalar, HostSpace>& a, const MpkOptions& options,
                    const ExecSpace& space = ExecSpace());
  /// Shares an existing level-ordered matrix (cheap: one per p for the same matrix).
  MatrixPowerKernel(std::shared_ptr<Matrix> matrix, const MpkOptions& options);
  ~MatrixPowerKernel();
  MatrixPowerKernel(const MatrixPowerKernel&) = delete;
  MatrixPowerKernel& operator=(const MatrixPowerKernel&) = delete;

  /// Y(:, 0) = x and Y(:, k) = A^k x, k = 1..p, in the user's numbering. InvalidArgument
  /// unless x has n entries and Y is n x (p+1); ppsparse::Error if a persistent run stalled.
  void apply(MpkVariant variant, const ConstVector& x, const MultiVector& y);
  /// The same on work() in the level numbering: reads column 0, writes columns 1..p.
  void apply_internal(MpkVariant variant);
  /// n x (p+1) in the level numbering (row i is the user's row permutation().new_to_old[i]).
  const MultiVector& work() const { return work_; }

  int powers() const { return plan_.schedule.powers; }
  ordinal_t nrows() const { return matrix_->nrows(); }
  const Matrix& matrix() const { return *matrix_; }
  std::shared_ptr<Matrix> shared_matrix() const { return matrix_; }
  const Permutation& permutation() const { return matrix_->permutation(); }
  /// What the setup planned.
  const MpkPlan& plan() const { return plan_; }
  bool graph_is_native() const;
  MpkTraffic traffic() const;
  /// The variant that runs for `variant`: for automatic, its choice (decided on the first
  /// call, timing candidates if verify_automatic; this runs MPKs on work()); persistent for
  /// pipelined where pipelined_fallback() is not empty; any other variant unchanged.
  MpkVariant resolve(MpkVariant variant);
  /// What automatic's first call measured ("timed (us): back_to_back 238.2, pipelined 183.0, ...
  /// -> pipelined"), or why it did not time; empty before that call.
  const std::string& automatic_timing() const { return automatic_timing_; }
  /// Throws ppsparse::Error if a persistent run since the last check gave up waiting.
  void check_persistent_status() const;
  double setup_seconds() const { return setup_seconds_; }
  /// One line: p, format, groups, launches, budget, teams, baseline, the pipelined kernel's plan.
  std::string describe() const;

 private:
  struct Impl;
  // The variants' launches: run_<id>, one per line of variants.def, each in its own file.
#define PPSPARSE_MPK_VARIANT(id, summary) \
  template <class E, class S, class M>    \
  friend void detail::run_##id(MatrixPowerKernel<E, S, M>&);
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
  void plan_pipelined(offset_t largest_block_entries, long long team_bound, ordinal_t nrow_blocks);
  std::size_t pipelined_scratch_bytes(offset_t entries) const;  ///< the pipelined functor's, for `entries` kept
  bool pipelined_launch_accepted() const;                       ///< Kokkos accepts the planned team size and scratch
  std::vector<double> time_variants(const std::vector<MpkVariant>& variants);

  std::shared_ptr<Matrix> matrix_;
  MpkOptions options_;
  MpkPlan plan_;
  std::optional<MpkVariant> automatic_choice_;
  std::string automatic_timing_;
  std::uint64_t epoch_ = 0;  ///< detail::Counter; runs of persistent and pipelined
  MultiVector work_;
  double setup_seconds_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ppsparse::mpk

#pragma once
// Command-line and environment settings shared by the benchmark programs. Each flag may
// also be set by an environment variable (flag wins):
//   --matrix_mb=X   PPSPARSE_BENCH_MATRIX_MB  footprint of each generated large matrix in
//                   MiB (FP64 CSR); default 512 on GPUs (10x a 50 MB L2), 24 on CPUs
//   --copy_mb=X     PPSPARSE_BENCH_COPY_MB    total bytes of the copy-bandwidth views in MiB
//                   (source + destination); default 2048 on GPUs, 256 on CPUs
//   --reps=N        PPSPARSE_BENCH_REPS       Google Benchmark repetitions (median reported); 5
//   --min_time=S    PPSPARSE_BENCH_MIN_TIME   minimum seconds per repetition; 0.1
//   --shared_dir=P  PPSPARSE_SHARED_DIR       directory holding matrices/*.mtx, or the folder of
//                   the .mtx files itself ("" disables; none found: a "# no .mtx files" line)
//   --seed=N        PPSPARSE_BENCH_SEED       seed of the generated matrices; 2024
//   --reorder=R     PPSPARSE_BENCH_REORDER    bench_spmv: renumber every square matrix before
//                   its benchmarks, none (default), rcm (reverse Cuthill-McKee) or hubs (most
//                   used columns first); the matrices' names get "+rcm" or "+hubs"
//   --variants=L    PPSPARSE_BENCH_VARIANTS   bench_spmv: extra algorithm variants, a list
//                   "alg:options;alg:options" (options as spmv::parse_spmv_options), each
//                   benchmarked as "alg{options}" next to the defaults, e.g.
//                   --variants='csr_v2:v2.tile_nnz=2048;sell:sell.C=32'
// Google Benchmark's own flags (--benchmark_filter, --benchmark_out, ...) pass through.
#include <cstdint>
#include <string>
#include <vector>

namespace ppsparse::bench {

struct BenchConfig {
  double matrix_mb = 0;
  double copy_mb = 0;
  int reps = 5;
  double min_time = 0.1;
  std::string shared_dir;
  std::uint64_t seed = 2024;
  std::string variants;
  std::string reorder = "none";  // none, rcm or hubs (reordered_suite)
  bool gpu = false;
};

// One "--flag=value" of a benchmark program, also settable by an environment variable.
struct BenchFlag {
  const char* flag;   // "--name"
  const char* env;    // its environment variable
  std::string value;  // the default until set
  bool set = false;   // given by the environment or the command line
};

// Sets each flag from its environment variable, then from argv ("--flag=value" wins), and
// removes the consumed arguments from argv. The programs' own readers share this.
void take_bench_flags(std::vector<BenchFlag>& flags, int& argc, char** argv);

// Readers of a flag's text, shared by the benchmark programs. Each throws InvalidArgument with
// one line naming the flag and the text: "benchmark flag --x: '<text>' is not ...".
// A number (the whole text), > 0 when `positive`, else >= 0.
double flag_number(const std::string& flag, const std::string& text, bool positive);
// An integer (the whole text) in [lo, hi].
long long flag_integer(const std::string& flag, const std::string& text, long long lo, long long hi);
// The items of a comma-separated list, empty items dropped; "...: empty list" if none is left.
std::vector<std::string> flag_list(const std::string& flag, const std::string& text);

// Reads the flags above and removes them from argv (Kokkos' own flags must already have
// been consumed by Kokkos::initialize). Throws ppsparse::InvalidArgument on a malformed value.
BenchConfig parse_bench_config(int& argc, char** argv);

// One line describing the configuration, for stderr.
std::string describe(const BenchConfig& config);

}  // namespace ppsparse::bench

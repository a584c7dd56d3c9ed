#include "common/bench_config.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/kokkos_compat.hpp>

namespace ppsparse::bench {

double flag_number(const std::string& flag, const std::string& text, const bool positive) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || !(positive ? v > 0 : v >= 0))
    throw InvalidArgument("benchmark flag " + flag + ": '" + text + "' is not a " +
                          (positive ? "positive" : "nonnegative") + " number");
  return v;
}

long long flag_integer(const std::string& flag, const std::string& text, const long long lo, const long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi)
    throw InvalidArgument("benchmark flag " + flag + ": '" + text + "' is not an integer in [" + std::to_string(lo) +
                          ", " + std::to_string(hi) + "]");
  return v;
}

std::vector<std::string> flag_list(const std::string& flag, const std::string& text) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) items.push_back(item);
  if (items.empty()) throw InvalidArgument("benchmark flag " + flag + ": empty list");
  return items;
}

void take_bench_flags(std::vector<BenchFlag>& flags, int& argc, char** argv) {
  for (auto& f : flags)
    if (const char* v = std::getenv(f.env)) {
      f.value = v;
      f.set = true;
    }
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    bool consumed = false;
    for (auto& f : flags) {
      const std::string prefix = std::string(f.flag) + "=";
      if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
        f.value = argv[i] + prefix.size();
        f.set = true;
        consumed = true;
      }
    }
    if (!consumed) argv[kept++] = argv[i];
  }
  argc = kept;
}

BenchConfig parse_bench_config(int& argc, char** argv) {
  BenchConfig c;
  c.gpu = compat::is_gpu_space<Kokkos::DefaultExecutionSpace>();
  c.matrix_mb = c.gpu ? 512 : 24;
  c.copy_mb = c.gpu ? 2048 : 256;
  c.shared_dir = PPSPARSE_BENCH_SHARED_DIR;
  std::vector<BenchFlag> s{
      {"--matrix_mb", "PPSPARSE_BENCH_MATRIX_MB", ""}, {"--copy_mb", "PPSPARSE_BENCH_COPY_MB", ""},
      {"--reps", "PPSPARSE_BENCH_REPS", ""},           {"--min_time", "PPSPARSE_BENCH_MIN_TIME", ""},
      {"--shared_dir", "PPSPARSE_SHARED_DIR", ""},     {"--seed", "PPSPARSE_BENCH_SEED", ""},
      {"--variants", "PPSPARSE_BENCH_VARIANTS", ""},   {"--reorder", "PPSPARSE_BENCH_REORDER", ""}};
  take_bench_flags(s, argc, argv);
  if (s[0].set) c.matrix_mb = flag_number(s[0].flag, s[0].value, true);
  if (s[1].set) c.copy_mb = flag_number(s[1].flag, s[1].value, true);
  if (s[2].set) c.reps = static_cast<int>(flag_integer(s[2].flag, s[2].value, 1, 1000000));
  if (s[3].set) c.min_time = flag_number(s[3].flag, s[3].value, false);
  if (s[4].set) c.shared_dir = s[4].value;
  if (s[5].set)
    c.seed = static_cast<std::uint64_t>(flag_integer(s[5].flag, s[5].value, 0, std::numeric_limits<long long>::max()));
  if (s[6].set) c.variants = s[6].value;
  if (s[7].set) {
    if (s[7].value != "none" && s[7].value != "rcm" && s[7].value != "hubs")
      throw InvalidArgument(std::string("benchmark flag ") + s[7].flag + ": '" + s[7].value +
                            "' is not none, rcm or hubs");
    c.reorder = s[7].value;
  }
  return c;
}

std::string describe(const BenchConfig& c) {
  return std::string("backend ") + compat::default_backend_name() + ", matrix_mb " + std::to_string(c.matrix_mb) +
         ", copy_mb " + std::to_string(c.copy_mb) + ", reps " + std::to_string(c.reps) + ", min_time " +
         std::to_string(c.min_time) + ", seed " + std::to_string(c.seed) + ", shared_dir '" + c.shared_dir +
         "', reorder " + c.reorder;
}

}  // namespace ppsparse::bench

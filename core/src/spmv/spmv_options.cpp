#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <utility>

#include <ppsparse/spmv/spmv.hpp>

namespace ppsparse::spmv {

SpmvOptions parse_spmv_options(const std::string& text, const SpmvOptions& base) {
  SpmvOptions o = base;
  using Setter = std::function<void(long long)>;
  auto coop = [&o]() -> CoopParams& {
    if (!o.coop) o.coop = CoopParams{1, 1, compat::vector_width_for<DefaultExecSpace>()};
    return *o.coop;
  };
  const std::vector<std::pair<std::string, Setter>> keys{
      {"v2.team_threads", [&](long long v) { o.csr_v2.team_threads = static_cast<int>(v); }},
      {"v2.vector_length", [&](long long v) { o.csr_v2.vector_length = static_cast<int>(v); }},
      {"v2.tile_nnz", [&](long long v) { o.csr_v2.tile_nnz = v; }},
      {"v2.max_rows_per_block", [&](long long v) { o.csr_v2.max_rows_per_block = static_cast<ordinal_t>(v); }},
      {"v2.short_row_max", [&](long long v) { o.csr_v2.short_row_max = static_cast<ordinal_t>(v); }},
      {"v2.flat_row_max", [&](long long v) { o.csr_v2.flat_row_max = static_cast<ordinal_t>(v); }},
      {"v2.split_row_min", [&](long long v) { o.csr_v2.split_row_min = v; }},
      {"v2.split_tile_nnz", [&](long long v) { o.csr_v2.split_tile_nnz = v; }},
      {"v2.x_in_scratch", [&](long long v) { o.csr_v2.x_in_scratch = v != 0; }},
      {"v2.x_window", [&](long long v) { o.csr_v2.x_window = static_cast<ordinal_t>(v); }},
      {"coop.coop", [&](long long v) { coop().coop = static_cast<int>(v); }},
      {"coop.repeat", [&](long long v) { coop().repeat = static_cast<int>(v); }},
      {"coop.block_size", [&](long long v) { coop().block_size = static_cast<int>(v); }},
      {"coop.autotune", [&](long long v) { o.coop_autotune = v != 0; }},
      {"coop.tuner_runs_per_call", [&](long long v) { o.tuner.runs_per_call = static_cast<int>(v); }},
      {"coop.tuner_paired", [&](long long v) { o.tuner.paired = v != 0; }},
      {"coop.tuner_start_runs", [&](long long v) { o.tuner.start_runs = static_cast<int>(v); }},
      {"coop.tuner_shape", [&](long long v) { o.tuner.repeat_direction_from_shape = v != 0; }},
      {"sell.C", [&](long long v) { o.sell.C = static_cast<int>(v); }},
      {"sell.sigma", [&](long long v) { o.sell.sigma = static_cast<ordinal_t>(v); }},
      {"sell.hyb_row_max", [&](long long v) { o.sell.hyb_row_max = static_cast<ordinal_t>(v); }},
      {"sell.index_bits", [&](long long v) { o.sell.index_bits = static_cast<int>(v); }},
      {"check_structure", [&](long long v) { o.check_structure = v != 0; }},
      {"persist_x", [&](long long v) { o.persist_x = v != 0; }},
      {"streaming_loads", [&](long long v) { o.matrix_loads = v != 0 ? MatrixLoads::streaming : MatrixLoads::cached; }},
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string pair = text.substr(start, comma - start);
    start = comma + 1;
    if (pair.empty()) {
      if (comma == text.size()) break;
      continue;
    }
    const size_t eq = pair.find('=');
    if (eq == std::string::npos) throw InvalidArgument("spmv options: '" + pair + "': expected key=value");
    const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
    const Setter* setter = nullptr;
    std::string valid;
    for (const auto& [k, s] : keys) {
      if (k == key) setter = &s;
      valid += (valid.empty() ? "" : ", ") + k;
    }
    if (!setter) throw InvalidArgument("spmv options: '" + pair + "': unknown key (valid: " + valid + ")");
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE)
      throw InvalidArgument("spmv options: '" + pair + "': '" + value + "' is not an integer");
    if (v < -2147483648LL || v > 2147483647LL)
      throw InvalidArgument("spmv options: '" + pair + "': " + value + " is outside the 32-bit range");
    (*setter)(v);
  }
  return o;
}

}  // namespace ppsparse::spmv

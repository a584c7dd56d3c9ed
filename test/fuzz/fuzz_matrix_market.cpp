// libFuzzer harness of the Matrix Market reader (test/fuzz/README.md). Inputs whose size line
// declares more than 2^20 rows, columns or entries are read only up to the header: a valid
// file of that size needs memory in proportion, which is not a finding.
#include <cstdint>

#include <ppsparse/io/matrix_market.hpp>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ppsparse::fuzz::check_reader(data, size, ".mtx", [](const std::string& path) {
    const auto header = ppsparse::io::read_matrix_market_header(path);
    constexpr long long kMax = 1 << 20;
    if (header.nrows > kMax || header.ncols > kMax || header.entries > kMax) return;
    ppsparse::io::read_matrix_market<double>(path);
    ppsparse::io::MmReadOptions o;
    o.allow_nonfinite = true;
    o.duplicates = ppsparse::io::DuplicatePolicy::error;
    ppsparse::io::read_matrix_market<float>(path, o);
  });
  return 0;
}

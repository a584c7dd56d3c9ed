#pragma once
// Helpers shared by the tests: data locations and fresh random inputs.
#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/csr.hpp>

namespace ppsparse::test {

// ../shared beside the checkout (override with PPSPARSE_SHARED_DIR); empty if absent.
inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("PPSPARSE_SHARED_DIR")) return env;
  std::filesystem::path p = PPSPARSE_SHARED_DIR;
  return std::filesystem::exists(p) ? p : std::filesystem::path();
}

inline std::filesystem::path data_dir() { return PPSPARSE_TEST_DATA_DIR; }

// The message of the exception of type E that f() throws; "" when it throws none (another
// exception propagates and fails the test).
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

template <class F>
std::string invalid_argument_message(F&& f) {
  return message_of<InvalidArgument>(std::forward<F>(f));
}

// A seed that differs between runs (so tests see fresh inputs) but is printed on
// failure through SCOPED_TRACE by the caller; PPSPARSE_TEST_SEED pins it.
inline std::uint64_t fresh_seed() {
  if (const char* env = std::getenv("PPSPARSE_TEST_SEED")) return std::strtoull(env, nullptr, 10);
  return std::random_device{}();
}

// Random host CSR: each row gets a length drawn from [min_len, max_len] (capped at
// ncols), distinct sorted columns, values uniform in [-1, 1] (never all zero).
template <class Scalar>
CsrMatrix<Scalar, HostSpace> random_csr(ordinal_t nrows, ordinal_t ncols, int min_len, int max_len, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<std::vector<ordinal_t>> rows(static_cast<size_t>(nrows));
  offset_t nnz = 0;
  for (auto& r : rows) {
    int len = std::uniform_int_distribution<int>(min_len, max_len)(rng);
    len = std::min<int>(len, ncols);
    std::unordered_set<ordinal_t> used;
    while (static_cast<int>(r.size()) < len) {
      ordinal_t c = std::uniform_int_distribution<ordinal_t>(0, ncols - 1)(rng);
      if (used.insert(c).second) r.push_back(c);
    }
    std::sort(r.begin(), r.end());
    nnz += static_cast<offset_t>(r.size());
  }
  CsrMatrix<Scalar, HostSpace> a(nrows, ncols, nnz, "random");
  offset_t pos = 0;
  for (ordinal_t i = 0; i < nrows; ++i) {
    for (ordinal_t c : rows[i]) {
      a.col_idx(pos) = c;
      double v = val(rng);
      a.values(pos) = static_cast<Scalar>(v == 0.0 ? 0.5 : v);
      ++pos;
    }
    a.row_ptr(i + 1) = pos;
  }
  return a;
}

}  // namespace ppsparse::test

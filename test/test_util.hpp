#pragma once
// Helpers shared by the tests: data locations, seeds and random inputs.
#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <ppsparse/error.hpp>
#include <ppsparse/formats/csr.hpp>

#include "../core/src/util/to_device.hpp"

namespace ppsparse::test {

// ../shared beside the checkout (override with PPSPARSE_SHARED_DIR); empty if absent. Tests
// that need it skip without it: it is not part of the repository.
inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("PPSPARSE_SHARED_DIR")) return env;
  std::filesystem::path p = PPSPARSE_SHARED_DIR;
  return std::filesystem::exists(p) ? p : std::filesystem::path();
}

// test/data, committed with the tests (override with PPSPARSE_TEST_DATA_DIR, e.g. for a build
// run from another checkout). Never legitimately absent: a missing folder throws, which fails
// the calling test with the path in its message.
inline std::filesystem::path data_dir() {
  std::filesystem::path p = PPSPARSE_TEST_DATA_DIR;
  if (const char* env = std::getenv("PPSPARSE_TEST_DATA_DIR")) p = env;
  if (!std::filesystem::is_directory(p))
    throw std::runtime_error("committed test data missing: " + p.string() +
                             " (set PPSPARSE_TEST_DATA_DIR to the checkout's test/data)");
  return p;
}

// A committed file under test/data; throws (failing the test) with its path when absent.
inline std::filesystem::path data_file(const std::filesystem::path& relative) {
  const std::filesystem::path p = data_dir() / relative;
  if (!std::filesystem::is_regular_file(p)) throw std::runtime_error("committed test data missing: " + p.string());
  return p;
}

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

/// A scratch file `name` in the folder `folder` of the system's temporary directory (created).
inline std::string scratch_file(const std::string& folder, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / folder;
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

/// scratch_file(folder, name), written with `bytes`.
inline std::string write_scratch_file(const std::string& folder, const std::string& name, const std::string& bytes) {
  const std::string path = scratch_file(folder, name);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
    throw std::runtime_error("cannot write the scratch file " + path);
  std::fclose(f);
  return path;
}

// The base seed of every randomised test: fixed (kDefaultTestSeed) so that a run is
// reproducible, overridden by PPSPARSE_TEST_SEED (a decimal integer) to try other inputs.
inline constexpr std::uint64_t kDefaultTestSeed = 20261126;

inline std::uint64_t base_test_seed() {
  static const std::uint64_t base = [] {
    const char* env = std::getenv("PPSPARSE_TEST_SEED");
    if (!env) return kDefaultTestSeed;
    char* end = nullptr;
    const std::uint64_t v = std::strtoull(env, &end, 10);
    if (*env == '\0' || *end != '\0') {
      std::fprintf(stderr, "PPSPARSE_TEST_SEED = '%s' is not a decimal integer\n", env);
      std::exit(2);
    }
    return v;
  }();
  return base;
}

// The seed of a randomised test's inputs: the base seed mixed with the test's full name and a
// count of the calls made in this test, so that tests draw different inputs and one test run
// alone (--gtest_filter) draws the same ones. Printed to stderr before it is used, so that a
// crash or a watchdog exit still shows it.
inline std::uint64_t test_seed() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("(no test)");
  static std::string last_name;
  static int calls = 0;
  calls = name == last_name ? calls + 1 : 0;
  last_name = name;
  std::uint64_t h = base_test_seed() ^ 0x9e3779b97f4a7c15ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;  // FNV-1a over the name
  h += static_cast<std::uint64_t>(calls) * 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;  // splitmix64's finaliser
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  h ^= h >> 31;
  std::fprintf(stderr, "[seed] %s: PPSPARSE_TEST_SEED=%llu, call %d -> seed %llu\n", name.c_str(),
               static_cast<unsigned long long>(base_test_seed()), calls, static_cast<unsigned long long>(h));
  return h;
}

// A host vector's copy in the default memory space: the tests' device inputs.
template <class T>
Kokkos::View<T*, DefaultMemSpace> device_view(const std::vector<T>& v) {
  return util::to_device<T, DefaultMemSpace>(v, "test.device_view");
}

// n values uniform in [-1, 1), drawn from test_seed(): a fresh random input.
inline std::vector<double> random_vector(size_t n) {
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = u(rng);
  return x;
}

// Random host CSR: each row gets a length drawn from [min_len, max_len] (capped at
// ncols), distinct sorted columns, values uniform in [-1, 1] (never all zero).
template <class Scalar>
CsrMatrix<Scalar, HostSpace> random_csr(ordinal_t nrows, ordinal_t ncols, int min_len, int max_len,
                                        std::uint64_t seed) {
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

// Asserts that `statement` throws `exception` whose message contains `substring`: a bad-input
// test checks what the user is told, not only the type.
#define PPSPARSE_EXPECT_THROW_MESSAGE(statement, exception, substring)                                     \
  do {                                                                                                     \
    const std::string ppsparse_message_ = ::ppsparse::test::message_of<exception>([&] { statement; });     \
    EXPECT_NE(ppsparse_message_.find(substring), std::string::npos)                                        \
        << #statement " should throw " #exception " saying \"" << (substring) << "\"; it "                 \
        << (ppsparse_message_.empty() ? std::string("threw none") : "said \"" + ppsparse_message_ + "\""); \
  } while (0)

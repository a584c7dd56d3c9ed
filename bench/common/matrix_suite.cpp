#include "common/matrix_suite.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <random>

#include <ppsparse/gen/mesh_graph.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/error.hpp>
#include <ppsparse/formats/graph.hpp>
#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/reorder/permutation.hpp>
#include <ppsparse/reorder/rcm.hpp>

#include "common/synthetic_matrices.hpp"

namespace ppsparse::bench {

std::vector<MatrixSpec> shared_matrix_suite(const std::string& shared_dir) {
  std::vector<MatrixSpec> specs;
  if (shared_dir.empty()) return specs;
  // The shared folder (holding matrices/), or the folder of the .mtx files itself.
  std::vector<std::filesystem::path> files;
  for (const auto& dir : {std::filesystem::path(shared_dir) / "matrices", std::filesystem::path(shared_dir)}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".mtx") files.push_back(e.path());
    if (!files.empty()) break;
  }
  if (files.empty()) {
    // Not an error (the default folder may be absent on a benchmark machine), but never silent.
    std::cerr << "# no .mtx files in '" << shared_dir << "/matrices' or '" << shared_dir
              << "': the real matrices are skipped\n";
    return specs;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string path = f.string();
    specs.push_back({"mm_" + f.stem().string(), "shared", "Matrix Market file " + f.filename().string(),
                     [path] { return io::read_matrix_market<double>(path); }});
  }
  return specs;
}

std::vector<MatrixSpec> large_matrix_suite(double matrix_mb, std::uint64_t seed) {
  const double bytes = matrix_mb * 1024.0 * 1024.0;
  // Rows of an FP64 CSR matrix with `per_row` entries per row that fill `bytes`.
  auto rows_for = [bytes](double per_row) { return std::max(8.0, bytes / (per_row * 12.0 + 8.0)); };
  auto cube = [&](double per_row) { return static_cast<ordinal_t>(std::max(2.0, std::cbrt(rows_for(per_row)))); };
  auto n_of = [&](double per_row) { return static_cast<ordinal_t>(std::min(rows_for(per_row), 2.0e9)); };
  auto name = [](const std::string& base, long long size) { return base + "_" + std::to_string(size); };
  std::vector<MatrixSpec> s;

  const ordinal_t s7 = cube(7), s27 = cube(27), tet = cube(15), mixed = cube(18);
  s.push_back(
      {name("stencil7", s7), "large", "7-point stencil on a cube", [=] { return gen::stencil_7pt(s7, s7, s7, seed); }});
  s.push_back({name("stencil27", s27), "large", "27-point stencil on a cube",
               [=] { return gen::stencil_27pt(s27, s27, s27, seed + 1); }});
  const ordinal_t b7 = n_of(7), b65 = n_of(65), b401 = n_of(401);
  s.push_back(
      {name("band7", b7), "large", "band matrix, 7 per row", [=] { return gen::band_matrix(b7, 3, seed + 2); }});
  s.push_back(
      {name("band65", b65), "large", "band matrix, 65 per row", [=] { return gen::band_matrix(b65, 32, seed + 3); }});
  s.push_back({name("band401", b401), "large", "band matrix, 401 per row",
               [=] { return gen::band_matrix(b401, 200, seed + 4); }});
  s.push_back({name("tetmesh", tet), "large", "scalar matrix of a tetrahedral mesh graph (15 per row)",
               [=] { return gen::matrix_of_graph(gen::tet_mesh_graph(tet, tet, tet), seed + 5); }});
  s.push_back({name("tetmesh_shuffled", tet), "large",
               "the tetrahedral mesh matrix in a random numbering (no locality in x)", [=] {
                 auto a = gen::matrix_of_graph(gen::tet_mesh_graph(tet, tet, tet), seed + 5);
                 std::vector<ordinal_t> p(static_cast<size_t>(a.nrows));
                 std::iota(p.begin(), p.end(), 0);
                 std::shuffle(p.begin(), p.end(), std::mt19937_64(seed + 6));
                 return permute(a, Permutation::from_new_to_old(std::move(p)));
               }});
  s.push_back({name("mixedmesh", mixed), "large", "scalar matrix of a mixed-element mesh graph (~18 per row)",
               [=] { return gen::matrix_of_graph(gen::mixed_mesh_graph(mixed, mixed, mixed, seed + 7), seed + 8); }});
  const int scale16 = std::max(4, static_cast<int>(std::lround(std::log2(rows_for(16)))));
  const int scale8 = std::max(4, static_cast<int>(std::lround(std::log2(rows_for(8)))));
  s.push_back({name("rmat16", scale16), "large", "R-MAT power-law graph (a,b,c = 0.57,0.19,0.19), degree 16",
               [=] { return rmat_matrix(scale16, 16, 0.57, 0.19, 0.19, seed + 9); }});
  s.push_back({name("rmat8_skewed", scale8), "large", "R-MAT power-law graph (a,b,c = 0.65,0.15,0.15), degree 8",
               [=] { return rmat_matrix(scale8, 8, 0.65, 0.15, 0.15, seed + 10); }});
  const ordinal_t u8 = n_of(8), u32 = n_of(32), lr = n_of(8), wide = n_of(12);
  s.push_back({name("uniform8", u8), "large", "uniformly random columns, 4-12 per row",
               [=] { return uniform_random_matrix(u8, u8, 4, 12, seed + 11); }});
  s.push_back({name("uniform32", u32), "large", "uniformly random columns, 16-48 per row",
               [=] { return uniform_random_matrix(u32, u32, 16, 48, seed + 12); }});
  s.push_back({name("longrows", lr), "large", "band matrix (7 per row) with 16 rows of n/16 random entries", [=] {
                 return with_long_rows(gen::band_matrix(lr, 3, seed + 13), 16, std::max<ordinal_t>(lr / 16, 1),
                                       seed + 14);
               }});
  s.push_back({name("wide4x", wide), "large", "rectangular n x 4n, uniformly random, 8-16 per row",
               [=] { return uniform_random_matrix(wide, 4 * wide, 8, 16, seed + 15); }});
  return s;
}

namespace {

// Columns by their entries, most first (ties: the smaller column first), as new-to-old.
Permutation hubs_first(const CsrMatrix<double, HostSpace>& a) {
  std::vector<offset_t> uses(static_cast<size_t>(a.ncols), 0);
  for (offset_t k = 0; k < a.nnz(); ++k) ++uses[static_cast<size_t>(a.col_idx(k))];
  std::vector<ordinal_t> order(static_cast<size_t>(a.ncols));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](ordinal_t l, ordinal_t r) {
    return uses[static_cast<size_t>(l)] > uses[static_cast<size_t>(r)];
  });
  return Permutation::from_new_to_old(std::move(order));
}

}  // namespace

std::vector<MatrixSpec> reordered_suite(std::vector<MatrixSpec> specs, const std::string& how) {
  if (how == "none") return specs;
  if (how != "rcm" && how != "hubs") throw InvalidArgument("reordered_suite: '" + how + "' is not none, rcm or hubs");
  for (MatrixSpec& s : specs) {
    s.name += "+" + how;
    s.description +=
        how == "rcm" ? ", renumbered by RCM (if square)" : ", renumbered most used columns first (if square)";
    s.make = [make = s.make, how] {
      CsrMatrix<double, HostSpace> a = make();
      if (a.nrows != a.ncols) return a;
      return permute(a, how == "rcm" ? rcm(graph_of(a)) : hubs_first(a));
    };
  }
  return specs;
}

}  // namespace ppsparse::bench

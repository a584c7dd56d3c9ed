// Peak memory of the file readers against the size of what they return (docs/input.md,
// "Memory"). Generates large inputs, or reads one and reports the file's size, the result's
// size, the peak resident set above the process's size before the read, and the time:
//
//   reader_memory mtx PATH N          a 7-point stencil on an N^3 grid, as Matrix Market
//   reader_memory mesh PATH N         N^3 cubes split into 6 tetrahedra each, written in the
//                                     format of the name (.ugrid family, .msh = MSH 4.1 binary,
//                                     .ascii.msh = MSH 4.1 ASCII, .v22.msh = MSH 2.2 binary, .cgns)
//   reader_memory read PATH           read it (a .mtx or .mtx.gz as Matrix Market, else mesh::read)
#include <sys/resource.h>

#include <chrono>
#include <utility>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/gen/scalar_matrix.hpp>
#include <ppsparse/io/matrix_market.hpp>
#include <ppsparse/mesh/cgns_reader.hpp>
#include <ppsparse/mesh/gmsh_reader.hpp>
#include <ppsparse/mesh/read.hpp>
#include <ppsparse/mesh/ugrid_reader.hpp>

namespace {

using namespace ppsparse;

double mb(double bytes) { return bytes / (1024.0 * 1024.0); }

// The resident set now, from /proc/self/statm (pages).
double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long size = 0, resident = 0;
  statm >> size >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double peak_resident_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// n^3 unit cubes, each split into 6 tetrahedra around its main diagonal (Kuhn), positive volumes.
mesh::Mesh tet_box(int n) {
  mesh::Mesh m;
  m.dim = 3;
  const long long np = static_cast<long long>(n + 1) * (n + 1) * (n + 1);
  m.coords.reserve(static_cast<size_t>(3 * np));
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i)
        for (const int c : {i, j, k}) m.coords.push_back(c);
  const auto id = [&](int i, int j, int k) { return static_cast<ordinal_t>((k * (n + 1) + j) * (n + 1) + i); };
  const long long ne = 6LL * n * n * n;
  m.types.assign(static_cast<size_t>(ne), mesh::ElementType::tetrahedron);
  m.elem_ptr.resize(static_cast<size_t>(ne) + 1);
  for (long long e = 0; e <= ne; ++e) m.elem_ptr[static_cast<size_t>(e)] = 4 * e;
  m.elem_nodes.reserve(static_cast<size_t>(4 * ne));
  // Paths from corner 0 to corner 7 through the cube's vertices (bits x, y, z); each path's
  // orientation is taken from the unit cube once.
  static const int paths[6][2] = {{1, 3}, {1, 5}, {2, 3}, {2, 6}, {4, 5}, {4, 6}};
  bool flip[6];
  {
    mesh::Mesh unit;
    for (int b = 0; b < 8; ++b)
      for (int d = 0; d < 3; ++d) unit.coords.push_back((b >> d) & 1);
    for (int t = 0; t < 6; ++t) {
      unit.types = {mesh::ElementType::tetrahedron};
      unit.elem_ptr = {0, 4};
      unit.elem_nodes = {0, paths[t][0], paths[t][1], 7};
      flip[t] = mesh::element_signed_volume(unit, 0) < 0;
    }
  }
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const auto corner = [&](int b) { return id(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1)); };
        for (int t = 0; t < 6; ++t) {
          ordinal_t v[4] = {corner(0), corner(paths[t][0]), corner(paths[t][1]), corner(7)};
          if (flip[t]) std::swap(v[1], v[2]);
          m.elem_nodes.insert(m.elem_nodes.end(), v, v + 4);
        }
      }
  return m;
}

size_t mesh_bytes(const mesh::Mesh& m) {
  return m.coords.size() * sizeof(double) + m.types.size() * sizeof(mesh::ElementType) +
         m.elem_ptr.size() * sizeof(offset_t) + m.elem_nodes.size() * sizeof(ordinal_t);
}

int run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: reader_memory mtx PATH N | mesh PATH N | read PATH\n");
    return 2;
  }
  const std::string what = argv[1], path = argv[2];
  if (what == "mtx" && argc == 4) {
    const int n = std::atoi(argv[3]);
    io::write_matrix_market(path, gen::stencil_7pt(n, n, n, 1));
    return 0;
  }
  if (what == "mesh" && argc == 4) {
    const mesh::Mesh m = tet_box(std::atoi(argv[3]));
    if (ends_with(path, ".ugrid"))
      mesh::write_ugrid(path, m);
    else if (ends_with(path, ".ascii.msh"))
      mesh::write_gmsh(path, m, mesh::GmshVersion::v4_1, false);
    else if (ends_with(path, ".v22.msh"))
      mesh::write_gmsh(path, m, mesh::GmshVersion::v2_2, true);
    else if (ends_with(path, ".msh"))
      mesh::write_gmsh(path, m, mesh::GmshVersion::v4_1, true);
    else if (ends_with(path, ".cgns"))
      mesh::write_cgns(path, {m});
    else
      throw InvalidArgument("reader_memory: no writer for '" + path + "'");
    return 0;
  }
  if (what != "read" || argc != 3) {
    std::fprintf(stderr, "usage: reader_memory mtx PATH N | mesh PATH N | read PATH\n");
    return 2;
  }
  const double before = resident_bytes();
  const auto t0 = std::chrono::steady_clock::now();
  size_t result = 0;
  std::string shape;
  if (ends_with(path, ".mtx") || ends_with(path, ".mtx.gz")) {
    const auto a = io::read_matrix_market<double>(path);
    result =
        a.row_ptr.span() * sizeof(offset_t) + a.col_idx.span() * sizeof(ordinal_t) + a.values.span() * sizeof(double);
    shape = std::to_string(a.nrows) + " rows, " + std::to_string(a.col_idx.extent(0)) + " entries";
  } else {
    const mesh::Mesh m = mesh::read(path);
    result = mesh_bytes(m);
    shape = std::to_string(m.npoints()) + " points, " + std::to_string(m.nelements()) + " elements";
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double peak = peak_resident_bytes() - before;
  const double file = static_cast<double>(std::filesystem::file_size(path));
  std::printf(
      "%s: %s\n  file %.0f MB, result %.0f MB, peak RSS above the start %.0f MB = %.2f x the result, %.2f x the file; "
      "%.1f s\n",
      path.c_str(), shape.c_str(), mb(file), mb(static_cast<double>(result)), mb(peak),
      peak / static_cast<double>(result), peak / file, seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(argc, argv);
  } catch (const ppsparse::Error& e) {
    std::fprintf(stderr, "reader_memory: %s\n", e.what());
    return 1;
  }
}

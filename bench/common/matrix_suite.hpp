#pragma once
// The matrices kernels are benchmarked on:
//  * "shared": every .mtx file of <shared_dir>/matrices (real structure, but small: they fit in
//    a GPU's L2 cache, so they measure caches, not DRAM);
//  * "large": generated matrices, each sized to about matrix_mb MiB of FP64 CSR (values,
//    column indices, row pointers), i.e. 5-50x a GPU's L2 at the GPU default (512 MiB), so
//    that they measure memory bandwidth.
// Specs are cheap; make() builds the matrix (seconds for the large ones), so a benchmark
// program builds only the matrices its filter selects.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ppsparse/formats/csr.hpp>

namespace ppsparse::bench {

struct MatrixSpec {
  std::string name;   // unique, no '/' (used in benchmark names)
  std::string group;  // "shared" or "large"
  std::string description;
  std::function<CsrMatrix<double, HostSpace>()> make;
};

// The .mtx files of shared_dir/matrices (or of shared_dir itself), sorted by file name; empty,
// with a "# no .mtx files" line on stderr, when there are none ("" disables without a line).
std::vector<MatrixSpec> shared_matrix_suite(const std::string& shared_dir);

// At least 12 matrices: 7-pt and 27-pt stencils, band matrices (7, 65, 401 per row), a
// tetrahedral-mesh matrix in natural and in shuffled numbering, a mixed-element mesh
// matrix, two R-MAT power-law graphs, uniformly random matrices (8 and 32 per row), a band
// matrix with a few very long rows, and a wide rectangular random matrix.
std::vector<MatrixSpec> large_matrix_suite(double matrix_mb, std::uint64_t seed);

// The specs with every square matrix renumbered symmetrically (P A P^T) when built: "rcm"
// (reverse Cuthill-McKee of the symmetrised pattern) or "hubs" (columns by their entries, most
// first, ties in the old order: the x entries most gathered become contiguous). Names get
// "+rcm" or "+hubs"; a rectangular matrix keeps its numbering (its description says so).
// "none" returns the specs unchanged.
std::vector<MatrixSpec> reordered_suite(std::vector<MatrixSpec> specs, const std::string& how);

}  // namespace ppsparse::bench

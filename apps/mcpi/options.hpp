#pragma once
// Command-line options of the mcpi mini-app.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mcpi/tuning.hpp>
#include <ppsparse/mcpi/variant.hpp>
#include <ppsparse/types.hpp>

#include "common/option_values.hpp"

namespace mcpi_app {

struct Options {
  enum class Source { builtin, matrix, mesh };
  Source source = Source::builtin;
  std::string path;              // --matrix / --mesh file
  int block = 5;                 // nb
  int refine = 0;                // --refine K (meshes)
  int zone = 0;                  // --zone K (multizone meshes); 0: every zone
  ppsparse::ordinal_t grid = 0;  // built-in problem: grid edge (0: per-backend default)
  int sweeps = 15;
  std::vector<ppsparse::mcpi::Variant> variants;  // empty: all
  std::string json;                               // --json FILE
  std::uint64_t seed = 2026;
  bool pattern_only = false;            // --matrix: synthetic FUN3D-like values on the file's pattern
  bool stage_diagonal = false;          // --stage-diagonal
  bool portable = false;                // --portable: no backend-specialised kernels
  int recolor_passes = 0;               // --recolor-passes P: iterated-greedy passes after the colouring
  ppsparse::mcpi::OStorage o_storage;   // --o-format F, --o-keep-fp32, --o-keep-fp64, --lu-fp32
  int mpk = 0;                          // --mpk P: run the matrix power kernel y_k = A^k x, k = 1..P
  int steps = 0;                        // --steps N: a time-step loop of N steps (update + solve each)
  double rtol = 0;                      // --rtol X: the steps' relative tolerance (0: --sweeps sweeps)
  int check_interval = 5;               // --check-interval K: residual check every K sweeps
  bool fgmres = false;                  // --fgmres: the steps solve by FGMRES + MCPI (--sweeps per preconditioner)
  bool multigrid = false;               // --multigrid: FGMRES preconditioned by an aggregation multigrid cycle
  ppsparse::mcpi::MultigridOptions mg;  // --mg-cycle, --mg-levels, ... (multigrid_options.hpp)
  bool mg_option_given = false;
  int verify = -1;  // -1 auto (small problems), 0 off, 1 on
  // Under mpirun (more than one rank): how messages travel (automatic, staged, mpi_device)
  // and whether to print each colour's rows, bytes and wait.
  std::string transport = "automatic";
  std::string halo_coloring = "partition_independent";  // --halo-coloring NAME (distributed::HaloColoring)
  std::string partitioner = "metis";                    // --partitioner: metis (on rank 0) or zoltan (distributed)
  bool per_colour = false;
  bool distributed = false;       // --distributed: the distributed mode on one rank too
  bool probe_link = false;        // --probe-link: time exchanges between rank pairs (scaling model)
  bool graph = false;             // --graph: each timed sweep a replay of a recorded device graph
  bool exchange_priority = true;  // --exchange-priority 0|1 (DistributedOptions::priority_exchange)
  // --test-perturb-reference E: for the test suite only. One entry of the reference that
  // --verify (and --mpk's check) compares with is moved by E times its magnitude, so that a
  // test can show that a wrong result makes mcpi fail. 0: off.
  double test_perturb_reference = 0;
  bool help = false;
  // Settings of the CUDA kernels: --small-colour, --row-slots, --wide-split, --wide-prefetch,
  // --dependent-launch, each also read from the environment variable the library read before
  // they became options (PPSPARSE_MCPI_CUDA_SMALL, _SLOTS, _WIDE_SPLIT, _PREFETCH, _PDL), so that
  // the commands in docs/perf still run; the option wins.
  ppsparse::mcpi::KernelTuning tuning;
};

// --test-perturb-reference: moves entry i of ref by e times its magnitude (by e where it is 0)
// and says so on stdout. For the test suite only.
void perturb_reference_entry(std::vector<double>& ref, std::size_t i, double e);

// Parses argv (Kokkos' own --kokkos-* flags already removed). Throws
// ppsparse::InvalidArgument with a one-line message naming the option.
Options parse_options(int argc, const char* const* argv);
std::string help_text();

}  // namespace mcpi_app

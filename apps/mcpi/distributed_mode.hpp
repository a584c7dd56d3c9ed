#pragma once
// mcpi under mpirun (more than one rank): rank 0 builds the problem (reads and refines the
// mesh), partitions its graph with METIS and sends each rank its rows with their ghosts; every
// rank sets up the distributed solver and runs --sweeps timed sweeps. Prints per rank the owned
// rows, ghosts and the ghost fraction, the bytes it sent per sweep and its share of time spent
// waiting on messages; overall the bytes exchanged per sweep, the time per sweep, the residual
// and (--per-colour) each colour's rows, bytes and wait. --verify compares dQ with the
// one-rank solver in the same colouring on rank 0. Returns 0, 1 on a failed check; errors are
// agreed by every rank (one line on rank 0's stderr, status 2).
#include <mpi.h>

#include "options.hpp"

namespace mcpi_app {

int run_distributed_mode(const Options& options, MPI_Comm comm);

}  // namespace mcpi_app

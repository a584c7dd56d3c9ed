// PCMCPI: ppsparse's MCPI solver (or its multigrid) behind PETSc's PC interface
// (ppsparse/petsc/pc_mcpi.h). PETSc's PC implementations fill the private ops table, as this
// one does; every C++ exception becomes a PETSc error here, agreed by every rank first.
#include <ppsparse/petsc/pc_mcpi.h>

#include <petsc/private/pcimpl.h>

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <ppsparse/c/mcpi.h>
#include <ppsparse/distributed/collective.hpp>
#include <ppsparse/mcpi/distributed.hpp>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/solver.hpp>

#include "block_rows.hpp"

namespace {

using namespace ppsparse;
using petsc::BlockRows;
using Exec = DefaultExecSpace;

/// What the options choose; a setup made with other choices is made again.
struct Choices {
  mcpi::OFormat o_format = mcpi::OFormat::fp32;
  bool lu_fp32 = false;
  bool multigrid = false;
  mcpi::MultigridOptions multigrid_options;
  friend bool operator==(const Choices& a, const Choices& b) {
    return a.o_format == b.o_format && a.lu_fp32 == b.lu_fp32 && a.multigrid == b.multigrid &&
           a.multigrid_options == b.multigrid_options;
  }
};

struct PcMcpi {
  int sweeps = mcpi::FgmresControl{}.sweeps;
  mcpi::Variant variant = mcpi::Variant::automatic();
  Choices choices;

  Choices set_up_with;
  BlockRows rows;
  std::vector<double> O, D;
  std::unique_ptr<mcpi::Solver<Exec>> solver;
  std::unique_ptr<mcpi::Multigrid<Exec>> multigrid;
  mcpi::Solver<Exec>::Vector user, internal_v, internal_z;  // the multigrid cycle's vectors
  PetscInt setups = 0, updates = 0;

  mcpi::Solver<Exec>* fine() const { return multigrid ? &multigrid->fine() : solver.get(); }
  void reset() {
    multigrid.reset();
    solver.reset();
    user = internal_v = internal_z = {};
    O.clear();
    D.clear();
  }
};

PcMcpi* context(PC pc) { return static_cast<PcMcpi*>(pc->data); }

const char* const cycle_names[] = {"v", "w", "k"};

/// The PETSc error code for an exception.
PetscErrorCode code_of(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return PETSC_ERR_MEM;
  if (dynamic_cast<const NumericalError*>(&e))
    return std::string(e.what()).find("pivot") != std::string::npos ? PETSC_ERR_MAT_LU_ZRPVT : PETSC_ERR_FP;
  if (dynamic_cast<const InvalidArgument*>(&e)) return PETSC_ERR_ARG_WRONG;
  return PETSC_ERR_LIB;
}

/// The exception as a PETSc error (raised on every rank of comm: errors of the distributed
/// solver are thrown on every rank already, the PC's own are agreed first).
PetscErrorCode raise(MPI_Comm comm, const std::exception& e) {
  std::string message = e.what();
  if (message.rfind("PCMCPI", 0) != 0) message = "PCMCPI: " + message;
  SETERRQ(comm, code_of(e), "%s", message.c_str());
}

/// A host vector as an unmanaged view.
template <class T>
Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged> host_view(const std::vector<T>& v) {
  return Kokkos::View<const T*, HostSpace, Kokkos::MemoryUnmanaged>(v.data(), v.size());
}

/// The gathered values into the solver (or the multigrid's every level).
void load_values(PcMcpi& c) {
  Exec exec;
  if (c.multigrid)
    c.multigrid->update(exec, host_view(c.O), host_view(c.D));
  else
    c.solver->update(exec, host_view(c.O), host_view(c.D));
}

/// The first setup: the block rows, the solver (one rank: mcpi::Solver or mcpi::Multigrid;
/// several: the distributed solver over the matrix's row distribution) and the values.
void set_up(MPI_Comm comm, PcMcpi& c, Mat A) {
  c.reset();
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  distributed::collectively(comm, [&] {
    if (c.choices.multigrid && ranks > 1)
      throw InvalidArgument("PCMCPI: -pc_mcpi_multigrid runs on one rank; this communicator has " +
                            std::to_string(ranks));
    c.rows = petsc::block_rows(A);
    const size_t nb2 = static_cast<size_t>(c.rows.nb) * c.rows.nb;
    c.O.assign(static_cast<size_t>(c.rows.nnzb()) * nb2, 0.0);
    c.D.assign(static_cast<size_t>(c.rows.n) * nb2, 0.0);
    petsc::gather_values(A, c.rows, c.O, c.D);
  });
  mcpi::SetupOptions setup;
  setup.o_storage.format = c.choices.o_format;
  setup.o_storage.lu_fp32 = c.choices.lu_fp32;
  if (ranks == 1) {
    mcpi::BlockPattern<HostSpace> pattern{c.rows.nb, c.rows.n, host_view(c.rows.row_ptr), host_view(c.rows.col_idx)};
    if (c.choices.multigrid) {
      c.multigrid = std::make_unique<mcpi::Multigrid<Exec>>(pattern, c.choices.multigrid_options, setup);
    } else {
      c.solver = std::make_unique<mcpi::Solver<Exec>>(pattern, setup);
    }
  } else {
    mcpi::DistributedPattern<HostSpace> pattern{c.rows.nb,
                                                c.rows.n,
                                                host_view(c.rows.row_ptr),
                                                host_view(c.rows.col_idx),
                                                host_view(c.rows.global_ids),
                                                host_view(c.rows.ghost_ids)};
    mcpi::DistributedOptions options;
    options.o_storage = setup.o_storage;
    c.solver = std::make_unique<mcpi::Solver<Exec>>(mcpi::make_distributed_solver<Exec>(comm, pattern, options));
  }
  load_values(c);
  if (c.multigrid) {
    const size_t len = static_cast<size_t>(c.rows.n) * c.rows.nb;
    c.user = mcpi::Solver<Exec>::Vector("PCMCPI user vector", len);
    c.internal_v = mcpi::Solver<Exec>::Vector("PCMCPI v", len);
    c.internal_z = mcpi::Solver<Exec>::Vector("PCMCPI z", len);
  }
  c.set_up_with = c.choices;
  ++c.setups;
}

/// New values into the existing setup; false (on every rank) where some rank's rows no longer
/// match it.
bool update(MPI_Comm comm, PcMcpi& c, Mat A) {
  int matches = 1;
  distributed::collectively(comm, [&] { matches = petsc::gather_values(A, c.rows, c.O, c.D) ? 1 : 0; });
  MPI_Allreduce(MPI_IN_PLACE, &matches, 1, MPI_INT, MPI_MIN, comm);
  if (!matches) return false;
  load_values(c);
  ++c.updates;
  return true;
}

PetscErrorCode PCSetUp_Mcpi(PC pc) {
  PcMcpi& c = *context(pc);
  const MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(pc));
  PetscFunctionBegin;
  try {
    PetscObjectState state = 0;
    petsc::check_petsc(MatGetNonzeroState(pc->pmat, &state), "MatGetNonzeroState");
    // PETSc's flag says whether the pattern changed; the PC's own record and choices must agree.
    int same = c.fine() && pc->setupcalled && pc->flag != DIFFERENT_NONZERO_PATTERN && state == c.rows.nonzero_state &&
               c.choices == c.set_up_with;
    MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, comm);
    if (!same || !update(comm, c, pc->pmat)) set_up(comm, c, pc->pmat);
  } catch (const std::exception& e) {
    c.reset();  // the next PCSetUp sets up anew
    PetscCall(raise(comm, e));
  }
  PetscFunctionReturn(0);
}

/// f(view) with a view of PETSc's array: in place where ppsparse's device reads it, else the
/// host array (which the solver stages).
template <class Scalar, class F>
void with_view(Scalar* data, PetscMemType type, size_t length, F&& f) {
  using Memory = Exec::memory_space;
  if constexpr (!std::is_same_v<Memory, HostSpace>) {
    if (PetscMemTypeDevice(type)) {
      f(Kokkos::View<Scalar*, Memory, Kokkos::MemoryUnmanaged>(data, length));
      return;
    }
  }
  (void)type;
  f(Kokkos::View<Scalar*, HostSpace, Kokkos::MemoryUnmanaged>(data, length));
}

/// Whether ppsparse's device reads arrays of this PETSc memory type where they are.
bool readable_in_place(PetscMemType type) {
  return PetscMemTypeHost(type) || !std::is_same_v<Exec::memory_space, HostSpace>;
}

PetscErrorCode PCApply_Mcpi(PC pc, Vec b, Vec x) {
  PcMcpi& c = *context(pc);
  const MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(pc));
  PetscFunctionBegin;
  const PetscScalar* pb = nullptr;
  PetscScalar* px = nullptr;
  PetscMemType tb = PETSC_MEMTYPE_HOST, tx = PETSC_MEMTYPE_HOST;
  // Each array is restored by the call that matches the one that got it.
  PetscCall(VecGetArrayReadAndMemType(b, &pb, &tb));
  const bool b_typed = readable_in_place(tb);
  if (!b_typed) {
    PetscCall(VecRestoreArrayReadAndMemType(b, &pb));
    PetscCall(VecGetArrayRead(b, &pb));
    tb = PETSC_MEMTYPE_HOST;
  }
  PetscCall(VecGetArrayWriteAndMemType(x, &px, &tx));
  const bool x_typed = readable_in_place(tx);
  if (!x_typed) {
    PetscCall(VecRestoreArrayWriteAndMemType(x, &px));
    PetscCall(VecGetArrayWrite(x, &px));
    tx = PETSC_MEMTYPE_HOST;
  }
  std::exception_ptr failure;
  try {
    const size_t length = static_cast<size_t>(c.rows.n) * c.rows.nb;
    Exec exec;
    if (c.multigrid) {
      mcpi::Solver<Exec>& fine = c.multigrid->fine();
      with_view(pb, tb, length, [&](const auto& v) { Kokkos::deep_copy(exec, c.user, v); });
      fine.to_internal(exec, c.user, c.internal_v);
      c.multigrid->precondition(exec, c.internal_v, c.internal_z);
      fine.to_user(exec, c.internal_z, c.user);
      with_view(px, tx, length, [&](const auto& v) { Kokkos::deep_copy(exec, v, c.user); });
    } else {
      mcpi::Control control;
      control.max_sweeps = c.sweeps;
      control.check_interval = 0;
      control.final_residual = false;  // PETSc's Krylov method measures its own residuals
      control.variant = c.variant;
      with_view(pb, tb, length, [&](const auto& rv) {
        with_view(px, tx, length, [&](const auto& xv) { c.solver->apply(exec, rv, xv, control); });
      });
    }
    exec.fence();
  } catch (const std::exception&) {
    failure = std::current_exception();
  }
  if (b_typed)
    PetscCall(VecRestoreArrayReadAndMemType(b, &pb));
  else
    PetscCall(VecRestoreArrayRead(b, &pb));
  if (x_typed)
    PetscCall(VecRestoreArrayWriteAndMemType(x, &px));
  else
    PetscCall(VecRestoreArrayWrite(x, &px));
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      PetscCall(raise(comm, e));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PCReset_Mcpi(PC pc) {
  PetscFunctionBegin;
  context(pc)->reset();
  PetscFunctionReturn(0);
}

PetscErrorCode PCDestroy_Mcpi(PC pc) {
  PetscFunctionBegin;
  delete context(pc);
  pc->data = nullptr;
  PetscFunctionReturn(0);
}

PetscErrorCode PCSetFromOptions_Mcpi(PC pc, PetscOptionItems* PetscOptionsObject) {
  PcMcpi& c = *context(pc);
  const MPI_Comm comm = PetscObjectComm(reinterpret_cast<PetscObject>(pc));
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "MCPI options (ppsparse)");
  PetscInt sweeps = c.sweeps;
  PetscBool set = PETSC_FALSE;
  PetscCall(PetscOptionsInt("-pc_mcpi_sweeps", "MCPI sweeps per application, from zero (>= 1)", "PCMCPI", sweeps,
                            &sweeps, &set));
  PetscCheck(sweeps >= 1 && sweeps <= 1000000, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "PCMCPI: -pc_mcpi_sweeps %" PetscInt_FMT " is outside 1..1000000", sweeps);
  c.sweeps = static_cast<int>(sweeps);

  std::vector<const char*> formats;
  for (const mcpi::OFormat f : mcpi::all_o_formats()) formats.push_back(mcpi::name(f));
  PetscInt format = static_cast<PetscInt>(c.choices.o_format);
  PetscCall(PetscOptionsEList("-pc_mcpi_o_format", "How the sweeps store O (the off-diagonal blocks)", "PCMCPI",
                              formats.data(), static_cast<PetscInt>(formats.size()), formats[format], &format, &set));
  c.choices.o_format = mcpi::all_o_formats()[static_cast<size_t>(format)];
  PetscBool lu_fp32 = c.choices.lu_fp32 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsBool("-pc_mcpi_lu_fp32", "The sweeps read the diagonal blocks' LU factors in FP32", "PCMCPI",
                             lu_fp32, &lu_fp32, &set));
  c.choices.lu_fp32 = lu_fp32 == PETSC_TRUE;

  char variant[256];
  PetscCall(PetscStrncpy(variant, mcpi::name(c.variant).c_str(), sizeof(variant)));
  PetscCall(PetscOptionsString("-pc_mcpi_variant",
                               "The sweep kernel: auto, or a kernel of ppsparse/mcpi/kernels.def with _l2, _async",
                               "PCMCPI", variant, variant, sizeof(variant), &set));
  try {
    c.variant = mcpi::parse_variant(variant);
  } catch (const std::exception& e) {
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCMCPI: -pc_mcpi_variant: %s", e.what());
  }

  PetscBool multigrid = c.choices.multigrid ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsBool("-pc_mcpi_multigrid",
                             "One aggregation multigrid cycle with MCPI sweeps as smoother (one rank; use FGMRES)",
                             "PCMCPI", multigrid, &multigrid, &set));
  c.choices.multigrid = multigrid == PETSC_TRUE;
  mcpi::MultigridOptions& mg = c.choices.multigrid_options;
  PetscInt cycle = static_cast<PetscInt>(mg.cycle);
  PetscCall(PetscOptionsEList("-pc_mcpi_mg_cycle", "The multigrid cycle", "PCMCPI", cycle_names, 3, cycle_names[cycle],
                              &cycle, &set));
  mg.cycle = static_cast<mcpi::MultigridOptions::Cycle>(cycle);
  PetscInt coarse_rows = mg.coarse_rows;
  PetscCall(PetscOptionsInt("-pc_mcpi_mg_coarse_rows", "Multigrid: coarsen until at most this many block rows",
                            "PCMCPI", coarse_rows, &coarse_rows, &set));
  PetscCheck(coarse_rows >= 1 && coarse_rows <= ppsparse::max_ordinal, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "PCMCPI: -pc_mcpi_mg_coarse_rows %" PetscInt_FMT " is outside 1..2^31 - 1", coarse_rows);
  mg.coarse_rows = static_cast<ordinal_t>(coarse_rows);
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

PetscErrorCode PCView_Mcpi(PC pc, PetscViewer viewer) {
  PcMcpi& c = *context(pc);
  PetscBool ascii = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(viewer), PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(0);
  std::string what;
  if (c.choices.multigrid)
    what = std::string("one ") + cycle_names[static_cast<int>(c.choices.multigrid_options.cycle)] +
           "-cycle of aggregation multigrid, MCPI sweeps smoothing";
  else
    what = std::to_string(c.sweeps) + " MCPI sweeps from zero";
  PetscCall(PetscViewerASCIIPrintf(viewer, "  ppsparse: %s, O stored in %s, D's LU factors read in %s\n", what.c_str(),
                                   mcpi::name(c.choices.o_format), c.choices.lu_fp32 ? "FP32" : "FP64"));
  if (const mcpi::Solver<Exec>* s = c.fine()) {
    const std::string kernel = s->kernel_name(Exec(), c.variant);
    long long sizes[2] = {s->n(), s->nnzb()};  // over all ranks
    MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_LONG_LONG, MPI_SUM, PetscObjectComm(reinterpret_cast<PetscObject>(pc)));
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "  blocks of %d: %lld block rows, %lld off-diagonal blocks, %d colours; kernel %s\n", s->nb(), sizes[0],
        sizes[1], static_cast<int>(s->coloring().ncolors), kernel.c_str()));
    if (c.multigrid) {
      std::string levels;
      for (const mcpi::MultigridLevel& l : c.multigrid->levels())
        levels += (levels.empty() ? "" : ", ") + std::to_string(l.n);
      PetscCall(PetscViewerASCIIPrintf(viewer, "  levels (block rows): %s\n", levels.c_str()));
    }
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  setups %" PetscInt_FMT ", numeric updates %" PetscInt_FMT "\n", c.setups,
                                   c.updates));
  PetscFunctionReturn(0);
}

PetscErrorCode PCCreate_Mcpi(PC pc) {
  PetscFunctionBegin;
  pc->data = new PcMcpi;
  pc->ops->setup = PCSetUp_Mcpi;
  pc->ops->apply = PCApply_Mcpi;
  pc->ops->reset = PCReset_Mcpi;
  pc->ops->destroy = PCDestroy_Mcpi;
  pc->ops->setfromoptions = PCSetFromOptions_Mcpi;
  pc->ops->view = PCView_Mcpi;
  PetscFunctionReturn(0);
}

PetscErrorCode finalize_kokkos() {
  PetscFunctionBegin;
  PetscCheck(ppsparse_finalize() == PPSPARSE_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCMCPI: %s",
             ppsparse_last_error());
  PetscFunctionReturn(0);
}

bool registered = false;

}  // namespace

extern "C" PetscErrorCode PCMcpiRegister(void) {
  PetscFunctionBegin;
  if (registered) PetscFunctionReturn(0);
  PetscCheck(ppsparse_initialize() == PPSPARSE_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "PCMCPI: %s",
             ppsparse_last_error());
  PetscCall(PetscRegisterFinalize(finalize_kokkos));
  PetscCall(PCRegister(PCMCPI, PCCreate_Mcpi));
  registered = true;
  PetscFunctionReturn(0);
}

extern "C" PetscErrorCode PetscDLLibraryRegister_ppsparse_petsc(void) { return PCMcpiRegister(); }

extern "C" PetscErrorCode PCMcpiGetSetupCounts(PC pc, PetscInt* setups, PetscInt* updates) {
  PetscBool is_mcpi = PETSC_FALSE;
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCMCPI, &is_mcpi));
  PetscCheck(is_mcpi, PetscObjectComm(reinterpret_cast<PetscObject>(pc)), PETSC_ERR_ARG_WRONG,
             "PCMcpiGetSetupCounts: the PC is not of type mcpi");
  if (setups) *setups = context(pc)->setups;
  if (updates) *updates = context(pc)->updates;
  PetscFunctionReturn(0);
}

// The C interface of the MCPI solver: every entry point catches every exception and turns it
// into a return code and a per-thread message (mcpi_handle.hpp); FGMRES is in mcpi_fgmres.cpp.
#include <ppsparse/c/mcpi.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/solver.hpp>

#include "mcpi_handle.hpp"

namespace ppsparse::c_binding {

using ppsparse::DefaultExecSpace;
using ppsparse::DefaultMemSpace;
using ppsparse::HostSpace;
using ppsparse::InvalidArgument;
namespace mcpi = ppsparse::mcpi;

// The C constants name the lines of mcpi/o_formats.def by position.
static_assert(PPSPARSE_O_FP32 == static_cast<int>(mcpi::OFormat::fp32) &&
                  PPSPARSE_O_BF16 == static_cast<int>(mcpi::OFormat::bf16) &&
                  PPSPARSE_O_FP16 == static_cast<int>(mcpi::OFormat::fp16) &&
                  PPSPARSE_O_INT8 == static_cast<int>(mcpi::OFormat::int8),
              "c/mcpi.h's PPSPARSE_O_* and mcpi/o_formats.def disagree");

static_assert(PPSPARSE_CYCLE_V == static_cast<int>(mcpi::MultigridOptions::Cycle::v) &&
                  PPSPARSE_CYCLE_W == static_cast<int>(mcpi::MultigridOptions::Cycle::w) &&
                  PPSPARSE_CYCLE_K == static_cast<int>(mcpi::MultigridOptions::Cycle::k) &&
                  PPSPARSE_SCALING_AUTO == static_cast<int>(mcpi::MultigridOptions::Scaling::automatic) &&
                  PPSPARSE_SCALING_RESIDUAL == static_cast<int>(mcpi::MultigridOptions::Scaling::residual),
              "c/mcpi.h's PPSPARSE_CYCLE_* or PPSPARSE_SCALING_* and mcpi/multigrid.hpp disagree");

thread_local std::string last_error;

namespace {
bool initialized_here = false;
}  // namespace

void require_kokkos() {
  if (!Kokkos::is_initialized()) throw InvalidArgument("Kokkos is not initialised (call ppsparse_initialize first)");
}

mcpi::Solver<>& solver_of(ppsparse_mcpi_solver* s) {
  if (s != nullptr && s->multigrid) return s->multigrid->fine();
  if (s == nullptr || !s->solver) throw InvalidArgument("the solver handle is NULL");
  return *s->solver;
}

/// The O format of a PPSPARSE_O_<ID> constant, the format's position in mcpi/o_formats.def
/// (InvalidArgument naming the C field `field` and the valid values, `other` among them where
/// given).
mcpi::OFormat o_format_of(int value, const char* field, const std::string& other = "") {
  const auto& formats = mcpi::all_o_formats();
  if (value < 0 || static_cast<size_t>(value) >= formats.size()) {
    std::vector<std::string> valid;
    for (size_t k = 0; k < formats.size(); ++k) {
      std::string id = mcpi::name(formats[k]);
      for (char& c : id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      valid.push_back("PPSPARSE_O_" + id + " (" + std::to_string(k) + ")");
    }
    if (!other.empty()) valid.push_back(other);
    std::string list;
    for (size_t k = 0; k < valid.size(); ++k)
      list += std::string(k == 0 ? "" : k + 1 < valid.size() ? ", " : " or ") + valid[k];
    throw InvalidArgument(std::string(field) + " = " + std::to_string(value) + " is not " + list);
  }
  return formats[static_cast<size_t>(value)];
}

/// The C++ multigrid options of the C ones (InvalidArgument naming a bad field).
mcpi::MultigridOptions multigrid_options_of(const ppsparse_multigrid_options* o) {
  mcpi::MultigridOptions m;
  if (o == nullptr) return m;
  m.max_levels = o->max_levels;
  m.coarse_rows = o->coarse_rows;
  m.matching_passes = o->matching_passes;
  m.pre_sweeps = o->pre_sweeps;
  m.post_sweeps = o->post_sweeps;
  m.coarse_sweeps = o->coarse_sweeps;
  if (o->cycle < PPSPARSE_CYCLE_V || o->cycle > PPSPARSE_CYCLE_K)
    throw InvalidArgument("multigrid.cycle = " + std::to_string(o->cycle) +
                          " is not PPSPARSE_CYCLE_V (0), PPSPARSE_CYCLE_W (1) or PPSPARSE_CYCLE_K (2)");
  if (o->scaling < PPSPARSE_SCALING_AUTO || o->scaling > PPSPARSE_SCALING_RESIDUAL)
    throw InvalidArgument("multigrid.scaling = " + std::to_string(o->scaling) +
                          " is not PPSPARSE_SCALING_AUTO (0), _NONE (1), _ENERGY (2) or _RESIDUAL (3)");
  m.cycle = static_cast<mcpi::MultigridOptions::Cycle>(o->cycle);
  m.cycle_every = o->cycle_every;
  m.cycle_min_rows = o->cycle_min_rows;
  m.scaling = static_cast<mcpi::MultigridOptions::Scaling>(o->scaling);
  if (o->coarse_o_format != -1)
    m.coarse_o_format = o_format_of(o->coarse_o_format, "multigrid.coarse_o_format", "-1 (the default)");
  try {
    mcpi::check_multigrid_options(m);
  } catch (const InvalidArgument& e) {
    std::string what = e.what();  // "mcpi multigrid: X must ...": the C field is multigrid.X
    const std::string prefix = "mcpi multigrid: ";
    if (what.compare(0, prefix.size(), prefix) == 0) what = "multigrid." + what.substr(prefix.size());
    throw InvalidArgument(what);
  }
  return m;
}

void require(const void* p, const char* what) {
  if (p == nullptr) throw InvalidArgument(std::string(what) + " is NULL");
}

void check_memory(int memory) {
  if (memory != PPSPARSE_MEMORY_HOST && memory != PPSPARSE_MEMORY_DEVICE)
    throw InvalidArgument("memory must be PPSPARSE_MEMORY_HOST (0) or PPSPARSE_MEMORY_DEVICE (1), got " +
                          std::to_string(memory));
}

mcpi::BlockOrder block_order(int order) {
  if (order == PPSPARSE_COLUMN_MAJOR) return mcpi::BlockOrder::column_major;
  if (order == PPSPARSE_ROW_MAJOR) return mcpi::BlockOrder::row_major;
  throw InvalidArgument("block_order must be PPSPARSE_COLUMN_MAJOR (0) or PPSPARSE_ROW_MAJOR (1), got " +
                        std::to_string(order));
}

/// Host copy of a caller's array of n entries.
template <class T>
std::vector<T> host_copy(const T* p, size_t n, int memory) {
  check_memory(memory);
  std::vector<T> h(n);
  if (n == 0) return h;
  if (memory == PPSPARSE_MEMORY_HOST) {
    std::copy(p, p + n, h.begin());
  } else {
    Kokkos::deep_copy(wrap<T, HostSpace>(h.data(), n), wrap<const T, DefaultMemSpace>(p, n));
  }
  return h;
}

/// A 0/1 field of the C structures as a bool; InvalidArgument naming the field otherwise.
bool flag(int value, const char* field) {
  if (value != 0 && value != 1)
    throw InvalidArgument(std::string(field) + " must be 0 or 1, got " + std::to_string(value));
  return value == 1;
}

mcpi::InitialGuess initial_guess(int given) {
  return flag(given, "control.initial_guess_given") ? mcpi::InitialGuess::given : mcpi::InitialGuess::zero;
}

mcpi::Control to_control(const ppsparse_mcpi_control* c) {
  mcpi::Control m;
  if (c == nullptr) return m;
  m.max_sweeps = c->max_sweeps;
  m.rtol = c->rtol;
  m.atol = c->atol;
  m.check_interval = c->check_interval;
  m.final_residual = flag(c->final_residual, "control.final_residual");
  m.initial_guess = initial_guess(c->initial_guess_given);
  m.divergence_factor = c->divergence_factor;
  m.sweep_graphs = flag(c->sweep_graphs, "control.sweep_graphs");
  return m;
}

mcpi::FgmresControl to_control(const ppsparse_fgmres_control* c) {
  mcpi::FgmresControl m;
  if (c == nullptr) return m;
  m.restart = c->restart;
  m.max_iterations = c->max_iterations;
  m.rtol = c->rtol;
  m.atol = c->atol;
  m.sweeps = c->sweeps;
  m.initial_guess = initial_guess(c->initial_guess_given);
  m.divergence_factor = c->divergence_factor;
  return m;
}

// What a failed call leaves in the caller's status: no solve happened.
void failed_status(ppsparse_mcpi_status* out) {
  if (out == nullptr) return;
  out->reason = PPSPARSE_FAILED;
  out->sweeps = out->iterations = 0;
  out->initial_residual = out->final_residual = std::numeric_limits<double>::quiet_NaN();
}

void to_status(const mcpi::Status& s, ppsparse_mcpi_status* out) {
  if (out == nullptr) return;
  out->reason = static_cast<int>(s.reason);  // StopReason's order is the C enumeration's
  out->sweeps = s.sweeps;
  out->iterations = s.iterations;
  out->initial_residual = s.initial_residual;
  out->final_residual = s.final_residual;
}

/// The C++ storage option of the C options (InvalidArgument naming a bad field).
mcpi::OStorage o_storage_of(const ppsparse_mcpi_options* o) {
  mcpi::OStorage s;
  if (o == nullptr) return s;
  s.format = o_format_of(o->o_format, "options.o_format");
  s.keep_fp32 = flag(o->o_keep_fp32, "options.o_keep_fp32");
  s.keep_fp64 = flag(o->o_keep_fp64, "options.o_keep_fp64");
  s.lu_fp32 = flag(o->lu_fp32, "options.lu_fp32");
  return s;
}

template <class Offset>
int create(const char* function, ppsparse_mcpi_solver** out, int nb, int32_t n, const Offset* row_ptr,
           const int32_t* col_idx, int index_base, const int32_t* colors, int memory,
           const ppsparse_mcpi_options* setup = nullptr, const ppsparse_multigrid_options* multigrid = nullptr,
           bool with_multigrid = false) {
  if (out != nullptr) *out = nullptr;
  return guarded(function, [&] {
    require_kokkos();
    require(out, "solver (the output handle)");
    require(row_ptr, "row_ptr");
    if (n < 0) throw InvalidArgument("negative number of block rows n = " + std::to_string(n));
    if (index_base != 0 && index_base != 1)
      throw InvalidArgument("index_base must be 0 or 1, got " + std::to_string(index_base));
    const std::vector<Offset> rp = host_copy(row_ptr, static_cast<size_t>(n) + 1, memory);
    const long long nnzb = static_cast<long long>(rp[n]) - index_base;
    if (nnzb < 0) throw InvalidArgument("row_ptr[n] = " + std::to_string(rp[n]) + " is below index_base");
    if (nnzb > 0) require(col_idx, "col_idx");
    Kokkos::View<ppsparse::offset_t*, HostSpace> ia("row_ptr", rp.size());
    for (size_t i = 0; i < rp.size(); ++i) ia(i) = rp[i];
    const std::vector<int32_t> ja = host_copy(col_idx, static_cast<size_t>(nnzb), memory);
    mcpi::BlockPattern<HostSpace> pattern{nb, n, ia, wrap<const int32_t, HostSpace>(ja.data(), ja.size()), index_base};
    mcpi::SetupOptions options;
    options.o_storage = o_storage_of(setup);
    if (colors != nullptr) options.colors = host_copy(colors, static_cast<size_t>(n), memory);
    auto handle = std::make_unique<ppsparse_mcpi_solver>();
    if (with_multigrid)
      handle->multigrid = std::make_unique<mcpi::Multigrid<>>(pattern, multigrid_options_of(multigrid), options);
    else
      handle->solver = std::make_unique<mcpi::Solver<>>(pattern, options);
    *out = handle.release();
  });
}

template <class OT>
int update(const char* function, ppsparse_mcpi_solver* s, const OT* O, const double* D, int order, int memory) {
  return guarded(function, [&] {
    auto& solver = solver_of(s);
    if (solver.nnzb() > 0) require(O, "O");
    require(D, "D");
    const size_t nb2 = static_cast<size_t>(solver.nb()) * solver.nb();
    const mcpi::BlockOrder bo = block_order(order);
    with_views(memory, O, static_cast<size_t>(solver.nnzb()) * nb2, D, static_cast<size_t>(solver.n()) * nb2,
               [&](const auto& o, const auto& d) {
                 if (s->multigrid)
                   s->multigrid->update(DefaultExecSpace(), o, d, bo);  // the hierarchy at the first call
                 else
                   solver.update(DefaultExecSpace(), o, d, bo);
               });
  });
}

}  // namespace ppsparse::c_binding

using namespace ppsparse::c_binding;

extern "C" {

int ppsparse_initialize(void) {
  return guarded("ppsparse_initialize", [] {
    if (!Kokkos::is_initialized()) {
      Kokkos::initialize();
      initialized_here = true;
    }
  });
}

int ppsparse_finalize(void) {
  return guarded("ppsparse_finalize", [] {
    if (initialized_here && Kokkos::is_initialized()) Kokkos::finalize();
    initialized_here = false;
  });
}

const char* ppsparse_last_error(void) { return last_error.c_str(); }

void ppsparse_mcpi_control_default(ppsparse_mcpi_control* c) {
  if (c == nullptr) return;
  const mcpi::Control d;
  c->max_sweeps = d.max_sweeps;
  c->rtol = d.rtol;
  c->atol = d.atol;
  c->check_interval = d.check_interval;
  c->initial_guess_given = d.initial_guess == mcpi::InitialGuess::given;
  c->final_residual = d.final_residual;
  c->divergence_factor = d.divergence_factor;
  c->sweep_graphs = d.sweep_graphs;
}

void ppsparse_mcpi_options_default(ppsparse_mcpi_options* o) {
  if (o == nullptr) return;
  o->o_format = PPSPARSE_O_FP32;
  o->o_keep_fp32 = 0;
  o->o_keep_fp64 = 0;
  o->lu_fp32 = 0;
}

namespace {
void write_multigrid_options(const mcpi::MultigridOptions& d, ppsparse_multigrid_options* o) {
  o->max_levels = d.max_levels;
  o->coarse_rows = d.coarse_rows;
  o->matching_passes = d.matching_passes;
  o->pre_sweeps = d.pre_sweeps;
  o->post_sweeps = d.post_sweeps;
  o->coarse_sweeps = d.coarse_sweeps;
  o->cycle = static_cast<int>(d.cycle);
  o->cycle_every = d.cycle_every;
  o->cycle_min_rows = d.cycle_min_rows;
  o->scaling = static_cast<int>(d.scaling);
  o->coarse_o_format = d.coarse_o_format ? static_cast<int>(*d.coarse_o_format) : -1;
}
}  // namespace

void ppsparse_multigrid_options_default(ppsparse_multigrid_options* o) {
  if (o != nullptr) write_multigrid_options(mcpi::MultigridOptions{}, o);
}

void ppsparse_multigrid_options_flow_jacobian(ppsparse_multigrid_options* o) {
  if (o != nullptr) write_multigrid_options(mcpi::MultigridOptions::flow_jacobian(), o);
}

void ppsparse_fgmres_control_default(ppsparse_fgmres_control* c) {
  if (c == nullptr) return;
  const mcpi::FgmresControl d;
  c->restart = d.restart;
  c->max_iterations = d.max_iterations;
  c->rtol = d.rtol;
  c->atol = d.atol;
  c->sweeps = d.sweeps;
  c->initial_guess_given = d.initial_guess == mcpi::InitialGuess::given;
  c->divergence_factor = d.divergence_factor;
}

int ppsparse_mcpi_create(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int32_t* row_ptr,
                         const int32_t* col_idx, int index_base, const int32_t* colors, int memory) {
  return create("ppsparse_mcpi_create", solver, nb, n, row_ptr, col_idx, index_base, colors, memory);
}

int ppsparse_mcpi_create64(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int64_t* row_ptr,
                           const int32_t* col_idx, int index_base, const int32_t* colors, int memory) {
  return create("ppsparse_mcpi_create64", solver, nb, n, row_ptr, col_idx, index_base, colors, memory);
}

int ppsparse_mcpi_create_with(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int32_t* row_ptr,
                              const int32_t* col_idx, int index_base, const int32_t* colors, int memory,
                              const ppsparse_mcpi_options* options) {
  return create("ppsparse_mcpi_create_with", solver, nb, n, row_ptr, col_idx, index_base, colors, memory, options);
}

int ppsparse_mcpi_create64_with(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int64_t* row_ptr,
                                const int32_t* col_idx, int index_base, const int32_t* colors, int memory,
                                const ppsparse_mcpi_options* options) {
  return create("ppsparse_mcpi_create64_with", solver, nb, n, row_ptr, col_idx, index_base, colors, memory, options);
}

int ppsparse_mcpi_create_multigrid(ppsparse_mcpi_solver** solver, int nb, int32_t n, const int32_t* row_ptr,
                                   const int32_t* col_idx, int index_base, int memory,
                                   const ppsparse_mcpi_options* options, const ppsparse_multigrid_options* multigrid) {
  return create("ppsparse_mcpi_create_multigrid", solver, nb, n, row_ptr, col_idx, index_base, nullptr, memory, options,
                multigrid, true);
}

int ppsparse_mcpi_levels(const ppsparse_mcpi_solver* s, int capacity, int32_t* rows, int* count) {
  return guarded("ppsparse_mcpi_levels", [&] {
    const auto& solver = solver_of(const_cast<ppsparse_mcpi_solver*>(s));
    if (capacity < 0) throw InvalidArgument("capacity must be >= 0, got " + std::to_string(capacity));
    if (capacity > 0) require(rows, "rows");
    require(count, "count");
    std::vector<int32_t> n{solver.n()};
    if (s->multigrid) {
      n.clear();
      for (const auto& l : s->multigrid->levels()) n.push_back(l.n);
    }
    for (size_t l = 0; l < n.size() && l < static_cast<size_t>(capacity); ++l) rows[l] = n[l];
    *count = static_cast<int>(n.size());
  });
}

int ppsparse_mcpi_destroy(ppsparse_mcpi_solver* solver) {
  return guarded("ppsparse_mcpi_destroy", [&] { delete solver; });
}

int ppsparse_mcpi_sizes(const ppsparse_mcpi_solver* s, int* nb, int32_t* n, int64_t* nnzb, int32_t* ncolors) {
  return guarded("ppsparse_mcpi_sizes", [&] {
    const auto& solver = solver_of(const_cast<ppsparse_mcpi_solver*>(s));
    if (nb) *nb = solver.nb();
    if (n) *n = solver.n();
    if (nnzb) *nnzb = solver.nnzb();
    if (ncolors) *ncolors = solver.coloring().ncolors;
  });
}

int ppsparse_mcpi_update(ppsparse_mcpi_solver* solver, const double* O, const double* D, int block_order, int memory) {
  return update("ppsparse_mcpi_update", solver, O, D, block_order, memory);
}

int ppsparse_mcpi_update_f32(ppsparse_mcpi_solver* solver, const float* O, const double* D, int block_order,
                             int memory) {
  return update("ppsparse_mcpi_update_f32", solver, O, D, block_order, memory);
}

int ppsparse_mcpi_apply(ppsparse_mcpi_solver* s, const double* R, double* dq, int memory,
                        const ppsparse_mcpi_control* control, ppsparse_mcpi_status* status) {
  failed_status(status);  // overwritten by a solve that runs
  return guarded("ppsparse_mcpi_apply", [&] {
    auto& solver = solver_of(s);
    const mcpi::Control c = to_control(control);
    with_vectors(solver, memory, R, dq, [&](const auto& r, const auto& x) {
      const mcpi::Status st = solver.apply(DefaultExecSpace(), r, x, c);
      s->history = st.history;
      to_status(st, status);
    });
  });
}

int ppsparse_mcpi_multiply(ppsparse_mcpi_solver* s, const double* x, double* y, int memory) {
  return guarded("ppsparse_mcpi_multiply", [&] {
    auto& solver = solver_of(s);
    require(x, "x");
    require(y, "y");
    const size_t len = static_cast<size_t>(solver.n()) * solver.nb();
    with_views(memory, x, len, y, len,
               [&](const auto& xv, const auto& yv) { solver.multiply(DefaultExecSpace(), xv, yv); });
  });
}

}  // extern "C"

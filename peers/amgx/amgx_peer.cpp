// AmgxPeer through AmgX's C API (amgx_c.h), mode dDDI: FP64 matrix and vectors on the device,
// 32-bit indices. Compiled only where CMake found AmgX (PPSPARSE_AMGX_ROOT).
#include <ppsparse/peers/amgx_peer.hpp>

#include <amgx_c.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <mutex>
#include <regex>
#include <sstream>

#include <ppsparse/error.hpp>

namespace ppsparse::mcpi {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// AmgX prints through one process-wide callback: the peer keeps what it prints (its grid
// statistics, its errors' details) instead of letting it reach the benchmark's output.
std::mutex g_print_mutex;
std::string g_printed;
void keep_printed(const char* message, int length) {
  std::lock_guard<std::mutex> lock(g_print_mutex);
  g_printed.append(message, static_cast<size_t>(length));
}
std::string take_printed() {
  std::lock_guard<std::mutex> lock(g_print_mutex);
  std::string s;
  s.swap(g_printed);
  return s;
}

void check(AMGX_RC rc, const char* call) {
  if (rc == AMGX_RC_OK) return;
  char message[4096];
  AMGX_get_error_string(rc, message, sizeof message);
  std::string printed = take_printed();
  if (printed.size() > 400) printed = "..." + printed.substr(printed.size() - 400);
  throw Error(std::string("AmgX peer: ") + call + " failed: " + message +
              (printed.empty() ? std::string() : " (AmgX printed: " + printed + ")"));
}

// AmgX is initialised once per process, on first use, and finalised at exit.
struct Library {
  Library() {
    check(AMGX_initialize(), "AMGX_initialize");
    check(AMGX_register_print_callback(&keep_printed), "AMGX_register_print_callback");
  }
  ~Library() { AMGX_finalize(); }
};
void ensure_library() { static Library library; }

}  // namespace

struct AmgxPeer::Impl {
  AMGX_config_handle config = nullptr;
  AMGX_resources_handle resources = nullptr;
  AMGX_matrix_handle matrix = nullptr;
  AMGX_vector_handle b = nullptr, x = nullptr;
  AMGX_solver_handle solver = nullptr;
  int n = 0, nb = 0, nnzb = 0;
  std::vector<int> row_ptr, col;
  std::vector<double> values;  // row-major blocks, as AmgX takes them
  std::string grid;            // AmgX's grid statistics, as it printed them

  ~Impl() {
    if (solver) AMGX_solver_destroy(solver);
    if (x) AMGX_vector_destroy(x);
    if (b) AMGX_vector_destroy(b);
    if (matrix) AMGX_matrix_destroy(matrix);
    if (resources) AMGX_resources_destroy(resources);
    if (config) AMGX_config_destroy(config);
  }

  void load_values(const BsrMatrix<double, HostSpace>& a) {
    const size_t nb2 = static_cast<size_t>(nb) * nb;
    values.resize(static_cast<size_t>(nnzb) * nb2);
    for (size_t k = 0; k < static_cast<size_t>(nnzb); ++k)
      for (int i = 0; i < nb; ++i)
        for (int j = 0; j < nb; ++j) values[k * nb2 + i * nb + j] = a.values(k * nb2 + block_entry(nb, i, j));
  }
};

std::string AmgxPeer::default_config() {
  return R"({
  "config_version": 2,
  "solver": {
    "scope": "main",
    "solver": "FGMRES",
    "gmres_n_restart": 30,
    "use_scalar_norm": 1,
    "norm": "L2",
    "preconditioner": {
      "scope": "amg",
      "solver": "AMG",
      "algorithm": "AGGREGATION",
      "selector": "SIZE_2",
      "smoother": "MULTICOLOR_DILU",
      "presweeps": 0,
      "postsweeps": 3,
      "relaxation_factor": 0.75,
      "matrix_coloring_scheme": "PARALLEL_GREEDY",
      "max_uncolored_percentage": 0.05,
      "coarse_solver": "DENSE_LU_SOLVER",
      "min_coarse_rows": 32,
      "max_levels": 50,
      "cycle": "V",
      "max_iters": 1,
      "error_scaling": 0,
      "print_grid_stats": 1
    }
  }
})";
}

bool AmgxPeer::available() { return true; }

std::string AmgxPeer::library() {
  int major = 0, minor = 0;
  AMGX_get_api_version(&major, &minor);
  char *version = nullptr, *date = nullptr, *time = nullptr;
  AMGX_get_build_info_strings(&version, &date, &time);
  return "AmgX " + std::string(version ? version : "?") + " (API " + std::to_string(major) + "." +
         std::to_string(minor) + ")";
}

AmgxPeer::AmgxPeer(const std::string& config, double rtol, int max_iterations) : impl_(std::make_unique<Impl>()) {
  if (!(rtol > 0 && rtol < 1)) throw InvalidArgument("AmgX peer: rtol = " + std::to_string(rtol) + " is not in (0, 1)");
  if (max_iterations < 1) throw InvalidArgument("AmgX peer: max_iterations must be >= 1");
  ensure_library();
  take_printed();
  check(AMGX_config_create(&impl_->config, config.c_str()), "AMGX_config_create (the configuration)");
  // The comparison's stopping rule, whatever the configuration says: ||b - A x||_2 relative to
  // the start's (x = 0: ||b||_2). The outer solver's scope must be "main", as in AmgX's shipped
  // configurations.
  std::ostringstream rule;
  rule.precision(17);
  rule << "config_version=2, main:tolerance=" << rtol << ", main:max_iters=" << max_iterations
       << ", main:convergence=RELATIVE_INI_CORE, main:norm=L2, main:use_scalar_norm=1, main:monitor_residual=1, "
          "main:print_solve_stats=0, main:obtain_timings=0";
  check(AMGX_config_add_parameters(&impl_->config, rule.str().c_str()),
        "AMGX_config_add_parameters (the stopping rule)");
  check(AMGX_resources_create_simple(&impl_->resources, impl_->config), "AMGX_resources_create_simple");
  check(AMGX_matrix_create(&impl_->matrix, impl_->resources, AMGX_mode_dDDI), "AMGX_matrix_create");
  check(AMGX_vector_create(&impl_->b, impl_->resources, AMGX_mode_dDDI), "AMGX_vector_create");
  check(AMGX_vector_create(&impl_->x, impl_->resources, AMGX_mode_dDDI), "AMGX_vector_create");
  check(AMGX_solver_create(&impl_->solver, impl_->resources, AMGX_mode_dDDI, impl_->config), "AMGX_solver_create");
}

AmgxPeer::~AmgxPeer() = default;
AmgxPeer::AmgxPeer(AmgxPeer&&) noexcept = default;
AmgxPeer& AmgxPeer::operator=(AmgxPeer&&) noexcept = default;

double AmgxPeer::setup(const BsrMatrix<double, HostSpace>& a) {
  Impl& m = *impl_;
  constexpr long long int_max = std::numeric_limits<int>::max();
  if (a.nblockrows != a.nblockcols) throw InvalidArgument("AmgX peer: the matrix is not square in blocks");
  if (static_cast<long long>(a.nblockrows) > int_max || static_cast<long long>(a.nnzb()) > int_max)
    throw InvalidArgument("AmgX peer: " + std::to_string(a.nnzb()) + " blocks in " + std::to_string(a.nblockrows) +
                          " block rows: AmgX's C API takes 32-bit sizes");
  m.n = static_cast<int>(a.nblockrows);
  m.nb = a.nb;
  m.nnzb = static_cast<int>(a.nnzb());
  m.row_ptr.assign(a.ia.data(), a.ia.data() + a.ia.extent(0));
  m.col.assign(a.ja.data(), a.ja.data() + a.ja.extent(0));
  m.load_values(a);
  take_printed();
  cudaDeviceSynchronize();
  const auto t0 = Clock::now();
  check(AMGX_matrix_upload_all(m.matrix, m.n, m.nnzb, m.nb, m.nb, m.row_ptr.data(), m.col.data(), m.values.data(),
                               nullptr),
        "AMGX_matrix_upload_all");
  check(AMGX_solver_setup(m.solver, m.matrix), "AMGX_solver_setup");
  cudaDeviceSynchronize();
  const double seconds = since(t0);
  m.grid = take_printed();
  return seconds;
}

double AmgxPeer::refresh(const BsrMatrix<double, HostSpace>& a) {
  Impl& m = *impl_;
  if (!m.n) throw InvalidArgument("AmgX peer: refresh() before setup()");
  if (a.nblockrows != m.n || a.nnzb() != m.nnzb || a.nb != m.nb)
    throw InvalidArgument("AmgX peer: refresh() needs the pattern setup() was given");
  m.load_values(a);
  cudaDeviceSynchronize();
  const auto t0 = Clock::now();
  check(AMGX_matrix_replace_coefficients(m.matrix, m.n, m.nnzb, m.values.data(), nullptr),
        "AMGX_matrix_replace_coefficients");
  check(AMGX_solver_resetup(m.solver, m.matrix), "AMGX_solver_resetup");
  cudaDeviceSynchronize();
  const double seconds = since(t0);
  take_printed();
  return seconds;
}

AmgxSolve AmgxPeer::solve(const std::vector<double>& b, std::vector<double>& x) {
  Impl& m = *impl_;
  if (!m.n) throw InvalidArgument("AmgX peer: solve() before setup()");
  const size_t size = static_cast<size_t>(m.n) * m.nb;
  if (b.size() != size)
    throw InvalidArgument("AmgX peer: the right-hand side has " + std::to_string(b.size()) + " values, not " +
                          std::to_string(size));
  check(AMGX_vector_upload(m.b, m.n, m.nb, b.data()), "AMGX_vector_upload");
  check(AMGX_vector_set_zero(m.x, m.n, m.nb), "AMGX_vector_set_zero");
  cudaDeviceSynchronize();
  AmgxSolve r;
  const auto t0 = Clock::now();
  check(AMGX_solver_solve(m.solver, m.b, m.x), "AMGX_solver_solve");
  cudaDeviceSynchronize();
  r.seconds = since(t0);
  x.resize(size);
  check(AMGX_vector_download(m.x, x.data()), "AMGX_vector_download");
  check(AMGX_solver_get_iterations_number(m.solver, &r.iterations), "AMGX_solver_get_iterations_number");
  AMGX_SOLVE_STATUS status = AMGX_SOLVE_FAILED;
  check(AMGX_solver_get_status(m.solver, &status), "AMGX_solver_get_status");
  r.converged = status == AMGX_SOLVE_SUCCESS;
  r.status = status == AMGX_SOLVE_SUCCESS    ? "success"
             : status == AMGX_SOLVE_DIVERGED ? "diverged"
             : status == AMGX_SOLVE_FAILED   ? "failed"
                                             : "not converged";
  take_printed();
  return r;
}

namespace {
// The block rows of each level in AmgX's grid statistics: lines "  0(D)  318500  ..." (scalar rows).
std::vector<long long> level_rows(const std::string& grid, int nb) {
  const std::regex level(R"(^\s*(\d+)\((D|H)\)\s+(\d+))");
  std::istringstream lines(grid);
  std::string line;
  std::vector<long long> rows;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, level)) rows.push_back(std::stoll(m[3].str()) / std::max(nb, 1));
  }
  return rows;
}
}  // namespace

int AmgxPeer::levels() const { return static_cast<int>(level_rows(impl_->grid, impl_->nb).size()); }

std::string AmgxPeer::describe() const {
  const auto rows = level_rows(impl_->grid, impl_->nb);
  if (rows.empty()) return "AmgX: no grid statistics printed";
  std::string s = "AmgX: " + std::to_string(rows.size()) + " levels of";
  for (const long long r : rows) s += " " + std::to_string(r);
  return s + " block rows";
}

}  // namespace ppsparse::mcpi

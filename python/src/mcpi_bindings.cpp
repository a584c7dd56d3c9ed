// The Python bindings of the MCPI solver: McpiSolver and Status.
#include "arrays.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include <ppsparse/mcpi/fgmres.hpp>
#include <ppsparse/mcpi/multigrid.hpp>
#include <ppsparse/mcpi/o_format.hpp>
#include <ppsparse/mcpi/solver.hpp>

namespace ppsparse_python {

namespace {

mcpi::Variant variant_of(const std::string& s) { return mcpi::parse_variant(s); }

/// A named setting: "default" (MultigridOptions{}) or "flow_jacobian"; ValueError otherwise.
mcpi::MultigridOptions multigrid_preset(const std::string& name) {
  if (name == "default") return {};
  if (name == "flow_jacobian") return mcpi::MultigridOptions::flow_jacobian();
  throw py::value_error("multigrid: the preset is 'default' or 'flow_jacobian', got '" + name + "'");
}

/// MultigridOptions from a dict of its fields (cycle and scaling as strings), over the setting
/// its "preset" names (the defaults without one); ValueError naming an unknown key or value.
mcpi::MultigridOptions multigrid_options(const py::dict& d) {
  mcpi::MultigridOptions o = d.contains("preset") ? multigrid_preset(py::str(d["preset"])) : mcpi::MultigridOptions{};
  for (const auto& [key, value] : d) {
    const std::string k = py::str(key);
    if (k == "preset") {
      continue;
    } else if (k == "cycle") {
      const std::string v = py::str(value);
      if (v == "v" || v == "w" || v == "k")
        o.cycle = v == "v"   ? mcpi::MultigridOptions::Cycle::v
                  : v == "w" ? mcpi::MultigridOptions::Cycle::w
                             : mcpi::MultigridOptions::Cycle::k;
      else
        throw py::value_error("multigrid: cycle is 'v', 'w' or 'k', got '" + v + "'");
    } else if (k == "scaling") {
      const std::string v = py::str(value);
      using S = mcpi::MultigridOptions::Scaling;
      const std::map<std::string, S> names{
          {"auto", S::automatic}, {"none", S::none}, {"energy", S::energy}, {"residual", S::residual}};
      const auto it = names.find(v);
      if (it == names.end())
        throw py::value_error("multigrid: scaling is 'auto', 'none', 'energy' or 'residual', got '" + v + "'");
      o.scaling = it->second;
    } else if (k == "cycle_every") {
      o.cycle_every = value.cast<int>();
    } else if (k == "cycle_min_rows") {
      o.cycle_min_rows = value.cast<ordinal_t>();
    } else if (k == "max_levels") {
      o.max_levels = value.cast<int>();
    } else if (k == "coarse_rows") {
      o.coarse_rows = value.cast<ordinal_t>();
    } else if (k == "matching_passes") {
      o.matching_passes = value.cast<int>();
    } else if (k == "pre_sweeps") {
      o.pre_sweeps = value.cast<int>();
    } else if (k == "post_sweeps") {
      o.post_sweeps = value.cast<int>();
    } else if (k == "coarse_sweeps") {
      o.coarse_sweeps = value.cast<int>();
    } else if (k == "coarse_o_format") {
      try {
        o.coarse_o_format = mcpi::parse_o_format(py::str(value));
      } catch (const InvalidArgument& e) {
        throw py::value_error(std::string("multigrid: coarse_o_format: ") + e.what());
      }
    } else {
      throw py::value_error("multigrid: unknown option '" + k +
                            "' (preset, cycle, cycle_every, cycle_min_rows, scaling, max_levels, coarse_rows, "
                            "matching_passes, pre_sweeps, "
                            "post_sweeps, coarse_sweeps, coarse_o_format)");
    }
  }
  mcpi::check_multigrid_options(o);
  return o;
}

// ---- the MCPI solver ----

class McpiSolver : public Releasable {
 public:
  McpiSolver(const py::handle& indptr, const py::handle& indices, int nb, const py::handle& colors, int index_base,
             const std::string& o_format, bool keep_fp32, bool keep_fp64, const py::handle& multigrid, bool lu_fp32) {
    require_kokkos();
    const auto rp = host_array<offset_t>(indptr, "indptr");
    if (rp.size() < 1) throw py::value_error("indptr is empty: it needs n + 1 entries");
    const auto ci = host_array<ordinal_t>(indices, "indices");
    const auto n = static_cast<ordinal_t>(rp.size() - 1);
    mcpi::BlockPattern<HostSpace> pattern{nb, n, in_view(rp), in_view(ci), index_base};
    mcpi::SetupOptions options;
    options.o_storage.format = mcpi::parse_o_format(o_format);
    options.o_storage.keep_fp32 = keep_fp32;
    options.o_storage.keep_fp64 = keep_fp64;
    options.o_storage.lu_fp32 = lu_fp32;
    if (!colors.is_none()) {
      const auto c = host_array<ordinal_t>(colors, "colors", n);
      options.colors.assign(c.data(), c.data() + c.size());
    }
    if (multigrid.is_none() || (py::isinstance<py::bool_>(multigrid) && !multigrid.cast<bool>())) {
      solver_ = std::make_unique<mcpi::Solver<Exec>>(pattern, options);
    } else {
      mcpi::MultigridOptions mo;
      if (py::isinstance<py::dict>(multigrid))
        mo = multigrid_options(multigrid.cast<py::dict>());
      else if (py::isinstance<py::str>(multigrid))
        mo = multigrid_preset(multigrid.cast<std::string>());
      else if (!py::isinstance<py::bool_>(multigrid))
        throw py::type_error("multigrid: True, False, None, a preset's name or a dict of options is expected");
      mg_ = std::make_unique<mcpi::Multigrid<Exec>>(pattern, mo, options);
    }
    live().insert(this);
  }
  ~McpiSolver() override { live().erase(this); }
  void release() override {
    gmres_.reset();
    solver_.reset();
    mg_.reset();
  }

  /// The solver, or the multigrid's finest level.
  mcpi::Solver<Exec>& s() const {
    if (mg_) return mg_->fine();
    if (!solver_) throw InvalidArgument("McpiSolver: released by ppsparse.finalize()");
    return *solver_;
  }
  py::list levels() const {
    py::list out;
    if (mg_)
      for (const auto& l : mg_->levels())
        out.append(py::dict("n"_a = l.n, "nnzb"_a = l.nnzb, "colors"_a = l.colors, "device_bytes"_a = l.device_bytes));
    return out;
  }
  size_t device_bytes() const { return mg_ ? mg_->device_bytes() : s().device_bytes(); }
  size_t vector_size() const { return static_cast<size_t>(s().n()) * s().nb(); }

  void update(const py::handle& O, const py::handle& D, const std::string& order) {
    mcpi::BlockOrder bo;
    if (order == "row_major" || order == "C")
      bo = mcpi::BlockOrder::row_major;
    else if (order == "column_major" || order == "F")
      bo = mcpi::BlockOrder::column_major;
    else
      throw py::value_error("order must be 'row_major' ('C') or 'column_major' ('F'), got '" + order + "'");
    const long long nb2 = static_cast<long long>(s().nb()) * s().nb();
    const long long o_size = static_cast<long long>(s().nnzb()) * nb2, d_size = static_cast<long long>(s().n()) * nb2;
    const auto to = [&](const auto& o, const auto& d) {
      if (mg_)
        mg_->update(Exec(), o, d, bo);  // the hierarchy at the first call
      else
        s().update(Exec(), o, d, bo);
    };
    if (same_place(O, "O", D, "D")) {
      to(device_in<double>(gpu_array_of<double>(O, "O", o_size, false)),
         device_in<double>(gpu_array_of<double>(D, "D", d_size, false)));
      return;
    }
    const auto o = as_array<double>(O, "O", o_size);
    const auto d = as_array<double>(D, "D", d_size);
    to(in_view(o), in_view(d));
  }

  py::tuple apply(const py::handle& R, const py::handle& dq, double rtol, double atol, int max_sweeps,
                  int check_interval, bool initial_guess, bool final_residual, const std::string& variant,
                  bool sweep_graphs) {
    mcpi::Control c;
    c.rtol = rtol;
    c.atol = atol;
    c.max_sweeps = max_sweeps;
    c.check_interval = check_interval;
    c.initial_guess = initial_guess ? mcpi::InitialGuess::given : mcpi::InitialGuess::zero;
    c.final_residual = final_residual;
    c.variant = variant_of(variant);
    c.sweep_graphs = sweep_graphs;
    return solve(R, dq, initial_guess, [&](const auto& r, const auto& x) { return s().apply(Exec(), r, x, c); });
  }

  py::tuple fgmres(const py::handle& R, const py::handle& dq, double rtol, double atol, int restart, int max_iterations,
                   int sweeps, bool initial_guess, const py::object& op) {
    mcpi::FgmresControl fc;
    fc.rtol = rtol;
    fc.atol = atol;
    fc.restart = restart;
    fc.max_iterations = max_iterations;
    fc.sweeps = sweeps;
    fc.initial_guess = initial_guess ? mcpi::InitialGuess::given : mcpi::InitialGuess::zero;
    if (gmres_) {
      gmres_->set_control(fc);
    } else {
      gmres_ = std::make_unique<mcpi::Fgmres<Exec>>(s(), fc);
      if (mg_) gmres_->set_preconditioner(mg_->preconditioner());
    }
    if (op.is_none())
      return solve(R, dq, initial_guess, [&](const auto& r, const auto& x) { return gmres_->solve(Exec(), r, x); });
    if (!PyCallable_Check(op.ptr())) throw py::type_error("op: a callable op(x) -> y was expected");
    // op sees a NumPy copy of each vector (also on GPUs) and returns y of as many numbers.
    const auto len = static_cast<py::ssize_t>(vector_size());
    int products = 0;
    const mcpi::Fgmres<Exec>::Operator product = [&](const Exec& exec, const mcpi::Fgmres<Exec>::ConstVector& x,
                                                     const mcpi::Fgmres<Exec>::Vector& y) {
      ++products;
      py::array_t<double> xh(len);
      Kokkos::deep_copy(exec, HostOut<double>(xh.mutable_data(), static_cast<size_t>(len)), x);
      exec.fence();
      const auto yh = as_array<double>(op(xh), "op's result (product " + std::to_string(products) + ")", len);
      Kokkos::deep_copy(exec, y, in_view(yh));
      exec.fence();
    };
    return solve(R, dq, initial_guess,
                 [&](const auto& r, const auto& x) { return gmres_->solve(Exec(), r, x, product, "the Python op"); });
  }

  py::object multiply(const py::handle& x) {
    const auto n = static_cast<long long>(vector_size());
    if (is_gpu_array(x))
      return gpu_product(x, n, n, [&](const auto& xv, const auto& yv) { s().multiply(Exec(), xv, yv); });
    const auto xv = as_array<double>(x, "x", n);
    py::array_t<double> y(static_cast<py::ssize_t>(n));
    s().multiply(Exec(), in_view(xv), HostOut<double>(y.mutable_data(), y.size()));
    return std::move(y);
  }

  // Seconds per call of the C++ apply on these arrays with no Python in the loop (each call
  // finished, as the bindings' is), for measuring what the bindings add.
  double native_apply_seconds(const py::handle& R, const py::handle& dq, int repeats, int max_sweeps,
                              int check_interval) {
    if (repeats < 1) throw py::value_error("repeats must be >= 1, got " + std::to_string(repeats));
    mcpi::Control c;
    c.max_sweeps = max_sweeps;
    c.check_interval = check_interval;
    double seconds = 0;
    solve(R, dq, false, [&](const auto& r, const auto& x) {
      mcpi::Status st = s().apply(Exec(), r, x, c);  // first call's costs out of the way
      Exec().fence();
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < repeats; ++k) {
        st = s().apply(Exec(), r, x, c);
        Exec().fence();
      }
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats;
      return st;
    });
    return seconds;
  }

  py::array_t<ordinal_t> colors() const {
    const auto& c = s().coloring().color;
    return py::array_t<ordinal_t>(static_cast<py::ssize_t>(c.size()), c.data());
  }

 private:
  // Runs run(R_view, dq_view) -> Status on R and dq, both on the GPU or both on the host, and
  // returns (dq, status). dq given: a writable, contiguous float64 array of the right size,
  // written in place (and read as the initial guess when asked); none: a new array where R is.
  template <class Run>
  py::tuple solve(const py::handle& R, const py::handle& dq, bool initial_guess, const Run& run) const {
    const auto n = static_cast<long long>(vector_size());
    if (dq.is_none() && initial_guess) throw py::value_error("initial_guess=True needs dq (the guess)");
    if (dq.is_none() ? is_gpu_array(R) : same_place(R, "R", dq, "dq")) {
      const GpuArray r = gpu_array_of<double>(R, "R", n, false);
      py::object x =
          dq.is_none() ? new_gpu_array({static_cast<py::ssize_t>(n)}, "dq") : py::reinterpret_borrow<py::object>(dq);
      const mcpi::Status st = run(device_in<double>(r), device_out<double>(gpu_array_of<double>(x, "dq", n, true)));
      finish_gpu_writes();
      return py::make_tuple(x, st);
    }
    const auto r = as_array<double>(R, "R", n);
    py::array_t<double> x = host_output(dq, "dq");
    const mcpi::Status st = run(in_view(r), HostOut<double>(x.mutable_data(), x.size()));
    return py::make_tuple(x, st);
  }

  py::array_t<double> host_output(const py::handle& dq, const char* what) const {
    const auto n = static_cast<py::ssize_t>(vector_size());
    if (dq.is_none()) return py::array_t<double>(n);
    auto a = py::array_t<double>::ensure(dq);
    if (!a || !py::isinstance<py::array_t<double>>(dq) || !(a.flags() & py::array::c_style) || !a.writeable())
      throw py::type_error(std::string(what) + ": a writable, contiguous float64 array is expected");
    if (a.size() != n)
      throw py::value_error(std::string(what) + " has " + std::to_string(a.size()) + " entries, expected " +
                            std::to_string(n));
    return a;
  }

  std::unique_ptr<mcpi::Solver<Exec>> solver_;
  std::unique_ptr<mcpi::Multigrid<Exec>> mg_;  ///< multigrid=...: its finest level is the solver
  std::unique_ptr<mcpi::Fgmres<Exec>> gmres_;
};

}  // namespace

void bind_mcpi(py::module_& m) {
  py::class_<mcpi::Status>(m, "Status", "What a solve did (ppsparse::mcpi::Status).")
      .def_property_readonly("reason", [](const mcpi::Status& s) { return std::string(mcpi::name(s.reason)); })
      .def_readonly("sweeps", &mcpi::Status::sweeps)
      .def_readonly("iterations", &mcpi::Status::iterations)
      .def_readonly("initial_residual", &mcpi::Status::initial_residual)
      .def_readonly("final_residual", &mcpi::Status::final_residual)
      .def_readonly("kernel", &mcpi::Status::kernel)
      .def_readonly("system", &mcpi::Status::system,
                    "The system the residuals measure: 'O as stored (fp32)', \"O's FP32 copy\" or \"the user's O in "
                    "FP64\" (keep_fp64, FGMRES)")
      .def_property_readonly("converged", &mcpi::Status::converged)
      .def_property_readonly("history",
                             [](const mcpi::Status& s) {
                               std::vector<std::pair<int, double>> h;
                               for (const auto& c : s.history) h.emplace_back(c.sweep, c.residual);
                               return h;
                             })
      .def("__repr__", [](const mcpi::Status& s) {
        // %.3e: residuals of 1e-9 must not print as 0.000000.
        char line[320];
        std::snprintf(line, sizeof line,
                      "Status(reason='%s', sweeps=%d, iterations=%d, initial_residual=%.3e, final_residual=%.3e, "
                      "system=\"%s\")",
                      mcpi::name(s.reason), s.sweeps, s.iterations, s.initial_residual, s.final_residual,
                      s.system.c_str());
        return std::string(line);
      });

  py::class_<McpiSolver>(m, "McpiSolver")
      .def(py::init<const py::handle&, const py::handle&, int, const py::handle&, int, const std::string&, bool, bool,
                    const py::handle&, bool>(),
           "indptr"_a, "indices"_a, "nb"_a, "colors"_a = py::none(), "index_base"_a = 0, "o_format"_a = "fp32",
           "keep_fp32"_a = false, "keep_fp64"_a = false, "multigrid"_a = py::none(), "lu_fp32"_a = false)
      .def("update", &McpiSolver::update, "O"_a, "D"_a, "order"_a = "row_major",
           "New values in your numbering: O's blocks in the order of `indices` (nnzb x nb x nb), D's by block "
           "row (n x nb x nb), each block row_major or column_major; D is LU-factored on the device. ValueError "
           "for wrong sizes, ppsparse.NumericalError naming your block for a NaN, an Inf or a failed pivot.")
      .def("apply", &McpiSolver::apply, "R"_a, "dq"_a = py::none(), "rtol"_a = 0.0, "atol"_a = 0.0, "max_sweeps"_a = 15,
           "check_interval"_a = 5, "initial_guess"_a = false, "final_residual"_a = true, "variant"_a = "auto",
           "sweep_graphs"_a = true,
           "Solves A dq = R by MCPI sweeps: at most max_sweeps, a residual check every check_interval sweeps, "
           "stopping at max(atol, rtol * ||R||) (0: no tolerance). dq (optional, written in place) is the "
           "initial guess when initial_guess. Returns (dq, Status). The residuals are of the system the "
           "sweeps see: O as stored in o_format (keep_fp32: the FP32 copy).")
      .def("fgmres", &McpiSolver::fgmres, "R"_a, "dq"_a = py::none(), "rtol"_a = 1e-6, "atol"_a = 0.0, "restart"_a = 30,
           "max_iterations"_a = 300, "sweeps"_a = 5, "initial_guess"_a = false, "op"_a = py::none(),
           "Solves A dq = R by FGMRES(restart) right-preconditioned by `sweeps` MCPI sweeps (with multigrid: "
           "by one multigrid cycle, `sweeps` unused), to rtol or atol, at most max_iterations iterations. "
           "Returns (dq, Status). Its operator is A with O as the solver "
           "stores it (FP32 by default, keep_fp32 for the reduced formats), or with your values in FP64 "
           "(keep_fp64): a converged status is of that system, which Status.system names. op: a callable "
           "op(x) -> y that applies your own operator instead of A (x a float64 NumPy array of n * nb, "
           "in your numbering, copied to the host also on GPUs), preconditioned by the sweeps over A: a "
           "Jacobian-free Newton-Krylov step whose assembled approximation is A; the status is then op's "
           "system.")
      .def("multiply", &McpiSolver::multiply, "x"_a,
           "y = A x = (D + O) x in FP64 in your numbering (D through its LU factors).")
      .def("_native_apply_seconds", &McpiSolver::native_apply_seconds, "R"_a, "dq"_a, "repeats"_a = 100,
           "max_sweeps"_a = 1, "check_interval"_a = 1,
           "Seconds per call of the C++ apply on these arrays, no Python in the loop (the bindings' overhead "
           "benchmark).")
      .def_property_readonly(
          "nb", [](const McpiSolver& s) { return s.s().nb(); }, "The block size.")
      .def_property_readonly(
          "n", [](const McpiSolver& s) { return s.s().n(); }, "The number of block rows.")
      .def_property_readonly(
          "nnzb", [](const McpiSolver& s) { return s.s().nnzb(); }, "The number of off-diagonal blocks of O.")
      .def_property_readonly(
          "ncolors", [](const McpiSolver& s) { return s.s().coloring().ncolors; }, "The number of colours.")
      .def_property_readonly("colors", &McpiSolver::colors, "Each block row's colour, in your numbering.")
      .def_property_readonly(
          "o_format", [](const McpiSolver& s) { return std::string(mcpi::name(s.s().o_storage().format)); },
          "How the sweeps store O: 'fp32', 'bf16', 'fp16' or 'int8'.")
      .def_property_readonly("device_bytes", &McpiSolver::device_bytes,
                             "Bytes of device memory the solver's arrays hold (with multigrid: every level's).")
      .def_property_readonly("levels", &McpiSolver::levels,
                             "With multigrid: each level's block rows (n), blocks (nnzb), colours and device bytes, "
                             "finest first (only the finest before the first update); else [].");

  m.def("o_formats", [] {
    std::vector<std::string> v;
    for (const auto f : mcpi::all_o_formats()) v.emplace_back(mcpi::name(f));
    return v;
  });
}

}  // namespace ppsparse_python

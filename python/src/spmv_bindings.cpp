// The Python bindings of SpMV: SpmvOperator.
#include "arrays.hpp"

#include <memory>

#include <ppsparse/spmv/spmv.hpp>

namespace ppsparse_python {

namespace {

// ---- SpMV ----

class SpmvOperator : public Releasable {
 public:
  SpmvOperator(const py::handle& indptr, const py::handle& indices, const py::handle& data, ordinal_t nrows,
               ordinal_t ncols, const std::string& algorithm) {
    require_kokkos();
    const CsrMatrix<double, DefaultMemSpace> a =
        copy_to<DefaultMemSpace>(host_csr(indptr, indices, data, nrows, ncols));
    spmv::SpmvOptions options;
    options.check_structure = true;
    op_ = std::make_unique<spmv::SpmvOperator<Exec, double>>(spmv::parse_spmv_algorithm(algorithm), a, options);
    x_ = Kokkos::View<double*, DefaultMemSpace>("py.x", static_cast<size_t>(ncols));
    y_ = Kokkos::View<double*, DefaultMemSpace>("py.y", static_cast<size_t>(nrows));
    live().insert(this);
  }
  ~SpmvOperator() override { live().erase(this); }
  void release() override {
    op_.reset();
    x_ = {};
    y_ = {};
  }
  spmv::SpmvOperator<Exec, double>& op() const {
    if (!op_) throw InvalidArgument("SpmvOperator: released by ppsparse.finalize()");
    return *op_;
  }
  // y = A x: a new array where x is (a GPU array is read and written in place on the GPU).
  py::object apply(const py::handle& x) {
    if (is_gpu_array(x))
      return gpu_product(x, op().ncols(), op().nrows(),
                         [&](const auto& xv, const auto& yv) { op().apply(1.0, xv, 0.0, yv); });
    const auto xv = as_array<double>(x, "x", op().ncols());
    Kokkos::deep_copy(x_, in_view(xv));
    op().apply(1.0, x_, 0.0, y_);
    py::array_t<double> y(static_cast<py::ssize_t>(op().nrows()));
    Kokkos::deep_copy(HostOut<double>(y.mutable_data(), y.size()), y_);
    return std::move(y);
  }

 private:
  std::unique_ptr<spmv::SpmvOperator<Exec, double>> op_;
  Kokkos::View<double*, DefaultMemSpace> x_, y_;
};

}  // namespace

void bind_spmv(py::module_& m) {
  py::class_<SpmvOperator>(m, "SpmvOperator")
      .def(
          py::init<const py::handle&, const py::handle&, const py::handle&, ordinal_t, ordinal_t, const std::string&>(),
          "indptr"_a, "indices"_a, "data"_a, "nrows"_a, "ncols"_a, "algorithm"_a = "auto")
      .def("apply", &SpmvOperator::apply, "x"_a)
      .def_property_readonly("algorithm",
                             [](const SpmvOperator& o) { return std::string(spmv::to_string(o.op().algorithm())); })
      .def("describe", [](const SpmvOperator& o) { return o.op().describe(); });
}

}  // namespace ppsparse_python

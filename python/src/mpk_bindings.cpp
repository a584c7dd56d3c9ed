// The Python bindings of the matrix power kernel: MatrixPower.
#include "arrays.hpp"

#include <memory>

#include <ppsparse/mpk/matrix_power.hpp>

namespace ppsparse_python {

namespace {

// ---- the matrix power kernel ----

class MatrixPower : public Releasable {
 public:
  MatrixPower(const py::handle& indptr, const py::handle& indices, const py::handle& data, ordinal_t n, int powers,
              const std::string& variant) {
    require_kokkos();
    if (powers < 1) throw py::value_error("powers must be >= 1, got " + std::to_string(powers));
    const CsrMatrix<double, HostSpace> a = host_csr(indptr, indices, data, n, n);
    mpk::MpkOptions options;
    options.powers = powers;
    variant_ = mpk::parse_variant(variant);
    mpk_ = std::make_unique<mpk::MatrixPowerKernel<Exec, double>>(a, options);
    x_ = Kokkos::View<double*, DefaultMemSpace>("py.mpk.x", static_cast<size_t>(n));
    y_ = Kokkos::View<double**, Kokkos::LayoutLeft, DefaultMemSpace>("py.mpk.y", static_cast<size_t>(n),
                                                                     static_cast<size_t>(powers) + 1);
    live().insert(this);
  }
  ~MatrixPower() override { live().erase(this); }
  void release() override {
    mpk_.reset();
    x_ = {};
    y_ = {};
  }
  mpk::MatrixPowerKernel<Exec, double>& k() const {
    if (!mpk_) throw InvalidArgument("MatrixPower: released by ppsparse.finalize()");
    return *mpk_;
  }
  // Y (p + 1, n): row k = A^k x.
  py::object apply(const py::handle& x) {
    const auto n = static_cast<py::ssize_t>(k().nrows()), p = static_cast<py::ssize_t>(k().powers());
    if (is_gpu_array(x)) {
      const GpuArray xv = gpu_array_of<double>(x, "x", k().nrows(), false);
      py::object out = new_gpu_array({p + 1, n}, "Y");
      const GpuArray y = gpu_array_of<double>(out, "Y", (p + 1) * n, true);
      // Row k of the C-ordered (p + 1, n) result is column k of a LayoutLeft n x (p + 1) view.
      k().apply(variant_, device_in<double>(xv),
                Kokkos::View<double**, Kokkos::LayoutLeft, DefaultMemSpace, Kokkos::MemoryUnmanaged>(
                    reinterpret_cast<double*>(y.address), static_cast<size_t>(n), static_cast<size_t>(p) + 1));
      finish_gpu_writes();
      return out;
    }
    const auto xv = as_array<double>(x, "x", k().nrows());
    Kokkos::deep_copy(x_, in_view(xv));
    k().apply(variant_, x_, y_);
    py::array_t<double> out({p + 1, n});
    // LayoutLeft n x (p+1) is (p+1) contiguous columns of n: row k of `out`.
    Kokkos::deep_copy(HostOut<double>(out.mutable_data(), out.size()),
                      Kokkos::View<double*, DefaultMemSpace>(y_.data(), y_.span()));
    return std::move(out);
  }
  std::string describe() const { return k().describe(); }

 private:
  std::unique_ptr<mpk::MatrixPowerKernel<Exec, double>> mpk_;
  mpk::MpkVariant variant_ = mpk::MpkVariant::automatic;
  Kokkos::View<double*, DefaultMemSpace> x_;
  Kokkos::View<double**, Kokkos::LayoutLeft, DefaultMemSpace> y_;
};

}  // namespace

void bind_mpk(py::module_& m) {
  py::class_<MatrixPower>(m, "MatrixPower")
      .def(py::init<const py::handle&, const py::handle&, const py::handle&, ordinal_t, int, const std::string&>(),
           "indptr"_a, "indices"_a, "data"_a, "n"_a, "powers"_a, "variant"_a = "automatic")
      .def("apply", &MatrixPower::apply, "x"_a)
      .def("describe", &MatrixPower::describe);
}

}  // namespace ppsparse_python

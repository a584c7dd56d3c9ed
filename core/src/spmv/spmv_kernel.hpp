#pragma once
// What SpmvOperator dispatches to (private to the library): one SpmvKernel per algorithm of
// ppsparse/spmv/algorithms.def, holding the algorithm's state between products (its plan, its
// copy of the matrix, its tuner). Adding an algorithm: a functor file that defines
// make_spmv_kernel_<id> (and instantiates it with PPSPARSE_INSTANTIATE_SPMV_KERNEL), and one line
// in algorithms.def.
#include <functional>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include <ppsparse/spmv/spmv.hpp>

namespace ppsparse::spmv::detail {

// What an algorithm's setup receives.
template <class ExecSpace, class Scalar, class MemSpace>
struct SpmvKernelSetup {
  const ExecSpace& space;
  const CsrMatrix<Scalar, MemSpace>& a;  // checked (extents, and the structure when asked)
  const SpmvOptions& options;            // after the automatic choice's adjustments
  const std::string& who;                // "<algorithm> setup", the prefix of its errors
};

template <class ExecSpace, class Scalar, class MemSpace>
class SpmvKernel {
 public:
  virtual ~SpmvKernel() = default;
  // y = alpha*A*x + beta*y on space (the conventions of csr_v1).
  virtual void apply(const ExecSpace& space, Scalar alpha, const CsrMatrix<Scalar, MemSpace>& a,
                     const ConstVector<Scalar, MemSpace>& x, Scalar beta, const Vector<Scalar, MemSpace>& y) = 0;
  // The minimum traffic of one product (CSR's unless the algorithm stores the matrix otherwise).
  virtual SpmvTraffic traffic(const CsrMatrix<Scalar, MemSpace>& a, bool reads_y) const {
    return csr_traffic<Scalar>(a.nrows, a.ncols, a.nnz(), reads_y);
  }
  // What follows the algorithm's name in SpmvOperator::describe() (may be empty).
  virtual std::string parameters() const { return {}; }
  // Whether SpmvOptions::matrix_loads changes how the matrix is loaded.
  virtual bool uses_matrix_loads() const { return false; }
  // The algorithm's state of type `type` (its plan, its copy of the matrix, its tuner, ...) for
  // SpmvOperator's accessors, or null where it has none of that type.
  virtual const void* find_state(const std::type_info& /*type*/) const { return nullptr; }
  template <class T>
  const T* state() const {
    return static_cast<const T*>(find_state(typeid(T)));
  }
  virtual void set_clock(std::function<double()> /*clock*/) {}
};

// Returns &value when `type` is T's, for find_state: `return state_if<Plan>(type, &plan_);`.
template <class T>
const void* state_if(const std::type_info& type, const T* value) {
  return type == typeid(T) ? value : nullptr;
}

// One option key of an algorithm ("<prefix>.<name>=<integer>" in parse_spmv_options), declared
// in the algorithm's file beside it.
struct SpmvOptionKey {
  const char* key;
  void (*set)(SpmvOptions& options, long long value);
};

template <class ExecSpace, class Scalar, class MemSpace>
using SpmvKernelPtr = std::unique_ptr<SpmvKernel<ExecSpace, Scalar, MemSpace>>;

#define PPSPARSE_SPMV_ALGORITHM(id, summary)                        \
  template <class ExecSpace, class Scalar, class MemSpace>          \
  SpmvKernelPtr<ExecSpace, Scalar, MemSpace> make_spmv_kernel_##id( \
      const SpmvKernelSetup<ExecSpace, Scalar, MemSpace>&);         \
  const std::vector<SpmvOptionKey>& option_keys_##id();
#include <ppsparse/spmv/algorithms.def>
#undef PPSPARSE_SPMV_ALGORITHM

// make_spmv_kernel_<id> for SpmvOperator's instantiations; written once in the algorithm's file.
#define PPSPARSE_INSTANTIATE_SPMV_KERNEL_FOR(id, S)                                   \
  template SpmvKernelPtr<DefaultExecSpace, S, DefaultMemSpace> make_spmv_kernel_##id( \
      const SpmvKernelSetup<DefaultExecSpace, S, DefaultMemSpace>&);
#define PPSPARSE_INSTANTIATE_SPMV_KERNEL(id)      \
  PPSPARSE_INSTANTIATE_SPMV_KERNEL_FOR(id, float) \
  PPSPARSE_INSTANTIATE_SPMV_KERNEL_FOR(id, double)

}  // namespace ppsparse::spmv::detail

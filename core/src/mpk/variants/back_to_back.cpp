// The MPK variant back_to_back: p whole-matrix products with the fastest SpMV kernel of the level-ordered matrix (the
// baseline).
#include <cmath>

#include <ppsparse/backend/multiprocessors.hpp>
#include <ppsparse/error.hpp>

#include "../matrix_power_internal.hpp"

namespace ppsparse::mpk {

namespace detail {

template <class ExecSpace, class Scalar, class MemSpace>
void run_back_to_back(MatrixPowerKernel<ExecSpace, Scalar, MemSpace>& mpk) {
  auto& op = mpk.matrix_->baseline();
  for (int k = 1; k <= mpk.powers(); ++k)
    op.apply(Scalar(1), column(mpk.work_, k - 1), Scalar(0), mutable_column(mpk.work_, k));
}

PPSPARSE_MPK_INSTANTIATE_VARIANT(back_to_back)

}  // namespace detail

}  // namespace ppsparse::mpk

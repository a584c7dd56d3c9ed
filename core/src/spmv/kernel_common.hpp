#pragma once
// The SpMV kernels' view of the sparse families' low layer (core/src/sparse/kernel_common.hpp).
#include "../sparse/kernel_common.hpp"

namespace ppsparse::spmv::detail {
using namespace ppsparse::sparse;
}  // namespace ppsparse::spmv::detail

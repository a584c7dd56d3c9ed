// The portable multiprocessor limits (backend/multiprocessors.hpp), linked when no device
// backend supplies them: unknown.
#if !defined(PPSPARSE_HAVE_MULTIPROCESSORS_BACKEND)
#include <ppsparse/backend/multiprocessors.hpp>

namespace ppsparse::backend {

MultiprocessorLimits multiprocessor_limits() { return {}; }

}  // namespace ppsparse::backend
#endif

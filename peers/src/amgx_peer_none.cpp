// AmgxPeer on builds without AmgX: available() is false and everything else refuses.
// peers/amgx/amgx_peer.cpp is the AmgX implementation, compiled (with PPSPARSE_PEERS_AMGX
// defined) where CMake was given PPSPARSE_AMGX_ROOT.
#if !defined(PPSPARSE_PEERS_AMGX)

#include <ppsparse/error.hpp>
#include <ppsparse/peers/amgx_peer.hpp>

namespace ppsparse::mcpi {

namespace {
[[noreturn]] void refuse() {
  throw InvalidArgument("AmgX peer: this build has no AmgX (configure a CUDA build with -DPPSPARSE_AMGX_ROOT=DIR)");
}
}  // namespace

struct AmgxPeer::Impl {};

std::string AmgxPeer::default_config() { return {}; }
bool AmgxPeer::available() { return false; }
std::string AmgxPeer::library() { return "none"; }
AmgxPeer::AmgxPeer(const std::string&, double, int) { refuse(); }
AmgxPeer::~AmgxPeer() = default;
AmgxPeer::AmgxPeer(AmgxPeer&&) noexcept = default;
AmgxPeer& AmgxPeer::operator=(AmgxPeer&&) noexcept = default;
double AmgxPeer::setup(const BsrMatrix<double, HostSpace>&) { refuse(); }
double AmgxPeer::refresh(const BsrMatrix<double, HostSpace>&) { refuse(); }
AmgxSolve AmgxPeer::solve(const std::vector<double>&, std::vector<double>&) { refuse(); }
int AmgxPeer::levels() const { refuse(); }
std::string AmgxPeer::describe() const { refuse(); }

}  // namespace ppsparse::mcpi

#endif

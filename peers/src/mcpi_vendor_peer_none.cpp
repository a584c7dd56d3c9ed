// VendorPeer on builds without the vendor libraries (host-only or HIP Kokkos): available()
// is false and setup()/sweep() refuse. peers/cuda defines PPSPARSE_PEERS_VENDOR_MCPI and
// provides the cuSPARSE + cuBLAS implementation (mcpi_cusparse_peer.cpp).
#if !defined(PPSPARSE_PEERS_VENDOR_MCPI)

#include <ppsparse/error.hpp>
#include <ppsparse/peers/mcpi_vendor_peer.hpp>

namespace ppsparse::mcpi {

namespace {
[[noreturn]] void refuse() {
  throw InvalidArgument("mcpi VendorPeer: no vendor sparse/BLAS libraries on this backend (" +
                        std::string(compat::default_backend_name()) + ")");
}
}  // namespace

struct VendorPeer::Impl {};

VendorPeer::VendorPeer() = default;
VendorPeer::~VendorPeer() = default;
VendorPeer::VendorPeer(VendorPeer&&) noexcept = default;
VendorPeer& VendorPeer::operator=(VendorPeer&&) noexcept = default;

bool VendorPeer::available() { return false; }
std::string VendorPeer::library() { return "none"; }
void VendorPeer::setup(const BlockSystem<memory_space>&, const std::vector<ordinal_t>&) { refuse(); }
void VendorPeer::reset() { refuse(); }
void VendorPeer::sweep() { refuse(); }
Kokkos::View<const float*, VendorPeer::memory_space> VendorPeer::dq() const { refuse(); }
std::string VendorPeer::describe() const { return "none"; }
double VendorPeer::setup_seconds() const { return 0.0; }

}  // namespace ppsparse::mcpi

#endif

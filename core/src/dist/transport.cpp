#include <ppsparse/dist/transport.hpp>

namespace ppsparse::dist {

std::string name(Transport t) {
  switch (t) {
    case Transport::automatic:
      return "automatic";
    case Transport::staged:
      return "staged";
    case Transport::mpi_device:
      return "mpi_device";
    case Transport::nccl:
      return "nccl";
    case Transport::peer:
      return "peer";
  }
  return "?";
}

}  // namespace ppsparse::dist

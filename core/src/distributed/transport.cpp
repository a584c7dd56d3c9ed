#include <ppsparse/distributed/transport.hpp>

namespace ppsparse::distributed {

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

}  // namespace ppsparse::distributed

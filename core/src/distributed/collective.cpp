#include <vector>

#include <ppsparse/distributed/collective.hpp>

namespace ppsparse::distributed {

ErrorKind agree(MPI_Comm comm, ErrorKind kind, std::string& message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine = kind == ErrorKind::none ? size : rank;
  int first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return ErrorKind::none;
  int header[2] = {static_cast<int>(kind), static_cast<int>(message.size())};
  MPI_Bcast(header, 2, MPI_INT, first, comm);
  std::vector<char> text(static_cast<size_t>(header[1]));
  if (rank == first) text.assign(message.begin(), message.end());
  if (header[1] > 0) MPI_Bcast(text.data(), header[1], MPI_CHAR, first, comm);
  const std::string prefix = "rank " + std::to_string(first) + ": ";
  const std::string body(text.begin(), text.end());
  // A message agreed before (a nested collective) already names its rank.
  message = body.rfind("rank ", 0) == 0 ? body : prefix + body;
  return static_cast<ErrorKind>(header[0]);
}

void agree_or_throw(MPI_Comm comm, ErrorKind kind, std::string message) {
  const ErrorKind agreed = agree(comm, kind, message);
  if (agreed != ErrorKind::none) mcpi::throw_error(agreed, message);
}

}  // namespace ppsparse::distributed

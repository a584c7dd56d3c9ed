#pragma once
/// @file
/// The communication of a distributed MCPI solver, as the solver sees it: after each colour's
/// boundary rows, their new dQ goes to the ranks that read them as ghosts, while the colour's
/// interior rows run; reductions and errors are agreed by every rank. One rank needs none of
/// this (Solver without a Halo). The MPI implementation is mcpi/distributed.hpp's.
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <ppsparse/error.hpp>
#include <ppsparse/types.hpp>

namespace ppsparse::mcpi {

/// What the exchanges of a distributed solver moved and waited for, since reset_stats().
struct HaloStats {
  long long messages = 0;   ///< sent, all colours
  long long bytes = 0;      ///< sent, all colours
  long long exchanges = 0;  ///< colour exchanges (start + finish pairs)
  /// Time waited for the messages: the host blocked in finish() (MPI), or the device's time
  /// from posting to receiving (NCCL); replays of a recorded graph are not timed.
  double wait_seconds = 0.0;
  std::vector<double> color_wait;      ///< wait_seconds per colour
  std::vector<long long> color_bytes;  ///< bytes sent per colour
};

/// Kinds of error agreed across ranks (Halo::agree).
enum class ErrorKind { none = 0, invalid_argument = 1, numerical = 2, other = 3 };

/// Runs local(); when it throws, returns the error's kind and sets `message` to its text (the
/// local half of an agreed error), else returns none.
template <class F>
ErrorKind capture_error(F&& local, std::string& message) {
  try {
    local();
  } catch (const NumericalError& e) {
    message = e.what();
    return ErrorKind::numerical;
  } catch (const InvalidArgument& e) {
    message = e.what();
    return ErrorKind::invalid_argument;
  } catch (const std::exception& e) {
    message = e.what();
    return ErrorKind::other;
  }
  return ErrorKind::none;
}

/// Throws the error `kind` (not none) with `message`: the other half of capture_error.
[[noreturn]] inline void throw_error(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::numerical:
      throw NumericalError(message);
    case ErrorKind::invalid_argument:
      throw InvalidArgument(message);
    default:
      throw Error(message);
  }
}

/// A distributed solver's communication (see the file comment). Every method is collective
/// over the solver's ranks: each rank calls it, in the same order.
template <class ExecSpace, class XScalar>
class Halo {
 public:
  using dq_view = Kokkos::View<XScalar*, typename ExecSpace::memory_space>;
  virtual ~Halo() = default;
  /// Colours of the global colouring (some may hold no row on this rank).
  virtual ordinal_t ncolors() const = 0;
  /// Colour c's boundary rows are [color_offsets[c], boundary_end(c)) in colour order.
  virtual ordinal_t boundary_end(ordinal_t c) const = 0;
  /// Whether this rank sends or receives in colour c: if not, the colour runs on the caller's
  /// instance without start() and finish().
  virtual bool active(ordinal_t c) const = 0;
  /// Starts colour c's exchange once exec has updated its boundary rows in dq: packs them on
  /// exec and posts the messages.
  virtual void start(const ExecSpace& exec, ordinal_t c, const dq_view& dq) = 0;
  /// Waits for colour c's messages and writes its ghosts into dq on exec; later work on exec
  /// starts after the interior instance's work.
  virtual void finish(const ExecSpace& exec, ordinal_t c, const dq_view& dq) = 0;
  /// Every ghost of dq, all colours (after a given initial guess).
  virtual void exchange_all(const ExecSpace& exec, const dq_view& dq) = 0;
  /// The instance colour c's interior rows run on while its messages are in flight.
  virtual const ExecSpace& interior() const = 0;
  /// The sum of `local` over the ranks.
  virtual double sum(double local) = 0;
  /// Agrees on an error: when any rank passes a kind other than none, every rank receives the
  /// kind and the message of the lowest such rank, prefixed "rank R: "; otherwise none.
  virtual ErrorKind agree(ErrorKind kind, std::string& message) = 0;
  /// How messages travel: "staged through host memory", "GPU-aware MPI", "NCCL", "host MPI".
  virtual std::string transport() const = 0;
  /// This rank and the number of ranks.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const HaloStats& stats() const = 0;
  virtual void reset_stats() = 0;

  // ---- recording the exchanges into a device graph (backend/device_graph.hpp) ----
  /// Whether the exchanges can be recorded: they are enqueued on the device's streams with no
  /// host step (NCCL), not waited for on the host (MPI).
  virtual bool recordable() const { return false; }
  /// Called before the recording begins, at the end of a sweep (dq's ghosts hold their owners'
  /// values): start() and finish() then enqueue without timing the exchanges or reading earlier
  /// timings (nothing may wait on the host), and what they count is kept apart from stats().
  virtual void begin_recording(const ExecSpace& /*exec*/, const dq_view& /*dq*/) {}
  /// Ends the recording: what one replay of the recorded exchanges moves (messages, bytes,
  /// exchanges, bytes per colour; no waits, which a replay does not time).
  virtual HaloStats end_recording() { return {}; }
  /// Adds one replay's counts (end_recording's) to stats().
  virtual void count_replay(const HaloStats& /*replayed*/) {}
};

}  // namespace ppsparse::mcpi

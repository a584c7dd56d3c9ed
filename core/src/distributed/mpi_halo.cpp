// The exchange of the distributed MCPI (mcpi/distributed.hpp's impl::make_mpi_halo): MpiHalo, and
// the packing of boundary rows into a send buffer.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <ppsparse/backend/instance_order.hpp>
#include <ppsparse/distributed/device_messenger.hpp>
#include <ppsparse/kokkos_compat.hpp>
#include <ppsparse/mcpi/distributed.hpp>

#include "../util/to_device.hpp"

namespace ppsparse::mcpi::impl {

namespace {

/// buf = the nb entries of dq at rows[s0 .. s1), on exec.
template <class ExecSpace, class XScalar>
void halo_pack(const ExecSpace& exec, const Kokkos::View<ordinal_t*, typename ExecSpace::memory_space>& rows,
               offset_t s0, offset_t s1, int nb, const Kokkos::View<XScalar*, typename ExecSpace::memory_space>& dq,
               const Kokkos::View<XScalar*, typename ExecSpace::memory_space>& buf) {
  Kokkos::parallel_for(
      "ppsparse::mcpi::halo_pack", Kokkos::RangePolicy<ExecSpace>(exec, 0, static_cast<size_t>((s1 - s0) * nb)),
      KOKKOS_LAMBDA(const size_t q) {
        buf(q) = dq(static_cast<size_t>(rows(static_cast<size_t>(s0) + q / nb)) * nb + q % nb);
      });
}

/// The exchange of a distributed solver (mcpi/halo.hpp's Halo): per colour, one message per
/// neighbour, sent from the boundary rows of dQ where they are consecutive (else packed on the
/// device first) and received into dQ's ghost slots. The messages travel by MPI (host memory on CPUs; on GPUs device
/// pointers where the MPI library is GPU-aware, else staged through pinned host memory) or by
/// NCCL on the solver's stream (dist/device_messenger.hpp); reductions and errors by MPI.
template <class ExecSpace, class XScalar>
class MpiHalo final : public Halo<ExecSpace, XScalar> {
 public:
  using typename Halo<ExecSpace, XScalar>::dq_view;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;

  MpiHalo(MPI_Comm comm, const distributed::HaloLists& lists, ordinal_t ncolors, std::vector<ordinal_t> boundary_end,
          ordinal_t n_owned, int nb, Transport transport, const ExecSpace& exec, bool priority_exchange = true)
      : lists_(lists), ncolors_(ncolors), boundary_end_(std::move(boundary_end)), n_(n_owned), nb_(nb) {
    MPI_Comm_dup(comm, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    const bool aware = distributed::mpi_is_device_aware(exec);
    if (host_memory && transport == Transport::staged) {  // host buffers: the staged path on CPUs
      transport_ = "staged through host buffers";
      direct_ = false;
    } else if (host_memory) {
      transport_ = "host MPI";
    } else if (transport == Transport::mpi_device || (transport == Transport::automatic && aware)) {
      if (!aware)
        throw InvalidArgument(
            "mcpi distributed: transport mpi_device asked for, but this MPI library is not GPU-aware");
      transport_ = "GPU-aware MPI";
    } else if (transport == Transport::peer) {
      std::string why_not;
      messenger_ = distributed::make_peer_messenger(exec, comm_, why_not);
      if (!messenger_) throw InvalidArgument("mcpi distributed: transport peer asked for, but " + why_not);
      transport_ = messenger_->name();
    } else if (transport == Transport::nccl || transport == Transport::automatic) {
      std::string why_not;
      messenger_ = distributed::make_device_messenger(exec, comm_, why_not);
      if (messenger_) {
        transport_ = messenger_->name();
      } else if (transport == Transport::nccl) {
        throw InvalidArgument("mcpi distributed: transport nccl asked for, but " + why_not);
      } else {
        transport_ = "staged through host memory (MPI is not GPU-aware; no NCCL: " + why_not + ")";
        direct_ = false;
      }
    } else {
      transport_ = "staged through host memory";
      direct_ = false;
    }
    interior_ = compat::second_instance(exec);
    exchange_ = exec;
    if (messenger_ && priority_exchange) {
      exchange_ = ppsparse::backend::priority_instance(exec);
      transport_ += ", on a stream of the highest priority";
    }
    const size_t nn = lists_.neighbours.size();
    // Messages go from dq itself where each one's rows are consecutive (else through a packed
    // buffer), and land in dq's ghost slots, consecutive by construction (dist/plan.hpp).
    direct_send_.assign(static_cast<size_t>(ncolors_), 1);
    offset_t max_send = 0, max_recv = 0;
    for (ordinal_t c = 0; c < ncolors_; ++c) {
      for (size_t k = 0; k < nn; ++k) {
        const size_t e = c * nn + k;
        for (offset_t t = lists_.send_offsets[e] + 1; t < lists_.send_offsets[e + 1]; ++t)
          if (lists_.send_rows[t] != lists_.send_rows[t - 1] + 1) direct_send_[c] = 0;
        for (offset_t t = lists_.recv_offsets[e] + 1; t < lists_.recv_offsets[e + 1]; ++t)
          if (lists_.recv_ghosts[t] != lists_.recv_ghosts[t - 1] + 1)
            throw std::logic_error("mcpi distributed: a message's ghost slots are not consecutive");
      }
      max_send = std::max(max_send, lists_.send_offsets[(c + 1) * nn] - lists_.send_offsets[c * nn]);
      max_recv = std::max(max_recv, lists_.recv_offsets[(c + 1) * nn] - lists_.recv_offsets[c * nn]);
    }
    send_rows_ = util::to_device<ordinal_t, memory_space>(lists_.send_rows, "mcpi.halo.send_rows");
    send_buf_ = Kokkos::View<XScalar*, memory_space>("mcpi.halo.send", static_cast<size_t>(max_send) * nb_);
    if (!direct_) {
      send_host_ =
          Kokkos::View<XScalar*, compat::PinnedHostSpace>("mcpi.halo.send_host", static_cast<size_t>(max_send) * nb_);
      recv_host_ =
          Kokkos::View<XScalar*, compat::PinnedHostSpace>("mcpi.halo.recv_host", static_cast<size_t>(max_recv) * nb_);
    }
    requests_.reserve(2 * nn);
    reset_stats();
  }
  ~MpiHalo() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  MpiHalo(const MpiHalo&) = delete;
  MpiHalo& operator=(const MpiHalo&) = delete;

  ordinal_t ncolors() const override { return ncolors_; }
  ordinal_t boundary_end(ordinal_t c) const override { return boundary_end_[c]; }
  const ExecSpace& interior() const override { return interior_; }

  bool active(ordinal_t c) const override {
    const size_t nn = lists_.neighbours.size();
    return lists_.send_offsets[(c + 1) * nn] > lists_.send_offsets[c * nn] ||
           lists_.recv_offsets[(c + 1) * nn] > lists_.recv_offsets[c * nn];
  }

  void start(const ExecSpace& exec, ordinal_t c, const dq_view& dq) override {
    const size_t nn = lists_.neighbours.size();
    const offset_t s0 = lists_.send_offsets[c * nn], s1 = lists_.send_offsets[(c + 1) * nn];
    const offset_t r0 = lists_.recv_offsets[c * nn];
    const size_t row = static_cast<size_t>(nb_);
    // A messenger that gathers reads scattered rows from dq itself: no packing kernel.
    const bool gather = messenger_ && !direct_send_[c] && messenger_->gathers();
    if (s1 > s0 && !direct_send_[c] && !gather) pack(exec, s0, s1, dq);
    sends_.clear();
    recvs_.clear();
    for (size_t k = 0; k < nn; ++k) {
      const offset_t sb = lists_.send_offsets[c * nn + k], se = lists_.send_offsets[c * nn + k + 1];
      const offset_t rb = lists_.recv_offsets[c * nn + k], re = lists_.recv_offsets[c * nn + k + 1];
      // Offsets in entries: of dq (direct) or of the packed buffer; ghost slots of dq, or of
      // the colour's receive buffer when staged.
      if (se > sb && gather)
        sends_.push_back({lists_.neighbours[k], 0, (se - sb) * row, send_rows_.data() + sb, row * sizeof(XScalar)});
      else if (se > sb)
        sends_.push_back({lists_.neighbours[k],
                          direct_send_[c] ? static_cast<size_t>(lists_.send_rows[sb]) * row : (sb - s0) * row,
                          (se - sb) * row});
      if (re > rb)
        recvs_.push_back({lists_.neighbours[k],
                          direct_ ? (static_cast<size_t>(n_) + lists_.recv_ghosts[rb]) * row : (rb - r0) * row,
                          (re - rb) * row});
      const long long bytes = static_cast<long long>((se - sb) * row * sizeof(XScalar));
      stats_.messages += se > sb;
      stats_.bytes += bytes;
      stats_.color_bytes[c] += bytes;
    }
    const XScalar* source = direct_send_[c] || gather ? dq.data() : send_buf_.data();
    if (messenger_) {
      // On the exchange instance, after exec's work so far (the boundary rows); the interior
      // instance waits for that work too, not the host.
      ppsparse::backend::order_after(interior_, exec);
      ppsparse::backend::order_after(exchange_, exec);
      if (!recording_) harvest(c);
      for (auto* list : {&sends_, &recvs_})
        for (auto& m : *list) {
          m.offset *= sizeof(XScalar);
          m.bytes *= sizeof(XScalar);
        }
      if (recording_)
        messenger_->exchange_untimed(exchange_, source, sends_, dq.data(), recvs_, static_cast<int>(c));
      else
        messenger_->exchange(exchange_, source, sends_, dq.data(), recvs_, static_cast<int>(c));
      return;
    }
    if (!direct_) {  // staged: the messages' rows to pinned host memory, packed in message order
      size_t at = 0;
      for (const auto& m : sends_) {
        Kokkos::deep_copy(
            exec, Kokkos::subview(send_host_, std::make_pair(at, at + m.bytes)),
            Kokkos::View<const XScalar*, memory_space, Kokkos::MemoryUnmanaged>(source + m.offset, m.bytes));
        at += m.bytes;
      }
    }
    // MPI reads what exec wrote, and writes where the last colour's copies read; the interior
    // rows start after the last colour's ghosts.
    exec.fence();
    requests_.clear();
    const int tag = static_cast<int>(c % 30000);
    for (const auto& m : recvs_) {
      requests_.emplace_back();
      MPI_Irecv((direct_ ? dq.data() : recv_host_.data()) + m.offset, static_cast<int>(m.bytes), mpi_type(), m.peer,
                tag, comm_, &requests_.back());
    }
    size_t at = 0;
    for (const auto& m : sends_) {
      requests_.emplace_back();
      MPI_Isend(direct_ ? source + m.offset : send_host_.data() + at, static_cast<int>(m.bytes), mpi_type(), m.peer,
                tag, comm_, &requests_.back());
      at += m.bytes;
    }
  }

  void finish(const ExecSpace& exec, ordinal_t c, const dq_view& dq) override {
    const size_t nn = lists_.neighbours.size();
    const offset_t r0 = lists_.recv_offsets[c * nn], r1 = lists_.recv_offsets[(c + 1) * nn];
    if (!messenger_) {
      Kokkos::Timer timer;
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
      const double waited = timer.seconds();
      stats_.wait_seconds += waited;
      stats_.color_wait[c] += waited;
      if (!direct_ && r1 > r0) {  // the colour's ghosts are consecutive slots of dq
        const size_t first = (static_cast<size_t>(n_) + lists_.recv_ghosts[r0]) * nb_;
        const size_t count = static_cast<size_t>(r1 - r0) * nb_;
        Kokkos::deep_copy(exec, Kokkos::subview(dq, std::make_pair(first, first + count)),
                          Kokkos::subview(recv_host_, std::make_pair(size_t(0), count)));
      }
    }
    ++stats_.exchanges;
    if (messenger_) ppsparse::backend::order_after(exec, exchange_);
    ppsparse::backend::order_after(exec, interior_);
  }

  void exchange_all(const ExecSpace& exec, const dq_view& dq) override {
    for (ordinal_t c = 0; c < ncolors_; ++c) {
      start(exec, c, dq);
      finish(exec, c, dq);
    }
    exec.fence();
  }

  double sum(double local) override {
    // With the sum, whether an exchange failed on the device on any rank (the peer messenger's
    // wait that timed out): every rank then throws, none waits.
    std::string failure;
    if (messenger_) {
      try {
        messenger_->check();
      } catch (const std::exception& e) {
        failure = e.what();
      }
    }
    double mine[2] = {local, failure.empty() ? 0.0 : 1.0}, all[2] = {0.0, 0.0};
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, comm_);
    if (all[1] > 0) throw Error(failure.empty() ? "mcpi distributed: an exchange failed on another rank" : failure);
    return all[0];
  }
  ErrorKind agree(ErrorKind kind, std::string& message) override { return distributed::agree(comm_, kind, message); }
  std::string transport() const override { return transport_; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const HaloStats& stats() const override {
    if (messenger_)
      for (ordinal_t c = 0; c < ncolors_; ++c) harvest(c);
    return stats_;
  }
  void reset_stats() override {
    if (messenger_)
      for (ordinal_t c = 0; c < ncolors_; ++c) messenger_->elapsed(static_cast<int>(c));
    stats_ = HaloStats{};
    stats_.color_wait.assign(static_cast<size_t>(ncolors_), 0.0);
    stats_.color_bytes.assign(static_cast<size_t>(ncolors_), 0);
  }

  bool recordable() const override { return static_cast<bool>(messenger_); }
  void begin_recording(const ExecSpace& exec, const dq_view& dq) override {
    if (!messenger_) throw std::logic_error("mcpi distributed: recording an exchange that passes through the host");
    stats();  // the timings of earlier exchanges, read before nothing may be read
    if (!primed_) {
      // NCCL connects two ranks at their first message. Recordings that made those connections
      // hung on four GPUs (test_distributed, 2026-11-27); with every colour exchanged once before the
      // first recording, they did not. The ghosts already hold their owners' values here: no
      // value changes, and the exchange is not counted.
      const HaloStats before = stats_;
      exchange_all(exec, dq);
      stats();
      stats_ = before;
      primed_ = true;
    }
    before_recording_ = stats_;
    recording_ = true;
  }
  HaloStats end_recording() override {
    recording_ = false;
    HaloStats replay;
    replay.messages = stats_.messages - before_recording_.messages;
    replay.bytes = stats_.bytes - before_recording_.bytes;
    replay.exchanges = stats_.exchanges - before_recording_.exchanges;
    replay.color_bytes.resize(stats_.color_bytes.size());
    for (size_t c = 0; c < replay.color_bytes.size(); ++c)
      replay.color_bytes[c] = stats_.color_bytes[c] - before_recording_.color_bytes[c];
    stats_ = before_recording_;  // recorded, not run
    return replay;
  }
  void count_replay(const HaloStats& replayed) override {
    stats_.messages += replayed.messages;
    stats_.bytes += replayed.bytes;
    stats_.exchanges += replayed.exchanges;
    for (size_t c = 0; c < replayed.color_bytes.size() && c < stats_.color_bytes.size(); ++c)
      stats_.color_bytes[c] += replayed.color_bytes[c];
  }

 private:
  static MPI_Datatype mpi_type() { return std::is_same_v<XScalar, float> ? MPI_FLOAT : MPI_DOUBLE; }

  /// Adds colour c's last device exchange time to the statistics (synchronises with it).
  void harvest(ordinal_t c) const {
    const double t = messenger_->elapsed(static_cast<int>(c));
    stats_.wait_seconds += t;
    stats_.color_wait[c] += t;
  }
  void pack(const ExecSpace& exec, offset_t s0, offset_t s1, const dq_view& dq) const {
    halo_pack<ExecSpace, XScalar>(exec, send_rows_, s0, s1, nb_, dq, send_buf_);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  distributed::HaloLists lists_;
  ordinal_t ncolors_;
  std::vector<ordinal_t> boundary_end_;
  ordinal_t n_;
  int nb_;
  std::string transport_;
  bool direct_ = true;
  ExecSpace interior_;
  ExecSpace exchange_;             ///< where the device messenger's exchanges run (priority_exchange)
  std::vector<char> direct_send_;  ///< per colour: every message from consecutive rows of dq
  Kokkos::View<ordinal_t*, memory_space> send_rows_;
  Kokkos::View<XScalar*, memory_space> send_buf_;
  Kokkos::View<XScalar*, compat::PinnedHostSpace> send_host_, recv_host_;
  std::vector<MPI_Request> requests_;
  std::unique_ptr<distributed::DeviceMessenger<ExecSpace>> messenger_;
  std::vector<distributed::Message> sends_, recvs_;
  mutable HaloStats stats_;  // device exchange times are added when read
  bool recording_ = false;   ///< between begin_recording and end_recording
  bool primed_ = false;      ///< every colour exchanged once (the transport's connections made)
  HaloStats before_recording_;
};

}  // namespace

template <class ExecSpace, class XScalar>
std::shared_ptr<Halo<ExecSpace, XScalar>> make_mpi_halo(MPI_Comm comm, const distributed::HaloLists& lists,
                                                        ordinal_t ncolors, std::vector<ordinal_t> boundary_end,
                                                        ordinal_t n_owned, int nb, Transport transport,
                                                        const ExecSpace& exec, bool priority_exchange) {
  return std::make_shared<MpiHalo<ExecSpace, XScalar>>(comm, lists, ncolors, std::move(boundary_end), n_owned, nb,
                                                       transport, exec, priority_exchange);
}

#define PPSPARSE_INSTANTIATE_MPI_HALO(XS)                                                                    \
  template std::shared_ptr<Halo<DefaultExecSpace, XS>> make_mpi_halo<DefaultExecSpace, XS>(                  \
      MPI_Comm, const distributed::HaloLists&, ordinal_t, std::vector<ordinal_t>, ordinal_t, int, Transport, \
      const DefaultExecSpace&, bool);
PPSPARSE_INSTANTIATE_MPI_HALO(float)
PPSPARSE_INSTANTIATE_MPI_HALO(double)
#undef PPSPARSE_INSTANTIATE_MPI_HALO

}  // namespace ppsparse::mcpi::impl

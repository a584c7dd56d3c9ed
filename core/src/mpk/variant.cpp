#include <ppsparse/mpk/variant.hpp>

#include <ppsparse/error.hpp>

namespace ppsparse::mpk {

const char* to_string(MpkVariant variant) {
  switch (variant) {
    case MpkVariant::back_to_back:
      return "back_to_back";
    case MpkVariant::blocked:
      return "blocked";
    case MpkVariant::graph:
      return "graph";
    case MpkVariant::persistent:
      return "persistent";
    case MpkVariant::pipelined:
      return "pipelined";
    case MpkVariant::automatic:
      return "automatic";
  }
  return "?";
}

const std::vector<MpkVariant>& concrete_variants() {
  static const std::vector<MpkVariant> all{MpkVariant::back_to_back, MpkVariant::blocked, MpkVariant::graph,
                                           MpkVariant::persistent, MpkVariant::pipelined};
  return all;
}

MpkVariant parse_variant(const std::string& name) {
  std::string valid;
  for (MpkVariant v : {MpkVariant::back_to_back, MpkVariant::blocked, MpkVariant::graph, MpkVariant::persistent,
                       MpkVariant::pipelined, MpkVariant::automatic}) {
    if (name == to_string(v)) return v;
    valid += (valid.empty() ? "" : ", ") + std::string(to_string(v));
  }
  throw InvalidArgument("unknown MPK variant '" + name + "' (valid: " + valid + ")");
}

const char* to_string(MpkFormat format) {
  switch (format) {
    case MpkFormat::csr:
      return "csr";
    case MpkFormat::sell:
      return "sell";
    case MpkFormat::automatic:
      return "automatic";
  }
  return "?";
}

MpkFormat parse_format(const std::string& name) {
  for (MpkFormat f : {MpkFormat::csr, MpkFormat::sell, MpkFormat::automatic})
    if (name == to_string(f)) return f;
  throw InvalidArgument("unknown MPK format '" + name + "' (valid: csr, sell, automatic)");
}

const char* to_string(MpkOrdering ordering) {
  switch (ordering) {
    case MpkOrdering::bfs:
      return "bfs";
    case MpkOrdering::input:
      return "input";
    case MpkOrdering::automatic:
      return "automatic";
  }
  return "?";
}

MpkOrdering parse_ordering(const std::string& name) {
  for (MpkOrdering o : {MpkOrdering::bfs, MpkOrdering::input, MpkOrdering::automatic})
    if (name == to_string(o)) return o;
  throw InvalidArgument("unknown MPK ordering '" + name + "' (valid: bfs, input, automatic)");
}

}  // namespace ppsparse::mpk

// The names and bytes models of O's storage formats (mcpi/o_format.hpp), from the lines of
// mcpi/o_formats.def and their codecs.
#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/detail/o_codec.hpp>
#include <ppsparse/mcpi/o_format.hpp>

namespace ppsparse::mcpi {

namespace {

/// Bytes of a codec's entries and scales.
template <class Codec>
double codec_bytes(long long n, long long nnzb, int nb) {
  const double entries = static_cast<double>(nnzb) * nb * nb;
  switch (Codec::scale) {
    case detail::OScale::none:
      return sizeof(typename Codec::stored) * entries;
    case detail::OScale::per_block_row:
      return sizeof(typename Codec::stored) * entries + static_cast<double>(n);
    case detail::OScale::per_column_of_block:
      return sizeof(typename Codec::stored) * entries + static_cast<double>(nnzb) * nb;
  }
  return sizeof(typename Codec::stored) * entries;
}

}  // namespace

const char* name(OFormat f) {
  switch (f) {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary) \
  case OFormat::id:                                \
    return #id;
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
  }
  return "?";
}

const std::vector<OFormat>& all_o_formats() {
  static const std::vector<OFormat> all = {
#define PPSPARSE_MCPI_O_FORMAT(id, codec, summary) OFormat::id,
#include <ppsparse/mcpi/o_formats.def>
#undef PPSPARSE_MCPI_O_FORMAT
  };
  return all;
}

OFormat parse_o_format(const std::string& s) {
  std::string valid;
  for (const OFormat f : all_o_formats()) {
    if (s == name(f)) return f;
    valid += std::string(valid.empty() ? "" : ", ") + name(f);
  }
  throw InvalidArgument("unknown O format '" + s + "' (valid: " + valid + ")");
}

double o_format_bytes(OFormat f, long long n, long long nnzb, int nb) {
  double bytes = 0.0;
  detail::with_codec(f, [&](auto codec) { bytes = codec_bytes<decltype(codec)>(n, nnzb, nb); });
  return bytes;
}

}  // namespace ppsparse::mcpi

// The names and sizes of O's storage formats (mcpi/o_format.hpp).
#include <ppsparse/error.hpp>
#include <ppsparse/mcpi/o_format.hpp>

namespace ppsparse::mcpi {

const char* name(OFormat f) {
  switch (f) {
    case OFormat::fp32:
      return "fp32";
    case OFormat::bf16:
      return "bf16";
    case OFormat::fp16:
      return "fp16";
    case OFormat::int8:
      return "int8";
  }
  return "?";
}

const std::vector<OFormat>& all_o_formats() {
  static const std::vector<OFormat> all = {OFormat::fp32, OFormat::bf16, OFormat::fp16, OFormat::int8};
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
  const double entries = static_cast<double>(nnzb) * nb * nb;
  switch (f) {
    case OFormat::fp32:
      return 4.0 * entries;
    case OFormat::bf16:
      return 2.0 * entries;
    case OFormat::fp16:
      return 2.0 * entries + static_cast<double>(n);
    case OFormat::int8:
      return entries + static_cast<double>(nnzb) * nb;
  }
  return 4.0 * entries;
}

}  // namespace ppsparse::mcpi

#include <ppsparse/mcpi/variant.hpp>

#include <iterator>

#include <ppsparse/error.hpp>
#include <ppsparse/util/names.hpp>

namespace ppsparse::mcpi {

namespace {
constexpr const char* kKernelNames[] = {
#define PPSPARSE_MCPI_KERNEL(id, layout, summary) #id,
#include <ppsparse/mcpi/kernels.def>
#undef PPSPARSE_MCPI_KERNEL
};
constexpr const char* kKernelSummaries[] = {
#define PPSPARSE_MCPI_KERNEL(id, layout, summary) summary,
#include <ppsparse/mcpi/kernels.def>
#undef PPSPARSE_MCPI_KERNEL
};
constexpr GroupLayout kKernelLayouts[] = {
#define PPSPARSE_MCPI_KERNEL(id, layout, summary) GroupLayout::layout,
#include <ppsparse/mcpi/kernels.def>
#undef PPSPARSE_MCPI_KERNEL
};

bool strip_suffix(std::string& s, const std::string& suffix) {
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  s.resize(s.size() - suffix.size());
  return true;
}
}  // namespace

const char* name(Kernel k) { return util::name_of(k, kKernelNames); }

const char* summary(Kernel k) { return util::name_of(k, kKernelSummaries); }

GroupLayout layout(Kernel k) {
  const auto i = static_cast<std::size_t>(k);
  if (i >= std::size(kKernelLayouts)) throw InvalidArgument("mcpi: not a kernel of kernels.def");
  return kKernelLayouts[i];
}

const std::vector<Kernel>& all_kernels() {
  static const std::vector<Kernel> all = util::enumerators<Kernel>(std::size(kKernelNames));
  return all;
}

Kernel parse_kernel(const std::string& s) { return util::parse_name<Kernel>(s, kKernelNames, "MCPI kernel"); }

std::string name(const Variant& v) {
  if (v.is_auto) return "auto";
  return std::string(name(v.kernel)) + (v.l2_window ? "_l2" : "") + (v.async_copy ? "_async" : "");
}

Variant parse_variant(const std::string& s) {
  if (s == "auto") return Variant::automatic();
  std::string kernel = s;
  Variant v;
  v.async_copy = strip_suffix(kernel, "_async");
  v.l2_window = strip_suffix(kernel, "_l2");
  try {
    v.kernel = parse_kernel(kernel);
  } catch (const InvalidArgument&) {
    std::string valid;
    for (const char* k : kKernelNames) valid += (valid.empty() ? "" : ", ") + std::string(k);
    throw InvalidArgument("unknown MCPI variant '" + s + "' (valid: auto, " + valid +
                          ", each with the optional suffixes _l2 and _async, e.g. rows_per_warp_l2_async)");
  }
  return v;
}

Variant resolve_variant(const Variant& v, int nb) {
  if (nb < 1 || nb > 64) throw InvalidArgument("mcpi: block size nb = " + std::to_string(nb) + " is outside 1..64");
  if (!v.is_auto) return v;
  // One rule today: the benchmarks (docs/perf/kernel_choices.md) show rows_per_warp fastest at
  // every nb, with the backend's kernels and the portable ones; the features are within noise.
  return Variant(Kernel::rows_per_warp);
}

const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> all = [] {
    std::vector<Variant> v;
    for (Kernel k : all_kernels()) v.push_back(Variant(k));
    for (Kernel k : {Kernel::warp_per_row, Kernel::rows_per_warp}) {
      v.push_back(Variant(k, true, false));
      v.push_back(Variant(k, true, true));
    }
    return v;
  }();
  return all;
}

}  // namespace ppsparse::mcpi

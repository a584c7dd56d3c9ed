#include <ppsparse/mpk/variant.hpp>

#include <iterator>

#include <ppsparse/util/names.hpp>

namespace ppsparse::mpk {

namespace {
constexpr const char* kVariantNames[] = {
#define PPSPARSE_MPK_VARIANT(id, summary) #id,
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
    "automatic"};
constexpr const char* kVariantSummaries[] = {
#define PPSPARSE_MPK_VARIANT(id, summary) summary,
#include <ppsparse/mpk/variants.def>
#undef PPSPARSE_MPK_VARIANT
    "the cost model's choice, checked once against back_to_back by timing"};
static_assert(std::size(kVariantNames) == static_cast<std::size_t>(MpkVariant::automatic) + 1);
constexpr const char* kFormatNames[] = {"csr", "sell", "automatic"};
constexpr const char* kOrderingNames[] = {"bfs", "input", "automatic"};
static_assert(std::size(kFormatNames) == static_cast<std::size_t>(MpkFormat::automatic) + 1);
static_assert(std::size(kOrderingNames) == static_cast<std::size_t>(MpkOrdering::automatic) + 1);
}  // namespace

const char* to_string(MpkVariant variant) { return util::name_of(variant, kVariantNames); }

const char* summary(MpkVariant variant) { return util::name_of(variant, kVariantSummaries); }

const std::vector<MpkVariant>& concrete_variants() {
  static const std::vector<MpkVariant> all =
      util::enumerators<MpkVariant>(static_cast<std::size_t>(MpkVariant::automatic));
  return all;
}

MpkVariant parse_variant(const std::string& name) {
  return util::parse_name<MpkVariant>(name, kVariantNames, "MPK variant");
}

const char* to_string(MpkFormat format) { return util::name_of(format, kFormatNames); }

MpkFormat parse_format(const std::string& name) {
  return util::parse_name<MpkFormat>(name, kFormatNames, "MPK format");
}

const char* to_string(MpkOrdering ordering) { return util::name_of(ordering, kOrderingNames); }

MpkOrdering parse_ordering(const std::string& name) {
  return util::parse_name<MpkOrdering>(name, kOrderingNames, "MPK ordering");
}

}  // namespace ppsparse::mpk

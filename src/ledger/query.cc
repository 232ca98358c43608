#include "aicost/ledger/query.h"

#include <algorithm>
#include <array>
#include <utility>

#include "aicost/core/suggest.h"

namespace aicost::ledger {
namespace {

struct Name {
  const char* name;
  Dimension dim;
};

// The first name of each dimension is the one reports print; the rest are accepted spellings.
constexpr std::array kNames{
    Name{"provider", Dimension::kProvider},
    Name{"billing_account", Dimension::kBillingAccount},
    Name{"sub_account", Dimension::kSubAccount},
    Name{"account", Dimension::kSubAccount},
    Name{"service", Dimension::kService},
    Name{"service_category", Dimension::kServiceCategory},
    Name{"region", Dimension::kRegion},
    Name{"resource", Dimension::kResource},
    Name{"resource_name", Dimension::kResourceName},
    Name{"resource_type", Dimension::kResourceType},
    Name{"sku", Dimension::kSku},
    Name{"charge_category", Dimension::kChargeCategory},
    Name{"charge_frequency", Dimension::kChargeFrequency},
    Name{"pricing_category", Dimension::kPricingCategory},
    Name{"commitment_status", Dimension::kCommitmentStatus},
    Name{"commitment", Dimension::kCommitment},
    Name{"consumed_unit", Dimension::kConsumedUnit},
    Name{"currency", Dimension::kCurrency},
};

}  // namespace

Sums& Sums::operator+=(const Sums& o) {
  billed += o.billed;
  effective += o.effective;
  list += o.list;
  contracted += o.contracted;
  gpu_hours += o.gpu_hours;
  rows += o.rows;
  observed_gpu_hours += o.observed_gpu_hours;
  consumed_quantity += o.consumed_quantity;
  first_day = std::min(first_day, o.first_day);
  last_day = std::max(last_day, o.last_day);
  useful_gpu_hours += o.useful_gpu_hours;
  return *this;
}

Day period_start(Period p, Day d) {
  switch (p) {
    case Period::kDay: return d;
    case Period::kWeek: return d - ((d + 3) % 7 + 7) % 7;  // Monday; 1970-01-01 was a Thursday
    case Period::kMonth: {
      // The day of the month, by the civil-from-days algorithm of day_text (Hinnant, "chrono-
      // Compatible Low-Level Date Algorithms", civil_from_days).
      const Day z = d + 719468;
      const int era = (z >= 0 ? z : z - 146096) / 146097;
      const unsigned doe = static_cast<unsigned>(z - era * 146097);
      const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
      const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
      const unsigned mp = (5 * doy + 2) / 153;
      return d - static_cast<Day>(doy - (153 * mp + 2) / 5);
    }
  }
  return d;
}

std::vector<std::string> dimension_names() {
  std::vector<std::string> out;
  for (const auto& n : kNames) out.emplace_back(n.name);
  out.emplace_back("tag:KEY");
  return out;
}

core::Result<GroupKey> parse_group_key(std::string_view text) {
  if (text.substr(0, 4) == "tag:") {
    const auto key = canonical_tag_key(text.substr(4));
    if (key.empty())
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "a tag dimension needs a key, as in tag:team", std::string(text));
    return GroupKey{Dimension::kTag, key};
  }
  // FOCUS column names work too: "ServiceName" -> "service_name" -> service.
  std::string name = canonical_tag_key(text);
  static const std::array<std::pair<const char*, const char*>, 10> kFocus{{
      {"provider_name", "provider"},
      {"service_name", "service"},
      {"region_id", "region"},
      {"resource_id", "resource"},
      {"sub_account_id", "sub_account"},
      {"billing_account_id", "billing_account"},
      {"sku_id", "sku"},
      {"commitment_discount_status", "commitment_status"},
      {"billing_currency", "currency"},
      {"commitment_discount_id", "commitment"},
  }};
  for (const auto& [focus, ours] : kFocus)
    if (name == focus) name = ours;
  for (const auto& n : kNames)
    if (name == n.name) return GroupKey{n.dim, {}};
  return core::make_error(
      core::ErrorCode::kInvalidInput,
      "unknown dimension '" + std::string(text) + "'." +
          core::did_you_mean(text, dimension_names()) +
          " Dimensions: provider, billing_account, sub_account, service, service_category, "
          "region, resource, resource_name, resource_type, sku, charge_category, "
          "charge_frequency, pricing_category, commitment_status, commitment, consumed_unit, "
          "currency, tag:KEY",
      std::string(text));
}

std::string group_key_name(const GroupKey& k) {
  if (k.dim == Dimension::kTag) return "tag:" + k.tag_key;
  for (const auto& n : kNames)
    if (n.dim == k.dim) return n.name;
  return "?";
}

const std::string& dimension_value(const Charge& c, Dimension d) {
  static const std::string kEmpty;
  switch (d) {
    case Dimension::kProvider: return c.provider;
    case Dimension::kBillingAccount: return c.billing_account_id;
    case Dimension::kSubAccount: return c.sub_account_id;
    case Dimension::kService: return c.service_name;
    case Dimension::kServiceCategory: return c.service_category;
    case Dimension::kRegion: return c.region_id;
    case Dimension::kResource: return c.resource_id;
    case Dimension::kResourceName: return c.resource_name;
    case Dimension::kResourceType: return c.resource_type;
    case Dimension::kSku: return c.sku_id;
    case Dimension::kChargeCategory: return c.charge_category;
    case Dimension::kChargeFrequency: return c.charge_frequency;
    case Dimension::kPricingCategory: return c.pricing_category;
    case Dimension::kCommitmentStatus: return c.commitment_discount_status;
    case Dimension::kCommitment: return c.commitment_discount_id;
    case Dimension::kConsumedUnit: return c.consumed_unit;
    case Dimension::kCurrency: return c.currency;
    case Dimension::kTag: return kEmpty;
  }
  return kEmpty;
}

const std::string* tag_value(const std::vector<Tag>& tags, const TagKey& k) {
  auto find = [&](const std::string& key) -> const std::string* {
    for (const auto& t : tags)
      if (t.key == key && !t.value.empty()) return &t.value;
    return nullptr;
  };
  if (const auto* v = find(k.key)) return v;
  for (const auto& alias : k.aliases)
    if (const auto* v = find(alias)) return v;
  return nullptr;
}

std::optional<std::vector<std::string>> resolve_tags(const std::vector<Tag>& tags,
                                                     const AggregateQuery& q) {
  // Filters on one tag key are alternatives (OR); on different keys all must hold (AND).
  for (const auto& f : q.tag_filters) {
    const auto* v = tag_value(tags, f.key);
    const std::string& value = v ? *v : std::string();
    bool any = false;
    for (const auto& g : q.tag_filters) any |= g.key.key == f.key.key && g.value == value;
    if (!any) return std::nullopt;
  }
  std::vector<std::string> out;
  out.reserve(q.tags.size());
  for (const auto& k : q.tags) {
    const auto* v = tag_value(tags, k);
    out.push_back(v ? *v : std::string());
  }
  return out;
}

bool in_rollup(Dimension d) {
  return d != Dimension::kResource && d != Dimension::kResourceName && d != Dimension::kSku &&
         d != Dimension::kCommitment;
}

}  // namespace aicost::ledger

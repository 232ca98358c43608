#include "aicost/ledger/rollup.h"

#include <algorithm>

namespace aicost::ledger {

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
    case Dimension::kCurrency: return c.currency;
    case Dimension::kTag: return kEmpty;
  }
  return kEmpty;
}

namespace {

std::size_t mix(std::size_t h, std::size_t v) { return (h ^ v) * 0x9E3779B97F4A7C15ull; }

}  // namespace

std::size_t DailyRollup::Hash::operator()(const Key& k) const {
  std::size_t h = mix(static_cast<std::size_t>(k.day), static_cast<std::size_t>(k.tagset));
  for (const auto& v : k.values) h = mix(h, std::hash<std::string_view>{}(v));
  return h;
}

std::size_t DailyRollup::Hash::operator()(const Probe& p) const {
  std::size_t h = mix(static_cast<std::size_t>(p.day), static_cast<std::size_t>(p.tagset));
  for (Dimension d : kRollupDims) h = mix(h, std::hash<std::string_view>{}(dimension_value(*p.charge, d)));
  return h;
}

bool DailyRollup::Eq::operator()(const Key& a, const Key& b) const {
  return a.day == b.day && a.tagset == b.tagset && a.values == b.values;
}

bool DailyRollup::Eq::operator()(const Probe& p, const Key& k) const {
  if (p.day != k.day || p.tagset != k.tagset) return false;
  for (std::size_t i = 0; i < kRollupDimCount; ++i)
    if (dimension_value(*p.charge, kRollupDims[i]) != k.values[i]) return false;
  return true;
}

void DailyRollup::add(const Charge& c, std::int64_t tagset) {
  const Probe probe{day_of(c.period_start), tagset, &c};
  auto it = groups_.find(probe);
  if (it == groups_.end()) {
    Key key{probe.day, tagset, {}};
    for (std::size_t i = 0; i < kRollupDimCount; ++i) key.values[i] = dimension_value(c, kRollupDims[i]);
    it = groups_.emplace(std::move(key), Sums{}).first;
  }
  auto& sums = it->second;
  sums.billed += c.billed;
  sums.effective += c.effective;
  sums.list += c.list;
  sums.contracted += c.contracted.value_or(0);
  sums.gpu_hours += c.gpu_hours;
  sums.rows += 1;
}

std::vector<RollupRow> DailyRollup::rows() const {
  std::vector<RollupRow> out;
  out.reserve(groups_.size());
  for (const auto& [key, sums] : groups_)
    out.push_back({key.day, {key.values.begin(), key.values.end()}, key.tagset, sums});
  std::sort(out.begin(), out.end(), [](const RollupRow& a, const RollupRow& b) {
    return std::tie(a.day, a.values, a.tagset) < std::tie(b.day, b.values, b.tagset);
  });
  return out;
}

}  // namespace aicost::ledger

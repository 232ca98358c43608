#include "resource_rollup.h"

#include "id_rollup.h"

namespace aicost::store {
namespace {

// Where each of the row's ids sits in ChargeTextIds: kResourceRollupDims after the resource, then
// the currency.
const std::array<std::size_t, ledger::kResourceRollupDimCount>& resource_slots() {
  static const auto slots = [] {
    std::array<std::size_t, ledger::kResourceRollupDimCount> out{};
    for (std::size_t i = 1; i < ledger::kResourceRollupDimCount; ++i)
      out[i - 1] = text_slot(ledger::kResourceRollupDims[i]);
    out.back() = text_slot(ledger::Dimension::kCurrency);
    return out;
  }();
  return slots;
}

}  // namespace

std::uint64_t ResourceRollup::hash(const ResourceRollupRow& key) {
  const std::uint64_t seed =
      hash_bytes(reinterpret_cast<const char*>(key.ids.data()), sizeof key.ids,
                 static_cast<std::uint64_t>(key.day) * 0x9E3779B97F4A7C15ull ^
                     static_cast<std::uint64_t>(key.tagset));
  return hash_bytes(key.resource.data(), key.resource.size(), seed);
}

void ResourceRollup::add(std::span<const ledger::Charge> rows, std::span<const ChargeTextIds> ids,
                         std::span<const std::int64_t> tagsets) {
  if (given_up_) return;
  const auto& slots = resource_slots();
  ResourceRollupRow key;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& c = rows[k];
    key.day = ledger::day_of(c.period_start);
    key.resource = c.resource_id;
    key.tagset = tagsets[k];
    for (std::size_t i = 0; i < slots.size(); ++i) key.ids[i] = ids[k][slots[i]];
    const std::uint64_t h = hash(key);
    std::size_t g = index_.find(h, [&](std::size_t i) { return same_key(groups_[i], key); });
    if (g == HashIndex::kNone) {
      g = groups_.size();
      groups_.push_back(key);
      index_.insert(h, g);
    }
    add_charge(groups_[g].sums, c);
  }
  rows_ += static_cast<std::int64_t>(rows.size());
  const auto groups = static_cast<std::int64_t>(groups_.size());
  if (groups_.size() > kMaxGroups || (rows_ >= kProbeRows && rows_ < kMinFold * groups)) {
    clear();
    given_up_ = true;
  }
}

bool ResourceRollup::folds() const {
  if (given_up_ || groups_.empty() || rows_ < kMinFold * static_cast<std::int64_t>(groups_.size()))
    return false;
  for (const auto& g : groups_)
    if (!fits_int64(g.sums)) return false;
  return true;
}

void ResourceRollup::clear() {
  index_.clear();
  std::vector<ResourceRollupRow>().swap(groups_);
  rows_ = 0;
  given_up_ = false;
}

}  // namespace aicost::store

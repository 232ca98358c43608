#include "id_rollup.h"

#include <algorithm>
#include <tuple>

#include "aicost/ledger/rollup.h"

namespace aicost::store {
namespace {

// Where each rollup dimension's id sits in ChargeTextIds.
const std::array<std::size_t, ledger::kRollupDimCount>& rollup_slots() {
  static const auto slots = [] {
    std::array<std::size_t, ledger::kRollupDimCount> out{};
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = text_slot(ledger::kRollupDims[i]);
    return out;
  }();
  return slots;
}

}  // namespace

bool fits_int64(const ledger::Sums& s) {
  for (auto v : {s.billed, s.effective, s.list, s.contracted})
    if (v > INT64_MAX || v < INT64_MIN) return false;
  return true;
}

// The groups number a tenth or so of the rows (139k for the benchmark's 1M): looking one up misses
// the CPU cache twice, in the index and in the group. Knowing the whole batch, the loop asks for
// the index slot kAhead rows ahead and for the group half as far ahead, so both are there when
// the row's turn comes.
void IdRollup::add(std::span<const ledger::Charge> rows, std::span<const ChargeTextIds> ids,
                   std::span<const std::int64_t> tagsets) {
  constexpr std::size_t kAhead = 16;
  const auto& slots = rollup_slots();
  batch_.resize(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    Key& key = batch_[k].first;
    key.day = ledger::day_of(rows[k].period_start);
    key.tagset = tagsets[k];
    for (std::size_t i = 0; i < slots.size(); ++i) key.ids[i] = ids[k][slots[i]];
    batch_[k].second = hash_bytes(reinterpret_cast<const char*>(key.ids.data()), sizeof key.ids,
                                  static_cast<std::uint64_t>(key.day) * 0x9E3779B97F4A7C15ull ^
                                      static_cast<std::uint64_t>(key.tagset));
  }
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (k + kAhead < rows.size()) index_.prefetch(batch_[k + kAhead].second);
    if (k + kAhead / 2 < rows.size()) {
      if (const auto g = index_.first(batch_[k + kAhead / 2].second); g != HashIndex::kNone) {
        const char* p = reinterpret_cast<const char*>(&group(g));
        for (std::size_t line = 0; line < sizeof(Group); line += 64)
          __builtin_prefetch(p + line, 1);
      }
    }
    const auto& key = batch_[k].first;  // not a structured binding: clang 14 cannot capture those
    const auto hash = batch_[k].second;
    auto g = index_.find(hash, [&](std::size_t i) { return group(i).key == key; });
    if (g == HashIndex::kNone) {
      g = groups_++;
      if ((g >> kBlockBits) == blocks_.size())
        blocks_.push_back(std::make_unique<Group[]>(kBlockSize));
      group(g) = {key, {}};
      index_.insert(hash, g);
    }
    const auto& c = rows[k];
    auto& sums = group(g).sums;
    add_charge(sums, c);
    if (overflow_line_ == 0 && !fits_int64(sums)) overflow_line_ = c.line;
  }
}

core::Status IdRollup::check_fits() const {
  for (std::size_t g = 0; g < groups_; ++g)
    if (!fits_int64(group(g).sums))
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          "a day's cost in one group exceeds 9.2e9 currency units (first at this row); the "
          "ledger cannot hold it exactly",
          "line " + std::to_string(overflow_line_));
  return {};
}

std::vector<IdRollupRow> IdRollup::rows() const {
  std::vector<IdRollupRow> out;
  out.reserve(groups_);
  for (std::size_t g = 0; g < groups_; ++g) {
    const auto& [key, sums] = group(g);
    out.push_back({key.day, key.ids, key.tagset, sums});
  }
  std::sort(out.begin(), out.end(), [](const IdRollupRow& a, const IdRollupRow& b) {
    return std::tie(a.day, a.ids, a.tagset) < std::tie(b.day, b.ids, b.tagset);
  });
  return out;
}

}  // namespace aicost::store

#include "group_fold.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace aicost::store {
namespace {

void put(std::string& key, std::int64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); }

std::int64_t get(const std::string& key, std::size_t i) {
  std::int64_t v = 0;
  std::memcpy(&v, key.data() + i * sizeof v, sizeof v);
  return v;
}

}  // namespace

GroupFold::GroupFold(const ledger::AggregateQuery& q, const std::map<std::int64_t, std::vector<ledger::Tag>>& tagsets)
    : q_(q) {
  if (!q.reads_tags()) return;
  std::map<std::vector<std::string>, std::int64_t> seen;
  auto index = [&](const std::vector<ledger::Tag>& tags) -> std::int64_t {
    auto values = ledger::resolve_tags(tags, q);
    if (!values) return -1;
    auto [it, fresh] = seen.try_emplace(*values, static_cast<std::int64_t>(resolved_.size()));
    if (fresh) resolved_.push_back(std::move(*values));
    return it->second;
  };
  untagged_ = index({});
  for (const auto& [id, tags] : tagsets) tagset_[id] = index(tags);
}

std::int64_t GroupFold::text(std::string_view value) {
  if (auto it = text_ids_.find(value); it != text_ids_.end()) return it->second;
  const std::int64_t id = -static_cast<std::int64_t>(texts_.size()) - 1;
  texts_.emplace_back(value);
  text_ids_.emplace(std::string(value), id);
  return id;
}

void GroupFold::add(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset,
                    const ledger::Sums& sums) {
  std::int64_t tags = 0;
  if (q_.reads_tags()) {
    const auto it = tagset_.find(tagset);
    tags = tagset == 0 || it == tagset_.end() ? untagged_ : it->second;
    if (tags < 0) return;
  }
  key_.clear();
  put(key_, day);
  for (auto c : cells) put(key_, c);
  put(key_, tags);
  auto it = groups_.find(key_);
  if (it == groups_.end()) it = groups_.emplace(key_, ledger::Sums{}).first;
  it->second += sums;
}

core::Result<std::vector<ledger::AggregateRow>> GroupFold::rows(const Lookup& lookup) const {
  std::unordered_map<std::int64_t, std::string> looked_up;
  auto cell_text = [&](std::int64_t c) -> core::Result<std::string> {
    if (c < 0) return texts_[static_cast<std::size_t>(-c - 1)];
    auto it = looked_up.find(c);
    if (it == looked_up.end()) {
      auto t = lookup(c);
      if (!t) return t.error();
      it = looked_up.emplace(c, std::move(*t)).first;
    }
    return it->second;
  };
  const std::size_t cells = q_.dims.size() + 1;
  std::vector<ledger::AggregateRow> out;
  out.reserve(groups_.size());
  for (const auto& [key, sums] : groups_) {
    ledger::AggregateRow r;
    r.day = static_cast<ledger::Day>(get(key, 0));
    for (std::size_t i = 0; i < cells; ++i) {
      auto t = cell_text(get(key, 1 + i));
      if (!t) return t.error();
      if (i + 1 < cells) r.values.push_back(std::move(*t));
      else r.currency = std::move(*t);
    }
    if (q_.reads_tags()) {
      const auto& tags = resolved_[static_cast<std::size_t>(get(key, 1 + cells))];
      r.values.insert(r.values.end(), tags.begin(), tags.end());
    }
    r.sums = sums;
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const ledger::AggregateRow& a, const ledger::AggregateRow& b) {
    return std::tie(a.day, a.values, a.currency) < std::tie(b.day, b.values, b.currency);
  });
  return out;
}

}  // namespace aicost::store

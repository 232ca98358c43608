#include "group_fold.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace aicost::store {

std::int64_t TextIds::id(std::string_view value) {
  const auto added = ids_.add(value, -static_cast<std::int64_t>(texts_.size()) - 1);
  if (added.fresh) texts_.push_back(added.stored);
  return added.id;
}

std::vector<std::int64_t> TextIds::ids_of(const TextIds& other) {
  std::vector<std::int64_t> out;
  out.reserve(other.texts_.size());
  for (const auto text : other.texts_) out.push_back(id(text));
  return out;
}

GroupFold::GroupFold(const ledger::AggregateQuery& q, const std::map<std::int64_t, std::vector<ledger::Tag>>& tagsets,
                     TextIds* texts)
    : q_(q), texts_(texts ? texts : &own_texts_), width_(q.dims.size() + 3), key_(width_) {
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

GroupFold::GroupFold(GroupFold&& o) noexcept
    : q_(o.q_),
      resolved_(std::move(o.resolved_)),
      tagset_(std::move(o.tagset_)),
      untagged_(o.untagged_),
      last_tagset_(o.last_tagset_),
      last_tags_(o.last_tags_),
      own_texts_(std::move(o.own_texts_)),
      texts_(o.texts_ == &o.own_texts_ ? &own_texts_ : o.texts_),
      width_(o.width_),
      key_blocks_(std::move(o.key_blocks_)),
      sum_blocks_(std::move(o.sum_blocks_)),
      groups_(o.groups_),
      index_(std::move(o.index_)),
      key_(std::move(o.key_)),
      hashes_(std::move(o.hashes_)) {}

GroupFold::~GroupFold() = default;

void GroupFold::add(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset,
                    const ledger::Sums& sums) {
  if (make_key(day, cells, tagset, key_.data())) group(key_.data(), hash(key_.data())) += sums;
}

bool GroupFold::make_key(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset,
                         std::int64_t* out) {
  std::int64_t tags = 0;
  if (q_.reads_tags()) {
    if (tagset != last_tagset_) {
      const auto it = tagset_.find(tagset);
      last_tagset_ = tagset;
      last_tags_ = tagset == 0 || it == tagset_.end() ? untagged_ : it->second;
    }
    tags = last_tags_;
    if (tags < 0) return false;
  }
  out[0] = day;
  std::copy(cells.begin(), cells.end(), out + 1);
  out[width_ - 1] = tags;
  return true;
}

// Groups are spread over memory and rows meet them at random: each row would wait for its index
// slot, then its group. So the slot is fetched kAhead rows early, and the group half as early.
void GroupFold::add_keyed(std::span<const std::int64_t> keys, std::span<const ledger::Sums> row_sums) {
  constexpr std::size_t kAhead = 16;
  const std::size_t n = row_sums.size();
  hashes_.resize(n);
  for (std::size_t r = 0; r < n; ++r) hashes_[r] = hash(&keys[r * width_]);
  for (std::size_t r = 0; r < n; ++r) {
    if (r + kAhead < n) index_.prefetch(hashes_[r + kAhead]);
    if (r + kAhead / 2 < n) {
      if (const auto g = index_.first(hashes_[r + kAhead / 2]); g != HashIndex::kNone) {
        __builtin_prefetch(key(g));
        __builtin_prefetch(&sums(g), 1);
      }
    }
    group(&keys[r * width_], hashes_[r]) += row_sums[r];
  }
}

void GroupFold::absorb(const GroupFold& other, std::span<const std::int64_t> standins) {
  // Both folds resolve the same tag sets in the same order, so their tag indexes agree.
  std::vector<std::int64_t> k(width_);
  for (std::size_t g = 0; g < other.groups_; ++g) {
    std::copy_n(other.key(g), width_, k.begin());
    for (std::size_t i = 1; i + 1 < width_; ++i)
      if (k[i] < 0) k[i] = standins[static_cast<std::size_t>(-k[i] - 1)];
    group(k.data(), hash(k.data())) += other.sums(g);
  }
}

ledger::Sums& GroupFold::group(const std::int64_t* key, std::uint64_t hash) {
  const std::size_t bytes = width_ * sizeof(std::int64_t);
  std::size_t g = index_.find(hash, [&](std::size_t p) { return std::memcmp(this->key(p), key, bytes) == 0; });
  if (g == HashIndex::kNone) {
    g = groups_++;
    if ((g & (kBlockSize - 1)) == 0) {
      key_blocks_.push_back(std::make_unique_for_overwrite<std::int64_t[]>(kBlockSize * width_));
      sum_blocks_.push_back(std::make_unique<ledger::Sums[]>(kBlockSize));
    }
    std::memcpy(this->key(g), key, bytes);
    index_.insert(hash, g);
  }
  return sum_blocks_[g >> kBlockBits][g & (kBlockSize - 1)];
}

core::Result<std::vector<ledger::AggregateRow>> GroupFold::rows(const Lookup& lookup) const {
  const std::size_t cells = width_ - 2;  // dims and currency
  // Each distinct cell once: its text, then its rank in text order, so that groups sort by
  // integers and are built once, in order. A cell's position in `text`: a stand-in's by its
  // number, a string id's through a hash index over `wanted`.
  constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
  std::vector<std::uint32_t> standin_pos(texts_->size(), kUnseen);
  HashIndex id_index;
  std::vector<std::string> text;
  std::vector<std::pair<std::int64_t, std::uint32_t>> wanted;  // string ids and their positions
  std::vector<std::uint32_t> pos(groups_ * cells);      // each group's cells in `text`
  std::vector<std::uint32_t> uses;                            // cells left to build per text
  uses.reserve(groups_);
  auto position = [&](std::int64_t c) {
    const auto next = static_cast<std::uint32_t>(text.size());
    if (c < 0) {
      std::uint32_t& p = standin_pos[static_cast<std::size_t>(-c - 1)];
      if (p == kUnseen) {
        p = next;
        text.emplace_back(texts_->text(c));
        uses.push_back(0);
      }
      return p;
    }
    const std::uint64_t hash = hash_bytes(reinterpret_cast<const char*>(&c), sizeof c);
    const std::size_t w = id_index.find(hash, [&](std::size_t k) { return wanted[k].first == c; });
    if (w != HashIndex::kNone) return wanted[w].second;
    id_index.insert(hash, wanted.size());
    wanted.emplace_back(c, next);
    text.emplace_back();
    uses.push_back(0);
    return next;
  };
  for (std::size_t g = 0; g < groups_; ++g) {
    for (std::size_t i = 0; i < cells; ++i) {
      const std::uint32_t p = position(key(g)[1 + i]);
      pos[g * cells + i] = p;
      ++uses[p];
    }
  }
  std::sort(wanted.begin(), wanted.end());
  std::vector<std::int64_t> ids;
  ids.reserve(wanted.size());
  for (const auto& w : wanted) ids.push_back(w.first);
  std::vector<std::string> looked_up;
  if (!ids.empty()) {
    if (auto s = lookup(ids, looked_up); !s) return s.error();
    if (looked_up.size() != ids.size())
      return core::make_error(core::ErrorCode::kInternal, "string ids without text in the ledger");
    for (std::size_t k = 0; k < wanted.size(); ++k) text[wanted[k].second] = std::move(looked_up[k]);
  }
  std::vector<std::uint32_t> by_text(text.size()), rank(text.size());
  std::iota(by_text.begin(), by_text.end(), 0u);
  std::sort(by_text.begin(), by_text.end(), [&](std::uint32_t a, std::uint32_t b) { return text[a] < text[b]; });
  for (std::size_t r = 0; r < by_text.size(); ++r) {
    // Equal texts (a stand-in and a string id can spell the same) share a rank.
    rank[by_text[r]] = r > 0 && text[by_text[r]] == text[by_text[r - 1]] ? rank[by_text[r - 1]]
                                                                          : static_cast<std::uint32_t>(r);
  }
  std::vector<std::uint32_t> tag_rank(resolved_.size());
  {
    std::vector<std::uint32_t> order(resolved_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return resolved_[a] < resolved_[b]; });
    for (std::size_t r = 0; r < order.size(); ++r) tag_rank[order[r]] = static_cast<std::uint32_t>(r);
  }
  // Sort key per group: the dims' ranks, the tag tuple's rank, the currency's rank, the day (each
  // group's days in a run).
  const std::size_t dims = cells - 1;
  std::vector<std::int64_t> sort_keys(groups_ * width_);
  for (std::size_t g = 0; g < groups_; ++g) {
    const std::int64_t* k = key(g);
    std::int64_t* out = &sort_keys[g * width_];
    const std::uint32_t* p = &pos[g * cells];
    for (std::size_t i = 0; i < dims; ++i) out[i] = rank[p[i]];
    out[dims] = q_.reads_tags() ? tag_rank[static_cast<std::size_t>(k[width_ - 1])] : 0;
    out[dims + 1] = rank[p[dims]];
    out[dims + 2] = k[0];
  }
  std::vector<std::uint32_t> order(groups_);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const std::int64_t* keys = sort_keys.data();  // not &sort_keys[end]: operator[] at size() is UB
    return std::lexicographical_compare(keys + a * width_, keys + (a + 1) * width_, keys + b * width_,
                                        keys + (b + 1) * width_);
  });
  std::vector<ledger::AggregateRow> out;
  out.reserve(order.size());  // each row written once, not default-made first
  for (const std::size_t g : order) {
    const std::int64_t* k = key(g);
    ledger::AggregateRow& row = out.emplace_back();
    row.day = static_cast<ledger::Day>(k[0]);
    row.values.reserve(dims + (q_.reads_tags() ? q_.tags.size() : 0));
    const std::uint32_t* p = &pos[g * cells];
    // A text's last cell takes it (a resource id is usually in one group only); others copy.
    auto take = [&](std::uint32_t t) { return --uses[t] == 0 ? std::move(text[t]) : text[t]; };
    for (std::size_t i = 0; i < dims; ++i) row.values.push_back(take(p[i]));
    row.currency = take(p[dims]);
    if (q_.reads_tags()) {
      const auto& tags = resolved_[static_cast<std::size_t>(k[width_ - 1])];
      row.values.insert(row.values.end(), tags.begin(), tags.end());
    }
    row.sums = sums(g);
  }
  return out;
}

}  // namespace aicost::store

#include "group_fold.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

#include "text_sort.h"

namespace aicost::store {

std::int64_t TextIds::id(std::string_view value, std::uint64_t hash) {
  const std::size_t k = index_.find(
      hash, [&](std::size_t p) { return text(-static_cast<std::int64_t>(p) - 1) == value; });
  if (k != CompactHashIndex::kNone) return -static_cast<std::int64_t>(k) - 1;
  starts_.push_back(store(value));
  index_.insert(hash, starts_.size() - 1);
  return -static_cast<std::int64_t>(starts_.size());
}

std::string_view TextIds::text(std::int64_t id) const {
  const char* p = starts_[static_cast<std::size_t>(-id - 1)];
  std::uint32_t n = 0;
  std::memcpy(&n, p, sizeof n);
  return {p + sizeof n, n};
}

const std::vector<std::uint32_t>& TextIds::order() const {
  if (order_.size() != starts_.size()) {
    order_.resize(starts_.size());
    std::iota(order_.begin(), order_.end(), 0u);
    sort_by_text(order_,
                 [this](std::uint32_t i) { return text(-static_cast<std::int64_t>(i) - 1); });
  }
  return order_;
}

const char* TextIds::store(std::string_view value) {
  const std::size_t need = sizeof(std::uint32_t) + value.size();
  if (need > free_size_) {
    const std::size_t size = std::max<std::size_t>(need, std::size_t{1} << 20);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    free_ = blocks_.back().get();
    free_size_ = size;
  }
  char* at = free_;
  const auto n = static_cast<std::uint32_t>(value.size());
  std::memcpy(at, &n, sizeof n);
  std::memcpy(at + sizeof n, value.data(), value.size());
  free_ += need;
  free_size_ -= need;
  return at;
}

GroupFold::GroupFold(const ledger::AggregateQuery& q,
                     const std::map<std::int64_t, std::vector<ledger::Tag>>& tagsets,
                     TextIds* texts)
    : q_(q),
      texts_(texts ? texts : &own_texts_),
      full_(q.dims.size() + 3),
      width_(q.dims.size() > 3 ? kProfileAt + 1 : full_),
      full_key_(full_),
      key_(width_) {
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
      full_(o.full_),
      width_(o.width_),
      profiles_(std::move(o.profiles_)),
      profile_index_(std::move(o.profile_index_)),
      full_key_(std::move(o.full_key_)),
      too_big_(o.too_big_),
      key_blocks_(std::move(o.key_blocks_)),
      sum_blocks_(std::move(o.sum_blocks_)),
      groups_(o.groups_),
      spilled_(std::move(o.spilled_)),
      index_(std::move(o.index_)),
      key_(std::move(o.key_)),
      hashes_(std::move(o.hashes_)) {}

GroupFold::~GroupFold() = default;

void GroupFold::add(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset,
                    const ledger::Sums& sums) {
  if (make_key(day, cells, tagset, key_.data()))
    add_sums(group(key_.data(), hash(key_.data())), sums);
}

bool GroupFold::make_key(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset,
                         Cell* out) {
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
  Cell* full = profiled() ? full_key_.data() : out;
  full[0] = !q_.by_day                          ? 0
            : q_.period == ledger::Period::kDay ? day
                                                : ledger::period_start(q_.period, day);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i] > std::numeric_limits<Cell>::max() || cells[i] < std::numeric_limits<Cell>::min())
        [[unlikely]] {
      too_big_ = true;
      return false;
    }
    full[1 + i] = static_cast<Cell>(cells[i]);
  }
  full[full_ - 1] = static_cast<Cell>(tags);
  if (!profiled()) return true;
  std::copy_n(full, kProfileAt, out);
  const std::size_t n = full_ - kProfileAt;
  const Cell* tail = full + kProfileAt;
  const std::uint64_t h = hash_bytes(reinterpret_cast<const char*>(tail), n * sizeof(Cell));
  std::size_t p =
      profile_index_.find(h, [&](std::size_t k) { return same_cells(&profiles_[k * n], tail, n); });
  if (p == CompactHashIndex::kNone) {
    p = profiles_.size() / n;
    profiles_.insert(profiles_.end(), tail, tail + n);
    profile_index_.insert(h, p);
  }
  out[kProfileAt] = static_cast<Cell>(p);
  return true;
}

// Groups are spread over memory and rows meet them at random: each row would wait for its index
// slot, then its group. So the slot is fetched kAhead rows early, and the group half as early.
void GroupFold::add_keyed(std::span<const Cell> keys, std::span<const ledger::Sums> row_sums) {
  constexpr std::size_t kAhead = 16;
  const std::size_t n = row_sums.size();
  hashes_.resize(n);
  for (std::size_t r = 0; r < n; ++r) hashes_[r] = hash(&keys[r * width_]);
  for (std::size_t r = 0; r < n; ++r) {
    if (r + kAhead < n) index_.prefetch(hashes_[r + kAhead]);
    if (r + kAhead / 2 < n) {
      if (const auto g = index_.first(hashes_[r + kAhead / 2]); g != CompactHashIndex::kNone) {
        __builtin_prefetch(key(g));
        __builtin_prefetch(&narrow(g), 1);
      }
    }
    add_sums(group(&keys[r * width_], hashes_[r]), row_sums[r]);
  }
}

std::size_t GroupFold::group(const Cell* key, std::uint64_t hash) {
  std::size_t g =
      index_.find(hash, [&](std::size_t p) { return same_cells(this->key(p), key, width_); });
  if (g == CompactHashIndex::kNone) {
    g = groups_++;
    if ((g & (kBlockSize - 1)) == 0) {
      key_blocks_.push_back(std::make_unique_for_overwrite<Cell[]>(kBlockSize * width_));
      sum_blocks_.push_back(std::make_unique<Narrow[]>(kBlockSize));
    }
    std::memcpy(this->key(g), key, width_ * sizeof(Cell));
    index_.insert(hash, g);
  }
  return g;
}

void GroupFold::add_sums(std::size_t g, const ledger::Sums& s) {
  Narrow& n = narrow(g);
  const core::WideNanos in[4] = {s.billed, s.effective, s.list, s.contracted};
  for (std::size_t k = 0; k < 4; ++k) {
    std::int64_t sum = 0;
    const bool narrow_in = in[k] >= std::numeric_limits<std::int64_t>::min() &&
                           in[k] <= std::numeric_limits<std::int64_t>::max();
    if (narrow_in && !__builtin_add_overflow(n.money[k], static_cast<std::int64_t>(in[k]), &sum))
        [[likely]]
      n.money[k] = sum;
    else
      spilled_[g][k] += in[k];  // a new entry starts at zero
  }
  n.gpu_hours += s.gpu_hours;
  n.consumed_quantity += s.consumed_quantity;
  n.rows += s.rows;
  n.first_day = std::min(n.first_day, s.first_day);
  n.last_day = std::max(n.last_day, s.last_day);
}

ledger::Sums GroupFold::sums(std::size_t g) const {
  const Narrow& n = narrow(g);
  ledger::Sums s;
  s.billed = n.money[0];
  s.effective = n.money[1];
  s.list = n.money[2];
  s.contracted = n.money[3];
  if (const auto it = spilled_.find(g); it != spilled_.end()) {
    s.billed += it->second[0];
    s.effective += it->second[1];
    s.list += it->second[2];
    s.contracted += it->second[3];
  }
  s.gpu_hours = n.gpu_hours;
  s.consumed_quantity = n.consumed_quantity;
  s.rows = n.rows;
  s.first_day = n.first_day;
  s.last_day = n.last_day;
  return s;
}

core::WideNanos GroupFold::effective(std::size_t g) const {
  core::WideNanos e = narrow(g).money[1];
  if (!spilled_.empty())
    if (const auto it = spilled_.find(g); it != spilled_.end()) e += it->second[1];
  return e;
}

void GroupFold::clear() {
  std::vector<std::unique_ptr<Cell[]>>().swap(key_blocks_);
  std::vector<std::unique_ptr<Narrow[]>>().swap(sum_blocks_);
  groups_ = 0;
  spilled_.clear();
  index_.clear();
  std::vector<Cell>().swap(profiles_);
  profile_index_.clear();
}

core::Result<std::vector<ledger::AggregateRow>> GroupFold::rows(const Lookup& lookup) const {
  std::vector<ledger::AggregateRow> out;
  out.reserve(groups_);
  if (auto s = each(lookup,
                    [&out](ledger::AggregateRow& row) -> core::Status {
                      out.push_back(std::move(row));
                      return {};
                    });
      !s)
    return s.error();
  return out;
}

}  // namespace aicost::store

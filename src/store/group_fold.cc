#include "group_fold.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

namespace aicost::store {

std::int64_t TextIds::id(std::string_view value, std::uint64_t hash) {
  const std::size_t k = index_.find(hash, [&](std::size_t p) { return text(-static_cast<std::int64_t>(p) - 1) == value; });
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

GroupFold::GroupFold(const ledger::AggregateQuery& q, const std::map<std::int64_t, std::vector<ledger::Tag>>& tagsets,
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
  if (make_key(day, cells, tagset, key_.data())) add_sums(group(key_.data(), hash(key_.data())), sums);
}

bool GroupFold::make_key(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset, Cell* out) {
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
  full[0] = !q_.by_day ? 0 : q_.period == ledger::Period::kDay ? day : ledger::period_start(q_.period, day);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i] > std::numeric_limits<Cell>::max() || cells[i] < std::numeric_limits<Cell>::min()) [[unlikely]] {
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
  std::size_t p = profile_index_.find(
      h, [&](std::size_t k) { return std::memcmp(&profiles_[k * n], tail, n * sizeof(Cell)) == 0; });
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
  const std::size_t bytes = width_ * sizeof(Cell);
  std::size_t g = index_.find(hash, [&](std::size_t p) { return std::memcmp(this->key(p), key, bytes) == 0; });
  if (g == CompactHashIndex::kNone) {
    g = groups_++;
    if ((g & (kBlockSize - 1)) == 0) {
      key_blocks_.push_back(std::make_unique_for_overwrite<Cell[]>(kBlockSize * width_));
      sum_blocks_.push_back(std::make_unique<Narrow[]>(kBlockSize));
    }
    std::memcpy(this->key(g), key, bytes);
    index_.insert(hash, g);
  }
  return g;
}

void GroupFold::add_sums(std::size_t g, const ledger::Sums& s) {
  Narrow& n = narrow(g);
  const core::WideNanos in[4] = {s.billed, s.effective, s.list, s.contracted};
  for (std::size_t k = 0; k < 4; ++k) {
    std::int64_t sum = 0;
    const bool narrow_in = in[k] >= std::numeric_limits<std::int64_t>::min() && in[k] <= std::numeric_limits<std::int64_t>::max();
    if (narrow_in && !__builtin_add_overflow(n.money[k], static_cast<std::int64_t>(in[k]), &sum)) [[likely]]
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

core::Status GroupFold::each(const Lookup& lookup, const Sink& sink) const {
  Walk walk(*this);
  if (auto s = walk.start(lookup); !s) return s;
  ledger::AggregateRow row;
  while (walk.next(row))
    if (auto s = sink(row); !s) return s;
  return {};
}

std::uint32_t GroupFold::Walk::item(Cell c) {
  if (c < 0) return static_cast<std::uint32_t>(-c - 1);
  if (static_cast<std::size_t>(c) < direct_.size()) return direct_[static_cast<std::size_t>(c)];
  const std::uint64_t hash = hash_bytes(reinterpret_cast<const char*>(&c), sizeof c);
  const std::size_t w = id_index_.find(hash, [&](std::size_t k) { return ids_[k] == c; });
  if (w != CompactHashIndex::kNone) return standins_ + static_cast<std::uint32_t>(w);
  id_index_.insert(hash, ids_.size());
  ids_.push_back(c);
  rank_.push_back(~std::uint32_t{0});
  return standins_ + static_cast<std::uint32_t>(ids_.size() - 1);
}

std::string_view GroupFold::Walk::text(std::uint32_t it) const {
  return it < standins_ ? f_.texts_->text(-static_cast<std::int64_t>(it) - 1) : std::string_view(looked_up_[it - standins_]);
}

// Text order's columns: dims, the tag tuple, currency, day.
std::uint32_t GroupFold::Walk::text_column(std::size_t g, std::size_t c) {
  if (c < dims_) return cell_rank(g, c);
  if (tags_ && c == dims_) return tag_rank_[static_cast<std::size_t>(f_.cell(g, f_.full_ - 1))];
  if (c == dims_ + (tags_ ? 1 : 0)) return cell_rank(g, dims_);
  return static_cast<std::uint32_t>(f_.cell(g, 0)) ^ 0x80000000u;  // the day, in order as unsigned
}

// Cost order's ties: a value of the row (a dim, or a tag alone), then the currency.
std::uint32_t GroupFold::Walk::tie_column(std::size_t g, std::size_t t) {
  const auto& ties = f_.q_.cost_ties;
  if (t == ties.size()) return cell_rank(g, dims_);
  return ties[t] < dims_ ? cell_rank(g, ties[t])
                         : value_rank_[ties[t] - dims_][static_cast<std::size_t>(f_.cell(g, f_.full_ - 1))];
}

core::Status GroupFold::Walk::start(const Lookup& lookup) {
  if (f_.too_big_)
    return core::make_error(core::ErrorCode::kInternal,
                            "a string id of the ledger is beyond 2^31 - 1, more than a report can group by");
  cells_ = f_.full_ - 2;  // dims and currency
  dims_ = cells_ - 1;
  tags_ = f_.q_.reads_tags();
  // Every distinct text of the groups once, ranked in text order, so that groups sort by
  // integers: a stand-in's bytes stay in texts_, a string id's text is looked up.
  standins_ = static_cast<std::uint32_t>(f_.texts_->size());
  constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
  rank_.assign(standins_, kUnseen);
  std::vector<std::uint32_t> items;  // those this fold's groups hold
  for (std::size_t g = 0; g < f_.groups_; ++g)
    for (std::size_t i = 0; i < cells_; ++i) {
      const std::uint32_t it = item(f_.cell(g, 1 + i));
      if (rank_[it] == kUnseen) {
        rank_[it] = 0;
        items.push_back(it);
      }
    }
  if (!ids_.empty()) {
    const auto most = static_cast<std::size_t>(*std::max_element(ids_.begin(), ids_.end()));
    if (most <= 8 * ids_.size() + 65536) {
      direct_.assign(most + 1, kUnseen);
      for (std::size_t k = 0; k < ids_.size(); ++k) direct_[static_cast<std::size_t>(ids_[k])] = standins_ + static_cast<std::uint32_t>(k);
    }
    std::vector<std::pair<std::int64_t, std::size_t>> sorted;
    sorted.reserve(ids_.size());
    for (std::size_t k = 0; k < ids_.size(); ++k) sorted.emplace_back(ids_[k], k);
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int64_t> wanted;
    wanted.reserve(sorted.size());
    for (const auto& w : sorted) wanted.push_back(w.first);
    std::vector<std::string> texts;
    if (auto s = lookup(wanted, texts); !s) return s;
    if (texts.size() != wanted.size())
      return core::make_error(core::ErrorCode::kInternal, "string ids without text in the ledger");
    looked_up_.resize(ids_.size());
    for (std::size_t k = 0; k < sorted.size(); ++k) looked_up_[sorted[k].second] = std::move(texts[k]);
  }
  std::sort(items.begin(), items.end(), [&](std::uint32_t a, std::uint32_t b) { return text(a) < text(b); });
  for (std::size_t r = 0; r < items.size(); ++r) {
    // Equal texts (a stand-in and a string id can spell the same) share a rank.
    rank_[items[r]] = r > 0 && text(items[r]) == text(items[r - 1]) ? rank_[items[r - 1]] : static_cast<std::uint32_t>(r);
  }
  std::vector<std::uint32_t>().swap(items);
  // Tag tuples ranked whole (text order), and each tag's values ranked alone (cost order's ties,
  // an empty value read as q.untagged_text).
  const auto& resolved = f_.resolved_;
  tag_rank_.assign(resolved.size(), 0);
  value_rank_.assign(f_.q_.tags.size(), std::vector<std::uint32_t>(resolved.size()));
  {
    std::vector<std::uint32_t> order(resolved.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return resolved[a] < resolved[b]; });
    for (std::size_t r = 0; r < order.size(); ++r) tag_rank_[order[r]] = static_cast<std::uint32_t>(r);
    for (std::size_t j = 0; j < f_.q_.tags.size(); ++j) {
      auto value = [&](std::uint32_t t) -> const std::string& {
        const std::string& v = resolved[t][j];
        return v.empty() ? f_.q_.untagged_text : v;
      };
      std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return value(a) < value(b); });
      for (std::size_t r = 0; r < order.size(); ++r)
        value_rank_[j][order[r]] = r > 0 && value(order[r]) == value(order[r - 1]) ? value_rank_[j][order[r - 1]]
                                                                                   : static_cast<std::uint32_t>(r);
    }
  }
  // The order: each group as its Entry, sorted; groups that tie on it are compared in full (texts
  // by rank, money exactly). Most comparisons stay in the entries, which lie side by side.
  const bool cost = f_.q_.order == ledger::RowOrder::kCost;
  const std::size_t text_columns = dims_ + (tags_ ? 1 : 0) + 2;
  order_.resize(f_.groups_);
  for (std::size_t g = 0; g < f_.groups_; ++g) {
    Entry& e = order_[g];
    e.g = static_cast<std::uint32_t>(g);
    if (cost) {
      // Effective descending: its complement, clamped to 64 bits (the full compare settles the rest).
      const core::WideNanos eff = std::clamp<core::WideNanos>(f_.effective(g), std::numeric_limits<std::int64_t>::min(),
                                                              std::numeric_limits<std::int64_t>::max());
      e.aux = text_column(g, text_columns - 1);  // the day
      e.key = ~(static_cast<std::uint64_t>(static_cast<std::int64_t>(eff)) ^ (std::uint64_t{1} << 63));
      e.next = tie_column(g, 0);
    } else {
      e.aux = text_column(g, 0);
      e.key = (std::uint64_t{text_column(g, 1)} << 32) | (text_columns > 2 ? text_column(g, 2) : 0);
      e.next = text_columns > 3 ? text_column(g, 3) : 0;
    }
  }
  // Equal keys are equal costs unless a sum went past 64 bits.
  const bool exact_keys = f_.spilled_.empty();
  std::sort(order_.begin(), order_.end(), [&](const Entry& a, const Entry& b) {
    if (a.aux != b.aux) return a.aux < b.aux;
    if (a.key != b.key) return a.key < b.key;
    if (cost) {
      if (!exact_keys)
        if (const core::WideNanos ea = f_.effective(a.g), eb = f_.effective(b.g); ea != eb) return ea > eb;
      if (a.next != b.next) return a.next < b.next;
      for (std::size_t t = 1; t <= f_.q_.cost_ties.size(); ++t)
        if (const auto x = tie_column(a.g, t), y = tie_column(b.g, t); x != y) return x < y;
    } else {
      if (a.next != b.next) return a.next < b.next;
      for (std::size_t c = 4; c < text_columns; ++c)
        if (const auto x = text_column(a.g, c), y = text_column(b.g, c); x != y) return x < y;
    }
    return a.g < b.g;
  });
  at_ = 0;
  return {};
}

bool GroupFold::Walk::next(ledger::AggregateRow& row) {
  if (at_ == order_.size()) return false;
  const std::size_t g = order_[at_++].g;
  row.day = static_cast<ledger::Day>(f_.cell(g, 0));
  row.values.resize(dims_ + (tags_ ? f_.q_.tags.size() : 0));
  for (std::size_t i = 0; i < dims_; ++i) row.values[i].assign(text(item(f_.cell(g, 1 + i))));
  row.currency.assign(text(item(f_.cell(g, 1 + dims_))));
  if (tags_) {
    const auto& t = f_.resolved_[static_cast<std::size_t>(f_.cell(g, f_.full_ - 1))];
    for (std::size_t j = 0; j < t.size(); ++j) row.values[dims_ + j] = t[j];
  }
  row.sums = f_.sums(g);
  return true;
}

// Several folds' rows interleaved by their first `shared` values (text order): each value's rows
// of folds[0], then of folds[1], ...
core::Status each_interleaved(std::span<const GroupFold* const> folds, std::size_t shared,
                              const GroupFold::Lookup& lookup,
                              const std::function<core::Status(std::size_t fold, ledger::AggregateRow& row)>& sink) {
  std::vector<GroupFold::Walk> walks;
  walks.reserve(folds.size());
  std::vector<ledger::AggregateRow> heads(folds.size());
  std::vector<bool> live(folds.size());
  for (std::size_t i = 0; i < folds.size(); ++i) {
    walks.emplace_back(*folds[i]);
    if (auto s = walks[i].start(lookup); !s) return s;
    live[i] = walks[i].next(heads[i]);
  }
  auto prefix_less = [shared](const ledger::AggregateRow& a, const ledger::AggregateRow& b) {
    return std::lexicographical_compare(a.values.begin(), a.values.begin() + static_cast<std::ptrdiff_t>(shared),
                                        b.values.begin(), b.values.begin() + static_cast<std::ptrdiff_t>(shared));
  };
  std::vector<std::string> value;  // the prefix handed out now
  for (;;) {
    const ledger::AggregateRow* least = nullptr;
    for (std::size_t i = 0; i < folds.size(); ++i)
      if (live[i] && (!least || prefix_less(heads[i], *least))) least = &heads[i];
    if (!least) return {};
    value.assign(least->values.begin(), least->values.begin() + static_cast<std::ptrdiff_t>(shared));
    for (std::size_t i = 0; i < folds.size(); ++i)
      while (live[i] && std::equal(value.begin(), value.end(), heads[i].values.begin())) {
        if (auto s = sink(i, heads[i]); !s) return s;
        live[i] = walks[i].next(heads[i]);
      }
  }
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
  if (auto s = each(lookup, [&out](ledger::AggregateRow& row) -> core::Status {
        out.push_back(std::move(row));
        return {};
      });
      !s)
    return s.error();
  return out;
}

}  // namespace aicost::store

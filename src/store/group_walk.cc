// GroupFold's groups handed out (group_fold.h): their texts ranked once, their order sorted as
// integers, a row filled per group; and several folds walked together.
#include "group_fold.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "text_sort.h"

namespace aicost::store {

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
  return it < standins_ ? f_.texts_->text(-static_cast<std::int64_t>(it) - 1)
                        : std::string_view(looked_up_[it - standins_]);
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
  return ties[t] < dims_
             ? cell_rank(g, ties[t])
             : value_rank_[ties[t] - dims_][static_cast<std::size_t>(f_.cell(g, f_.full_ - 1))];
}

core::Status GroupFold::Walk::start(const Lookup& lookup) {
  if (f_.too_big_)
    return core::make_error(
        core::ErrorCode::kInternal,
        "a string id of the ledger is beyond 2^31 - 1, more than a report can group by");
  cells_ = f_.full_ - 2;  // dims and currency
  dims_ = cells_ - 1;
  tags_ = f_.q_.reads_tags();
  // Every distinct text of the groups once, ranked in text order, so that groups sort by
  // integers: a stand-in's bytes stay in texts_, a string id's text is looked up.
  standins_ = static_cast<std::uint32_t>(f_.texts_->size());
  constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
  // A fold holding at least 1 / kShareOrderAt of the stand-ins takes their shared order: sorting
  // all of them once costs no more than sorting its own.
  constexpr std::size_t kShareOrderAt = 4;
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
      for (std::size_t k = 0; k < ids_.size(); ++k)
        direct_[static_cast<std::size_t>(ids_[k])] = standins_ + static_cast<std::uint32_t>(k);
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
    for (std::size_t k = 0; k < sorted.size(); ++k)
      looked_up_[sorted[k].second] = std::move(texts[k]);
  }
  // In text order: the stand-ins from the order of all of them (sorted once for the folds that
  // share them) where this fold holds a good part of them, else sorted alone; the looked-up
  // texts sorted alone and merged in.
  const auto less = [&](std::uint32_t a, std::uint32_t b) { return text(a) < text(b); };
  const auto mid =
      std::partition(items.begin(), items.end(), [&](std::uint32_t it) { return it < standins_; });
  const auto held = static_cast<std::size_t>(mid - items.begin());
  if (held > 0 && held * kShareOrderAt >= standins_) {
    auto out = items.begin();
    for (const std::uint32_t it : f_.texts_->order())
      if (rank_[it] != kUnseen) *out++ = it;
  } else {
    sort_by_text(std::span(items.begin(), mid), [&](std::uint32_t it) { return text(it); });
  }
  sort_by_text(std::span(mid, items.end()), [&](std::uint32_t it) { return text(it); });
  std::inplace_merge(items.begin(), mid, items.end(), less);
  for (std::size_t r = 0; r < items.size(); ++r) {
    // Equal texts (a stand-in and a string id can spell the same) share a rank.
    rank_[items[r]] = r > 0 && text(items[r]) == text(items[r - 1]) ? rank_[items[r - 1]]
                                                                    : static_cast<std::uint32_t>(r);
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
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return resolved[a] < resolved[b]; });
    for (std::size_t r = 0; r < order.size(); ++r)
      tag_rank_[order[r]] = static_cast<std::uint32_t>(r);
    for (std::size_t j = 0; j < f_.q_.tags.size(); ++j) {
      auto value = [&](std::uint32_t t) -> const std::string& {
        const std::string& v = resolved[t][j];
        return v.empty() ? f_.q_.untagged_text : v;
      };
      std::sort(order.begin(), order.end(),
                [&](std::uint32_t a, std::uint32_t b) { return value(a) < value(b); });
      for (std::size_t r = 0; r < order.size(); ++r)
        value_rank_[j][order[r]] = r > 0 && value(order[r]) == value(order[r - 1])
                                       ? value_rank_[j][order[r - 1]]
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
      // Effective descending: its complement, clamped to 64 bits (the full compare settles the
      // rest).
      const core::WideNanos eff =
          std::clamp<core::WideNanos>(f_.effective(g), std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::max());
      e.aux = text_column(g, text_columns - 1);  // the day
      e.key =
          ~(static_cast<std::uint64_t>(static_cast<std::int64_t>(eff)) ^ (std::uint64_t{1} << 63));
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
        if (const core::WideNanos ea = f_.effective(a.g), eb = f_.effective(b.g); ea != eb)
          return ea > eb;
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

void GroupFold::Walk::prefetch() const {
  // Three steps, each from memory the one before fetched: the key and sums of the group eight
  // places ahead, where its texts are kept (four ahead), their bytes (two ahead).
  constexpr std::size_t kAhead = 8;
  const std::size_t n = order_.size();
  if (at_ + kAhead < n) {
    const std::size_t g = order_[at_ + kAhead].g;
    __builtin_prefetch(f_.key(g));
    const auto* sums = reinterpret_cast<const char*>(&f_.narrow(g));
    __builtin_prefetch(sums);
    __builtin_prefetch(sums + sizeof(Narrow) - 1);
  }
  for (const std::size_t ahead : {kAhead / 2, kAhead / 4}) {
    if (at_ + ahead >= n) continue;
    const std::size_t g = order_[at_ + ahead].g;
    for (std::size_t i = 0; i < dims_; ++i) {
      const Cell c = f_.cell(g, 1 + i);
      if (c >= 0) continue;  // a string id: its text is looked up already
      if (ahead == kAhead / 2)
        f_.texts_->prefetch_start(c);
      else
        f_.texts_->prefetch_bytes(c);
    }
  }
}

bool GroupFold::Walk::next(ledger::AggregateRow& row) {
  if (at_ == order_.size()) return false;
  prefetch();
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

core::Status each_in_turn(
    std::span<GroupFold* const> folds, const GroupFold::Lookup& lookup,
    const std::function<core::Status(std::size_t query, ledger::AggregateRow& row)>& sink,
    std::size_t count) {
  std::optional<GroupFold::Walk> walk;
  ledger::AggregateRow row;
  for (std::size_t i = 0; i < std::min(count, folds.size()); ++i) {
    if (i > 0 && folds[i] == folds[i - 1]) {
      walk->rewind();
    } else {
      walk.emplace(*folds[i]);
      if (auto s = walk->start(lookup); !s) return s;
    }
    while (walk->next(row))
      if (auto s = sink(i, row); !s) return s;
    if (std::find(folds.begin() + static_cast<std::ptrdiff_t>(i) + 1, folds.end(), folds[i]) ==
        folds.end()) {
      walk.reset();
      folds[i]->clear();
    }
  }
  return {};
}

// Several folds' rows interleaved by their first `shared` values (text order): each value's rows
// of folds[0], then of folds[1], ...
core::Status each_interleaved(
    std::span<const GroupFold* const> folds, std::size_t shared, const GroupFold::Lookup& lookup,
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
    return std::lexicographical_compare(
        a.values.begin(), a.values.begin() + static_cast<std::ptrdiff_t>(shared), b.values.begin(),
        b.values.begin() + static_cast<std::ptrdiff_t>(shared));
  };
  std::vector<std::string> value;  // the prefix handed out now
  for (;;) {
    const ledger::AggregateRow* least = nullptr;
    for (std::size_t i = 0; i < folds.size(); ++i)
      if (live[i] && (!least || prefix_less(heads[i], *least))) least = &heads[i];
    if (!least) return {};
    value.assign(least->values.begin(),
                 least->values.begin() + static_cast<std::ptrdiff_t>(shared));
    for (std::size_t i = 0; i < folds.size(); ++i)
      while (live[i] && std::equal(value.begin(), value.end(), heads[i].values.begin())) {
        if (auto s = sink(i, heads[i]); !s) return s;
        live[i] = walks[i].next(heads[i]);
      }
  }
}

core::Status each_answer(
    std::span<GroupFold* const> folds, std::size_t interleave, std::size_t interleave_from,
    const GroupFold::Lookup& lookup,
    const std::function<core::Status(std::size_t query, ledger::AggregateRow& row)>& sink) {
  if (interleave == 0) return each_in_turn(folds, lookup, sink);
  const std::size_t from = std::min(interleave_from, folds.size());
  if (auto s = each_in_turn(folds, lookup, sink, from); !s) return s;
  const auto rest = folds.subspan(from);
  return each_interleaved(
      {rest.data(), rest.size()}, interleave, lookup,
      [&](std::size_t fold, ledger::AggregateRow& row) { return sink(from + fold, row); });
}

}  // namespace aicost::store

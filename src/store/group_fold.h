// Store::aggregate's last step, shared by both backends: the query's rows (grouped by tag set in
// SQL, or straight from the daily rollup) summed in memory into groups keyed by day (or period),
// dimension values and currency, and the tag values their tag set resolves to. Tags resolve once
// per tag set, not per row, and a tag filter drops a whole tag set.
//
// Memory is what a read of millions of resources holds, so a group is integers side by side (no
// allocation per group): its key (4 bytes a cell), its sums in 64 bytes (money in 64-bit nano-units
// until a sum outgrows them, then exactly in 128 bits beside), 8 bytes of a CompactHashIndex. A
// text cell (a resource id) is kept once, in TextIds. The groups are handed out one row at a time
// (each()), sorted without copying a text.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/query.h"
#include "hash_index.h"

namespace aicost::store {

// Stand-in ids for text cells (negative; ids from `strings` are > 0). Several folds over one scan
// may share one, so a row's text is looked up once. Each text costs its bytes, 4 for its length,
// 8 for where it is and 8 to 16 of index.
class TextIds {
 public:
  std::int64_t id(std::string_view value) {
    return id(value, hash_bytes(value.data(), value.size()));
  }
  // `hash` must be hash_bytes(value).
  std::int64_t id(std::string_view value, std::uint64_t hash);
  std::string_view text(std::int64_t id) const;
  // Hints for a caller that knows the texts it will ask for next (a batch of rows): the index
  // slot of `hash` into the CPU cache, and the bytes of a text that may be the one (as
  // HashIndex::first), so that id() waits on neither.
  void prefetch_slot(std::uint64_t hash) const { index_.prefetch(hash); }
  void prefetch_text(std::uint64_t hash) const {
    if (const auto p = index_.first(hash); p != CompactHashIndex::kNone)
      __builtin_prefetch(starts_[p]);
  }
  // Hints for a walk through known ids: where stand-in `id` is kept, and (once that is near)
  // its bytes.
  void prefetch_start(std::int64_t id) const {
    __builtin_prefetch(&starts_[static_cast<std::size_t>(-id - 1)]);
  }
  void prefetch_bytes(std::int64_t id) const {
    __builtin_prefetch(starts_[static_cast<std::size_t>(-id - 1)]);
  }
  std::size_t size() const { return starts_.size(); }  // stand-ins run from -1 to -size()
  // Every stand-in's number (-1 - its id) in text order, sorted once and kept until a text is
  // added: the folds of one scan rank their texts from it rather than each sorting its own. Not
  // for several threads at once (the folds are walked on one).
  const std::vector<std::uint32_t>& order() const;
  // Frees the index by text once no more ids are asked for (text() still answers).
  void seal() { index_.clear(); }

 private:
  const char* store(std::string_view value);

  CompactHashIndex index_;           // over starts_
  std::vector<const char*> starts_;  // stand-in -1 - i: its length (4 bytes), then its bytes
  std::vector<std::unique_ptr<char[]>> blocks_;
  mutable std::vector<std::uint32_t> order_;  // order()'s, once asked for
  char* free_ = nullptr;
  std::size_t free_size_ = 0;
};

class GroupFold {
 public:
  // `tagsets`: every tag set's tags (Store::tagsets()); only read when q.reads_tags(). `texts`:
  // the stand-ins to share with other folds (nullptr: the fold keeps its own).
  GroupFold(const ledger::AggregateQuery& q,
            const std::map<std::int64_t, std::vector<ledger::Tag>>& tagsets,
            TextIds* texts = nullptr);
  GroupFold(GroupFold&&) noexcept;
  GroupFold& operator=(GroupFold&&) = delete;
  ~GroupFold();

  // A key's integer: a day, a string id or stand-in, a tag index. String ids past 2^31 - 1 (a
  // ledger of over two billion distinct texts) are refused: each() says so.
  using Cell = std::int32_t;

  // A text cell: its stand-in among the ids that add() takes.
  std::int64_t text(std::string_view value) { return texts_->id(value); }
  // One row: `cells` are q.dims then the currency, each a string id or a text() stand-in; `tagset`
  // its tag set (0: no tags); `day` its day (any, when the query is not by day: it is not read).
  // Rows of a tag set the filters drop are skipped.
  void add(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset,
           const ledger::Sums& sums);
  // add() in two steps, for a caller with many rows. make_key() writes the key of a row (width()
  // cells) to `out`, false when the tag filters drop the row; add_keyed() adds rows by their
  // keys (width() cells each), in order, loading the memory of later rows' groups early.
  std::size_t width() const { return width_; }
  bool make_key(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset,
                Cell* out);
  void add_keyed(std::span<const Cell> keys, std::span<const ledger::Sums> row_sums);
  std::size_t size() const { return groups_; }
  // Frees the index of the groups (and of its own texts) once every row is added; each() still
  // answers: a read hands out its groups with that memory given back.
  void seal() {
    index_.clear();
    profile_index_.clear();
    if (texts_ == &own_texts_) own_texts_.seal();
  }

  // Hands every group to `sink` as a row with every cell as text, in q.order. `lookup` gives the
  // texts of string ids, all at once: `ids` ascending and distinct, `texts` filled in their order.
  // The row is reused from call to call (the sink may move from it); a failing sink stops the
  // walk and its error is returned. Leaves the groups as they were: each() may run again.
  using Lookup = std::function<core::Status(const std::vector<std::int64_t>& ids,
                                            std::vector<std::string>& texts)>;
  using Sink = std::function<core::Status(ledger::AggregateRow& row)>;
  core::Status each(const Lookup& lookup, const Sink& sink) const;

  // each() a row at a time: the groups' texts ranked and their order sorted by start(), then
  // next() fills `row` with the next group until there is none.
  class Walk {
   public:
    explicit Walk(const GroupFold& fold) : f_(fold) {}
    core::Status start(const Lookup& lookup);
    bool next(ledger::AggregateRow& row);
    void rewind() { at_ = 0; }  // the same rows again, without sorting again

   private:
    // A group's place: the first integers of its sort key (text order: three columns' ranks; cost
    // order: the day, the effective cost, the first tie's rank), then the group.
    struct Entry {
      std::uint64_t key;
      std::uint32_t aux, next, g;
    };
    // The memory of the groups next() reads a few places ahead (their keys and sums, then their
    // texts), asked for early: in text order the groups, numbered in the order their first rows
    // came, lie all over memory.
    void prefetch() const;
    std::uint32_t item(Cell c);  // a text: a stand-in's number, or a string id's place after them
    std::string_view text(std::uint32_t item) const;
    std::uint32_t cell_rank(std::size_t g, std::size_t i) { return rank_[item(f_.cell(g, 1 + i))]; }
    std::uint32_t text_column(std::size_t g, std::size_t c);
    std::uint32_t tie_column(std::size_t g, std::size_t t);

    const GroupFold& f_;
    std::size_t cells_ = 0, dims_ = 0;
    bool tags_ = false;
    std::uint32_t standins_ = 0;
    std::vector<std::uint32_t> rank_;      // by item
    CompactHashIndex id_index_;            // string ids met, by id
    std::vector<std::int64_t> ids_;        // by item - standins_
    std::vector<std::uint32_t> direct_;    // string id -> item, where ids are dense (from 1)
    std::vector<std::string> looked_up_;   // their texts
    std::vector<std::uint32_t> tag_rank_;  // tag tuples in text order
    std::vector<std::vector<std::uint32_t>> value_rank_;  // each tag's values alone
    std::vector<Entry> order_;
    std::size_t at_ = 0;
  };

  // Frees the groups (after their last each()).
  void clear();
  // each()'s rows, collected.
  core::Result<std::vector<ledger::AggregateRow>> rows(const Lookup& lookup) const;

 private:
  // A group's sums as kept: money in 64 bits while it fits (spilled_ holds the rest exactly).
  struct Narrow {
    std::int64_t money[4] = {0, 0, 0, 0};  // billed, effective, list, contracted; nano-units
    double gpu_hours = 0, consumed_quantity = 0;
    std::int64_t rows = 0;
    ledger::Day first_day = std::numeric_limits<ledger::Day>::max(),
                last_day = std::numeric_limits<ledger::Day>::min();
  };
  static_assert(sizeof(Narrow) == 64);
  void add_sums(std::size_t g, const ledger::Sums& s);
  ledger::Sums sums(std::size_t g) const;
  core::WideNanos effective(std::size_t g) const;

  // Whether n cells are equal: a few integers compared in place (memcmp is a call per row and
  // fold, about 5 % of a 10M-charge scan into four folds).
  static bool same_cells(const Cell* a, const Cell* b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  // The number of the group with this key (width_ cells) and its hash, made empty when new.
  std::size_t group(const Cell* key, std::uint64_t hash);
  std::uint64_t hash(const Cell* key) const {
    return hash_bytes(reinterpret_cast<const char*>(key), width_ * sizeof(Cell));
  }

  const ledger::AggregateQuery& q_;
  std::vector<std::vector<std::string>> resolved_;  // distinct tag values tuples
  std::unordered_map<std::int64_t, std::int64_t>
      tagset_;                                     // tag set -> index in resolved_, -1 dropped
  std::int64_t untagged_ = -1;                     // index for tag set 0 (no tags)
  std::int64_t last_tagset_ = -1, last_tags_ = 0;  // the previous row's, looked up once
  TextIds own_texts_;
  TextIds* texts_;
  // A key is the day, the dims, the currency and the tag index: full_ cells. Past three dims (a
  // resource, its name and its attributes), the cells after the first two dims are interned as a
  // "profile", which few groups do not share: the key kept is then the day, two dims and the
  // profile's number (width_ cells).
  std::size_t full_;
  std::size_t width_;
  static constexpr std::size_t kProfileAt = 3;  // where the profile sits in a kept key
  bool profiled() const { return full_ != width_; }
  // Cell `i` of group g's full key.
  Cell cell(std::size_t g, std::size_t i) const {
    const Cell* k = key(g);
    return !profiled() || i < kProfileAt
               ? k[i]
               : profiles_[static_cast<std::size_t>(k[kProfileAt]) * (full_ - kProfileAt) + i -
                           kProfileAt];
  }
  std::vector<Cell> profiles_;  // full_ - kProfileAt cells each
  CompactHashIndex profile_index_;
  std::vector<Cell> full_key_;  // make_key()'s scratch
  bool too_big_ = false;        // a string id did not fit a cell
  // Groups by number, in blocks that never move: growing copies nothing and touches each page once.
  static constexpr std::size_t kBlockBits = 12;
  static constexpr std::size_t kBlockSize = std::size_t{1} << kBlockBits;
  Cell* key(std::size_t g) const {
    return &key_blocks_[g >> kBlockBits][(g & (kBlockSize - 1)) * width_];
  }
  Narrow& narrow(std::size_t g) const { return sum_blocks_[g >> kBlockBits][g & (kBlockSize - 1)]; }
  std::vector<std::unique_ptr<Cell[]>> key_blocks_;  // kBlockSize keys of width_ cells each
  std::vector<std::unique_ptr<Narrow[]>> sum_blocks_;
  std::size_t groups_ = 0;
  std::unordered_map<std::size_t, std::array<core::WideNanos, 4>>
      spilled_;                        // money past 64 bits, by group
  CompactHashIndex index_;             // groups by their keys' hashes
  std::vector<Cell> key_;              // add()'s scratch
  std::vector<std::uint64_t> hashes_;  // add_keyed()'s
};

// Each query's groups in turn: `folds[i]` answers query i (equal queries share one fold). A fold
// that answers the next query too is walked again without sorting again; one that no later
// query needs is cleared once walked. `sink` gets the query's position and the row. Only the
// first `count` queries are walked (a fold a later one needs is kept).
core::Status each_in_turn(
    std::span<GroupFold* const> folds, const GroupFold::Lookup& lookup,
    const std::function<core::Status(std::size_t query, ledger::AggregateRow& row)>& sink,
    std::size_t count = std::numeric_limits<std::size_t>::max());

// Several folds' rows in one walk, for queries whose first `shared` dims are the same (text
// order): for each value of those dims in text order, its rows of folds[0], then of folds[1], ...
// `sink` gets the fold's position and the row.
core::Status each_interleaved(
    std::span<const GroupFold* const> folds, std::size_t shared, const GroupFold::Lookup& lookup,
    const std::function<core::Status(std::size_t fold, ledger::AggregateRow& row)>& sink);

// Store::aggregate_into's hand-out of `folds` (by query): in turn (interleave 0), else
// folds[interleave_from..] interleaved on their first `interleave` dims after those before it in
// turn. `sink` gets the query's position.
core::Status each_answer(
    std::span<GroupFold* const> folds, std::size_t interleave, std::size_t interleave_from,
    const GroupFold::Lookup& lookup,
    const std::function<core::Status(std::size_t query, ledger::AggregateRow& row)>& sink);

}  // namespace aicost::store

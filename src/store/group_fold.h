// Store::aggregate's last step, shared by both backends: the query's rows (grouped by tag set in
// SQL, or straight from the daily rollup) summed in memory into groups keyed by day, dimension
// values and currency, and the tag values their tag set resolves to. Tags resolve once per tag
// set, not per row, and a tag filter drops a whole tag set.
// Groups live side by side as integers (no allocation per group), found through a HashIndex.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/query.h"
#include "hash_index.h"
#include "string_ids.h"

namespace aicost::store {

// Stand-in ids for text cells (negative; ids from `strings` are > 0). Several folds over one scan
// may share one, so a row's text is looked up once.
class TextIds {
 public:
  std::int64_t id(std::string_view value);
  std::string_view text(std::int64_t id) const { return texts_[static_cast<std::size_t>(-id - 1)]; }
  std::size_t size() const { return texts_.size(); }  // stand-ins run from -1 to -size()
  // This table's stand-ins for `other`'s, in its order (`other`'s -1 first), added where new.
  std::vector<std::int64_t> ids_of(const TextIds& other);

 private:
  StringIds ids_;                       // value -> stand-in, the values' bytes
  std::vector<std::string_view> texts_;  // stand-in -> value (in ids_)
};

class GroupFold {
 public:
  // `tagsets`: every tag set's tags (Store::tagsets()); only read when q.reads_tags(). `texts`:
  // the stand-ins to share with other folds (nullptr: the fold keeps its own).
  GroupFold(const ledger::AggregateQuery& q, const std::map<std::int64_t, std::vector<ledger::Tag>>& tagsets,
            TextIds* texts = nullptr);
  GroupFold(GroupFold&&) noexcept;
  GroupFold& operator=(GroupFold&&) = delete;
  ~GroupFold();

  // A text cell: its stand-in among the ids that add() takes.
  std::int64_t text(std::string_view value) { return texts_->id(value); }
  // One row: `cells` are q.dims then the currency, each a string id or a text() stand-in; `tagset`
  // its tag set (0: no tags). Rows of a tag set the filters drop are skipped.
  void add(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset, const ledger::Sums& sums);
  // add() in two steps, for a caller with many rows. make_key() writes the key of a row (width()
  // integers) to `out`, false when the tag filters drop the row; add_keyed() adds rows by their
  // keys (width() integers each), in order, loading the memory of later rows' groups early.
  std::size_t width() const { return width_; }
  bool make_key(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset, std::int64_t* out);
  void add_keyed(std::span<const std::int64_t> keys, std::span<const ledger::Sums> row_sums);
  // Adds the groups of `other`, a fold of the same query and tag sets over other rows whose text
  // stand-ins this fold's texts spell as `standins` (TextIds::ids_of).
  void absorb(const GroupFold& other, std::span<const std::int64_t> standins);

  // The groups with every cell as text, sorted by values, currency and day. `lookup` gives the
  // texts of string ids, all at once: `ids` ascending and distinct, `texts` filled in their order.
  using Lookup = std::function<core::Status(const std::vector<std::int64_t>& ids, std::vector<std::string>& texts)>;
  core::Result<std::vector<ledger::AggregateRow>> rows(const Lookup& lookup) const;

 private:
  // The sums of the group with this key (width_ integers) and its hash, made empty when new.
  ledger::Sums& group(const std::int64_t* key, std::uint64_t hash);
  std::uint64_t hash(const std::int64_t* key) const {
    return hash_bytes(reinterpret_cast<const char*>(key), width_ * sizeof(std::int64_t));
  }

  const ledger::AggregateQuery& q_;
  std::vector<std::vector<std::string>> resolved_;          // distinct tag values tuples
  std::unordered_map<std::int64_t, std::int64_t> tagset_;   // tag set -> index in resolved_, -1 dropped
  std::int64_t untagged_ = -1;                              // index for tag set 0 (no tags)
  std::int64_t last_tagset_ = -1, last_tags_ = 0;           // the previous row's, looked up once
  TextIds own_texts_;
  TextIds* texts_;
  std::size_t width_;                 // integers per key: day, cells (dims and currency), tag index
  // Groups by number, in blocks that never move: growing copies nothing and touches each page once.
  static constexpr std::size_t kBlockBits = 12;
  static constexpr std::size_t kBlockSize = std::size_t{1} << kBlockBits;
  std::int64_t* key(std::size_t g) const { return &key_blocks_[g >> kBlockBits][(g & (kBlockSize - 1)) * width_]; }
  const ledger::Sums& sums(std::size_t g) const { return sum_blocks_[g >> kBlockBits][g & (kBlockSize - 1)]; }
  std::vector<std::unique_ptr<std::int64_t[]>> key_blocks_;  // kBlockSize keys of width_ integers each
  std::vector<std::unique_ptr<ledger::Sums[]>> sum_blocks_;
  std::size_t groups_ = 0;
  HashIndex index_;                   // groups by their keys' hashes
  std::vector<std::int64_t> key_;     // add()'s scratch
  std::vector<std::uint64_t> hashes_; // add_keyed()'s
};

}  // namespace aicost::store

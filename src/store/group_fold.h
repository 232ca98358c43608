// Store::aggregate's last step, shared by both backends: the query's rows (grouped by tag set in
// SQL, or straight from the daily rollup) summed in memory into groups keyed by day, dimension
// values and currency, and the tag values their tag set resolves to. Tags resolve once per tag
// set, not per row, and a tag filter drops a whole tag set.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/query.h"

namespace aicost::store {

class GroupFold {
 public:
  // `tagsets`: every tag set's tags (Store::tagsets()); only read when q.reads_tags().
  GroupFold(const ledger::AggregateQuery& q, const std::map<std::int64_t, std::vector<ledger::Tag>>& tagsets);

  // A text cell: its stand-in among the ids that add() takes (negative; ids from `strings` are > 0).
  std::int64_t text(std::string_view value);
  // One row: `cells` are q.dims then the currency, each a string id or a text() stand-in; `tagset`
  // its tag set (0: no tags). Rows of a tag set the filters drop are skipped.
  void add(ledger::Day day, std::span<const std::int64_t> cells, std::int64_t tagset, const ledger::Sums& sums);

  // The groups with every cell as text (`lookup` gives a string id's text), sorted by day, values
  // and currency.
  using Lookup = std::function<core::Result<std::string>(std::int64_t id)>;
  core::Result<std::vector<ledger::AggregateRow>> rows(const Lookup& lookup) const;

 private:
  const ledger::AggregateQuery& q_;
  std::vector<std::vector<std::string>> resolved_;          // distinct tag values tuples
  std::unordered_map<std::int64_t, std::int64_t> tagset_;   // tag set -> index in resolved_, -1 dropped
  std::int64_t untagged_ = -1;                              // index for tag set 0 (no tags)
  // Heterogeneous lookup: text() finds a value without building a std::string for it.
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  std::unordered_map<std::string, std::int64_t, TextHash, std::equal_to<>> text_ids_;  // text() stand-ins
  std::vector<std::string> texts_;
  std::unordered_map<std::string, ledger::Sums> groups_;    // key: day, cells, tag index as int64s
  std::string key_;
};

}  // namespace aicost::store

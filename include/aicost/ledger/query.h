// What a cost report asks of the ledger: dimensions to group by, a day range, filters.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aicost/core/amount.h"
#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"

namespace aicost::ledger {

// The FOCUS dimensions a report can group or filter by. The store maps each to a fixed column;
// user text never reaches SQL except as a bound value.
enum class Dimension {
  kProvider,
  kBillingAccount,
  kSubAccount,
  kService,
  kServiceCategory,
  kRegion,
  kResource,
  kResourceName,
  kResourceType,
  kSku,
  kChargeCategory,
  kChargeFrequency,
  kPricingCategory,
  kCommitmentStatus,
  kCommitment,  // CommitmentDiscountId
  kConsumedUnit,
  kCurrency,
  kTag,  // a tag key, canonical (canonical_tag_key)
};

// Constructed, not aggregate-initialised: GCC 12 warns -Wmaybe-uninitialized on tag_key when a
// braced GroupKey list (a vector of Filters) is built in place.
struct GroupKey {
  GroupKey() = default;
  GroupKey(Dimension d, std::string tag) : dim(d), tag_key(std::move(tag)) {}
  Dimension dim = Dimension::kService;
  std::string tag_key;  // for kTag
  friend bool operator==(const GroupKey&, const GroupKey&) = default;
};

// "service", "sub_account", "tag:team", ... with did-you-mean on a typo.
core::Result<GroupKey> parse_group_key(std::string_view text);
std::string group_key_name(const GroupKey& k);  // the inverse: "service", "tag:team"
// Every name parse_group_key accepts (for help texts and suggestions).
std::vector<std::string> dimension_names();
// The value of a plain dimension on a charge ("" for kTag).
const std::string& dimension_value(const Charge& c, Dimension d);
// Dimensions kept in the daily rollup (all but resource, resource name, SKU and commitment).
bool in_rollup(Dimension d);

// Filters on one dimension or tag key are alternatives (OR); on different ones all must hold
// (AND): service=A, service=B, region=R reads (A or B) in R.
struct Filter {
  GroupKey key;
  std::string value;  // exact match; for a tag, "" selects rows without that tag
  friend bool operator==(const Filter&, const Filter&) = default;
};

// A tag key as a query reads it: the canonical key, else the first of its aliases present.
struct TagKey {
  std::string key;
  std::vector<std::string> aliases;  // canonical keys that mean the same ("team" <- "owner")
  friend bool operator==(const TagKey&, const TagKey&) = default;
};
// The value of `k` on a tag set; nullptr when absent or empty (untagged).
const std::string* tag_value(const std::vector<Tag>& tags, const TagKey& k);

struct TagFilter {
  TagKey key;
  std::string value;  // exact match; "" selects rows without the tag
  friend bool operator==(const TagFilter&, const TagFilter&) = default;
};

// Days a query groups by: each day, or the ISO week (from Monday) or month it falls in.
enum class Period { kDay, kWeek, kMonth };
// The first day of the period holding `d`.
Day period_start(Period p, Day d);

// The order of an aggregate's rows.
enum class RowOrder {
  // Text order of the dimensions' values, then tags, then currency, then day: each group's days
  // come as one ascending run.
  kText,
  // A cost report's: day ascending, then effective cost descending, then the values at
  // AggregateQuery::cost_ties as text (an empty tag value read as `untagged_text`), then currency.
  kCost,
};

// The store's side of a report: sums grouped by day (optional), plain dimensions and tag values.
// Store::aggregate answers in `order`.
struct AggregateQuery {
  std::vector<Dimension> dims;  // plain (non-tag) dimensions
  std::vector<TagKey> tags;     // tag keys, grouped by their values ("" = untagged)
  bool by_day = false;
  Period period = Period::kDay;  // with by_day: a row's day is the first of its period
  std::optional<Day> from, to;   // inclusive first day, exclusive last day
  std::vector<Filter> filters;   // plain dimensions
  std::vector<TagFilter> tag_filters;
  bool gpu_rows_only = false;  // only charges with GPU-hours (reads the raw charges)
  RowOrder order = RowOrder::kText;
  // For RowOrder::kCost: positions in AggregateRow::values (dims first, then tags) compared in
  // turn when the effective costs are equal, and the text an empty tag value compares as.
  std::vector<std::size_t> cost_ties;
  std::string untagged_text;
  bool reads_tags() const { return !tags.empty() || !tag_filters.empty(); }
  // Store::aggregate_into answers a query equal to an earlier one of the same call from the same
  // groups, read once (a reader that measures its rows before it writes them asks twice).
  friend bool operator==(const AggregateQuery&, const AggregateQuery&) = default;
};

// A tag set as `q` sees it: its value per q.tags ("" = untagged), or nullopt when q.tag_filters
// drop it (filters on one key OR together, as Filter says).
std::optional<std::vector<std::string>> resolve_tags(const std::vector<Tag>& tags,
                                                     const AggregateQuery& q);

struct Sums {
  core::WideNanos billed = 0, effective = 0, list = 0, contracted = 0;
  double gpu_hours = 0;
  std::int64_t rows = 0;
  // GPU-hours whose host has telemetry that day, and those weighted by how busy the GPUs were
  // (filled by run_report when asked for the useful share).
  double observed_gpu_hours = 0, useful_gpu_hours = 0;
  // ConsumedQuantity (NULL counted 0): meaningful grouped by resource or consumed_unit (the daily
  // rollup keeps the consumed unit and this sum since schema 8).
  double consumed_quantity = 0;
  // The first and last day with a row (the sentinels when none).
  Day first_day = std::numeric_limits<Day>::max(), last_day = std::numeric_limits<Day>::min();
  Sums& operator+=(const Sums& o);
};

struct AggregateRow {
  Day day = 0;  // when by_day; else 0
  std::vector<std::string>
      values;  // one per AggregateQuery::dims, then one per tags ("" = untagged)
  std::string currency;
  Sums sums;
};

}  // namespace aicost::ledger

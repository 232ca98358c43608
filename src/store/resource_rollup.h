// The resource-day rollup of one ingest (ledger::kResourceRollupDims, schema 11): the source's
// charges summed per day, resource dimensions, currency and tag set, kept only while they fold
// well. An ingest writes it to `charge_resource_daily` when folds() says so; a source whose charges
// do not fold (each resource billed a few times a day at most) writes nothing there and pays for
// its first batch's grouping only.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aicost/ledger/charge.h"
#include "aicost/ledger/query.h"
#include "aicost/ledger/rollup.h"
#include "hash_index.h"
#include "schema.h"

namespace aicost::store {

struct ResourceRollupRow {
  ledger::Day day = 0;
  std::string resource;
  // The string ids of kResourceRollupDims after the resource, then the currency's.
  std::array<std::int64_t, ledger::kResourceRollupDimCount> ids{};
  std::int64_t tagset = 0;
  ledger::Sums sums;
};

class ResourceRollup {
 public:
  // A source folds when its charges number at least this many times its groups.
  static constexpr std::int64_t kMinFold = 4;
  // The grouping gives up past this many groups (some 350 bytes each with the resource id and the
  // index: about 0.4 GB at most, a file of some 25M hourly charges), and after its first
  // kProbeRows rows when they fold less than kMinFold times.
  static constexpr std::size_t kMaxGroups = std::size_t{1} << 20;
  static constexpr std::int64_t kProbeRows = 4096;

  // Adds `rows`; `ids` and `tagsets` are theirs (text ids in kChargeText order, tag set id).
  void add(std::span<const ledger::Charge> rows, std::span<const ChargeTextIds> ids,
           std::span<const std::int64_t> tagsets);
  // Whether the rows added fold at least kMinFold times into groups whose sums the ledger can hold
  // (int64 nano-units): then the ingest writes rows().
  bool folds() const;
  const std::vector<ResourceRollupRow>& rows() const { return groups_; }  // in first-seen order
  void clear();

 private:
  static std::uint64_t hash(const ResourceRollupRow& key);
  static bool same_key(const ResourceRollupRow& a, const ResourceRollupRow& b) {
    return a.day == b.day && a.tagset == b.tagset && a.ids == b.ids && a.resource == b.resource;
  }
  HashIndex index_;  // over groups_
  std::vector<ResourceRollupRow> groups_;
  std::int64_t rows_ = 0;
  bool given_up_ = false;
};

}  // namespace aicost::store

// The waste detectors (waste.h) fed from a ledger: charges by resource and day over a look-back,
// commitments, and telemetry by GPU and hour, all read through ledger::Store.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/governance/waste.h"
#include "aicost/ledger/store.h"

namespace aicost::governance {

struct WasteOptions {
  int window_days = 30;        // the spend a finding prices (then scaled to a month)
  int idle_lookback_days = 7;  // telemetry read for idle and hung GPUs
  std::vector<std::string> required_tags = {"team"};  // spend without them is untagged
  std::vector<std::string> content_tags = {"dataset", "checkpoint"};  // name what a bucket stores
  std::string fleet_tag = "service";  // GPU resources with one value are one fleet
  IdleGpuOptions idle;
  TtlOptions ttl;
  UntaggedOptions untagged;
  StorageGrowthOptions storage;
  LogRetentionOptions logs;
  CommitmentOptions commitments;
  FleetOptions fleets;
};

class ResourceFold;  // waste_resources.h

// find_waste in three steps, for a caller that reads other queries of the charges in the same read
// (`aicost optimize --db`: one scan of the charges for its levers and these): the queries, their
// rows as the store hands them out, then the findings. The queries must be read together by one
// Store::aggregate_into, interleaved on their first kInterleave dims (after the caller's own,
// `interleave_from`). Not copyable or movable (the fold keeps the options by address).
class WasteScan {
 public:
  WasteScan(const WasteOptions& options, ledger::Day as_of,
            const std::map<std::string, std::vector<std::string>>& aliases);
  ~WasteScan();
  WasteScan(const WasteScan&) = delete;
  WasteScan& operator=(const WasteScan&) = delete;

  static constexpr std::size_t kInterleave = 2;  // resource id and name
  const std::vector<ledger::AggregateQuery>& queries() const { return queries_; }
  // A row of queries()[query], in the store's order.
  void add(std::size_t query, ledger::AggregateRow& row);
  // The findings, once every row is in; `telemetry` as find_waste's (nullptr: read here).
  core::Result<std::vector<WasteFinding>> finish(ledger::Store& store,
                                                 const std::vector<ledger::GpuHour>* telemetry);

 private:
  WasteOptions o_;
  ledger::Day as_of_;
  double to_month_;
  std::vector<ledger::AggregateQuery> queries_;
  std::unique_ptr<ResourceFold> resources_;
};

// Every finding as of `as_of` (spend before it), sorted by monthly saving. `telemetry`: hourly GPU
// telemetry the caller read already (Store::gpu_hours, with FB_USED or without) over days that hold
// the idle look-back [as_of - idle_lookback_days, as_of); its rows in the look-back stand for a
// read of it (the same findings), which is then not made. nullptr: read here.
core::Result<std::vector<WasteFinding>> find_waste(
    ledger::Store& store, const WasteOptions& options, ledger::Day as_of,
    const std::map<std::string, std::vector<std::string>>& aliases,
    const std::vector<ledger::GpuHour>* telemetry = nullptr);

}  // namespace aicost::governance

// The waste detectors (waste.h) fed from a ledger: charges by resource and day over a look-back,
// commitments, and telemetry by GPU and hour, all read through ledger::Store.
#pragma once

#include <map>
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

// Every finding as of `as_of` (spend before it), sorted by monthly saving. `telemetry`: hourly GPU
// telemetry the caller read already (Store::gpu_hours, with FB_USED or without) over days that hold
// the idle look-back [as_of - idle_lookback_days, as_of); its rows in the look-back stand for a
// read of it (the same findings), which is then not made. nullptr: read here.
core::Result<std::vector<WasteFinding>> find_waste(
    ledger::Store& store, const WasteOptions& options, ledger::Day as_of,
    const std::map<std::string, std::vector<std::string>>& aliases,
    const std::vector<ledger::GpuHour>* telemetry = nullptr);

}  // namespace aicost::governance

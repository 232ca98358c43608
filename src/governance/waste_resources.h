// The waste scan's charges by resource (waste_scan.cc), folded one resource at a time as the
// store hands out its groups: sorted by resource id, then name, each (id, name)'s storage days
// just before its groups (Store::aggregate_into, interleaved), so a resource comes whole. When it
// closes, what each detector needs of it is taken (its dev-TTL and storage findings, its place
// among the costliest untagged, its copy of a dataset, its price per GPU-hour) and the resource
// dropped: memory grows with GPU resources and findings, not with resources. A resource without
// an id is keyed by its name, which a later id may equal: those stay open to the end, and come
// first, where the store's order puts them.
#pragma once

#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aicost/governance/waste.h"
#include "aicost/governance/waste_scan.h"
#include "aicost/ledger/query.h"

namespace aicost::governance {

// The resource query's columns (ResourceFold::row's values: these, then the tags).
inline constexpr ledger::Dimension kResourceDims[] = {
    ledger::Dimension::kResource,     ledger::Dimension::kResourceName,
    ledger::Dimension::kService,      ledger::Dimension::kServiceCategory,
    ledger::Dimension::kResourceType, ledger::Dimension::kRegion,
    ledger::Dimension::kConsumedUnit, ledger::Dimension::kChargeCategory,
    ledger::Dimension::kCommitment,   ledger::Dimension::kCommitmentStatus};

// A resource with GPU-hours, as the GPU detectors read it.
struct GpuResource {
  std::vector<std::string>
      hosts;  // the telemetry hosts it may be: name, id, the id's last path part
  std::string key, currency;
  double cost = 0, gpu_hours = 0;
  std::optional<std::string> fleet;  // its fleet tag's value
};

class ResourceFold {
 public:
  // `tag_keys`: the resource query's tags, in order (env keys, required, content, fleet);
  // `days`: its days, from `from`; costs scale to a month by `to_month`.
  ResourceFold(const WasteOptions& o, ledger::Day as_of, int days, ledger::Day from,
               double to_month, std::vector<std::string> tag_keys);

  // A storage or log resource's row by day (resource, name, by day), before its groups.
  void daily(const ledger::AggregateRow& row);
  // A group of the resource query (kResourceDims, then tags), in the store's text order.
  void row(ledger::AggregateRow& row);
  // After the last row: closes the resources still open.
  void finish();

  // What the resources gave, in the order of the resources (the store's).
  std::vector<WasteFinding> expired,
      storage;                        // dev resources past their TTL; storage growth and logs
  std::vector<StoredObject> objects;  // content-tagged storage, for duplicate_storage
  std::deque<GpuResource> gpus;
  // Per (tag key, currency): untagged and taggable spend, and the costliest untagged resources.
  std::map<std::pair<std::string, std::string>, UntaggedSpend> untagged;
  std::map<std::pair<std::string, std::string>, CommitmentUse> uses;  // by commitment and currency
  // The hosts of each expired dev resource, by its key and currency.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> expired_hosts;

 private:
  struct DayUse {
    ledger::Day day;
    double cost, quantity;  // consumed quantity
  };
  struct Resource {
    std::string id, name, service, category, type, region, unit, currency;
    std::map<std::string, std::string> tags;
    ledger::Day first = std::numeric_limits<ledger::Day>::max(),
                last = std::numeric_limits<ledger::Day>::min();
    double cost = 0, gpu_hours = 0;  // over the resource query's days
    std::vector<DayUse> daily;       // storage and logs
    const std::string& key() const { return id.empty() ? name : id; }
  };
  // What a resource's findings went to: its place in the store's order.
  struct Out {
    std::vector<WasteFinding> expired, storage;
    std::vector<StoredObject> objects;
    std::deque<GpuResource> gpus;
  };
  struct DailyRow {
    ledger::Day day;
    std::string currency;
    double cost, quantity;
    bool used = false;
  };

  void start_run(const std::string& id, const std::string& name);
  void close_run();
  void attach(std::vector<DailyRow>& rows);
  void close(Resource& r, Out& out);

  const WasteOptions& o_;
  ledger::Day as_of_;
  int days_;
  ledger::Day from_;
  double to_month_;
  std::vector<std::string> tag_keys_, canonical_tags_;
  // The current run's days, and those of names without an id (a later id may be theirs).
  std::vector<DailyRow> days_of_run_;
  std::unordered_map<std::string, std::vector<DailyRow>> idless_days_;
  // The resources of the current run (one id, or no id and one name), and those without an id.
  std::string run_id_, run_name_;
  bool in_run_ = false;
  std::deque<Resource> run_;        // the run's new resources
  std::vector<Resource*> members_;  // the run's resources, new or open, as they came
  std::deque<Resource> open_;
  std::map<std::pair<std::string, std::string>, Resource*> open_index_;  // by key and currency
  // The costliest untagged resources so far per (required tag key, currency): a heap, worst on top.
  struct Untagged {
    double cost;
    std::string key, shown;  // shown: the id, or the service when there is none
  };
  std::map<std::pair<std::string, std::string>, std::vector<Untagged>> top_;
  Out closed_, opened_;  // from resources with an id, and from those without (which come first)
};

}  // namespace aicost::governance

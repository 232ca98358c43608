// Attribution: cost by dimensions and tags over periods, top-N, untagged share.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/query.h"
#include "aicost/ledger/store.h"

namespace aicost::ledger {

enum class Granularity { kTotal, kDay, kWeek, kMonth };
core::Result<Granularity> parse_granularity(std::string_view text);  // total|day|week|month
// "2024-09-01", ISO week "2024-W36" (Monday start), "2024-09"; "" for kTotal.
std::string period_label(Granularity g, Day d);

inline constexpr const char* kUntagged = "(untagged)";
inline constexpr const char* kOther = "(other)";

struct ReportRequest {
  std::vector<GroupKey> by;
  Granularity granularity = Granularity::kTotal;
  std::optional<Day> from, to;  // [from, to)
  std::vector<Filter> filters;
  std::size_t top = 0;  // keep the N groups with the most effective cost; fold the rest into (other)
  // Canonical tag key -> further canonical keys that mean the same ("team" <- "owner", "squad").
  // The first key present on a row wins.
  std::map<std::string, std::vector<std::string>> aliases;
  // Join GPU telemetry: GPU-hours of charges whose resource (name, id or the id's last path part)
  // is a telemetry host are weighted by that host's mean activity that day (SM_ACTIVE, else
  // GR_ENGINE_ACTIVE, else GPU_UTIL, which reads busy on a hung job).
  bool useful = false;
};

struct ReportLine {
  std::string period;
  std::vector<std::string> values;  // one per ReportRequest::by
  std::string currency;
  Sums sums;
};

struct UntaggedShare {
  std::string tag_key;
  std::string currency;
  double share = 0;  // of the effective cost of Usage and Purchase charges (credits and taxes carry no tags)
  core::WideNanos untagged_effective = 0;
};

struct Report {
  ReportRequest request;
  std::vector<ReportLine> lines;   // period ascending, then effective cost descending
  std::vector<ReportLine> totals;  // one per currency
  std::vector<UntaggedShare> untagged;  // one per tag key grouped by and currency
};

// The store query a request needs.
AggregateQuery aggregate_query(const ReportRequest& r);
// The activity to credit a day's GPU-hours on `host` with: the best metric present (nullopt if none).
std::optional<double> host_activity(const std::vector<HostActivity>& activity, const std::string& host, Day day);

// Rolls days into periods, ranks and folds the store's rows for aggregate_query(r) (pure).
Report build_report(const ReportRequest& r, const std::vector<AggregateRow>& rows);
core::Result<Report> run_report(Store& store, const ReportRequest& r);

}  // namespace aicost::ledger

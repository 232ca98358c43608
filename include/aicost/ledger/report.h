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
  std::size_t top =
      0;  // keep the N groups with the most effective cost; fold the rest into (other)
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
  double share =
      0;  // of the effective cost of Usage and Purchase charges (credits and taxes carry no tags)
  core::WideNanos untagged_effective = 0;
};

struct Report {
  ReportRequest request;
  std::vector<ReportLine> lines;        // period ascending, then effective cost descending
  std::vector<ReportLine> totals;       // one per currency
  std::vector<UntaggedShare> untagged;  // one per tag key grouped by and currency
};

// The store query a request needs, as build_report reads it (with charge_category for the
// untagged share when a tag is grouped by).
AggregateQuery aggregate_query(const ReportRequest& r);
// The activity to credit a day's GPU-hours on `host` with: the best metric present (nullopt if
// none).
std::optional<double> host_activity(const std::vector<HostActivity>& activity,
                                    const std::string& host, Day day);

// Rolls days into periods, ranks and folds the store's rows for aggregate_query(r) (pure, every
// row in memory): what stream_report makes, the way it is defined.
Report build_report(const ReportRequest& r, const std::vector<AggregateRow>& rows);

// A report as it is made, for output that need not hold it whole.
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  // How many times the lines are wanted (a table measures its columns before it writes them).
  virtual int passes() const { return 1; }
  // Before any line: the request and the totals per currency (a line's share needs them).
  virtual core::Status begin(const ReportRequest& r, const std::vector<ReportLine>& totals) = 0;
  // Each line in the report's order (Report::lines), passes() times over: pass 0, 1, ...
  virtual core::Status line(const ReportLine& line, int pass) = 0;
  // After the last line.
  virtual core::Status end(const std::vector<UntaggedShare>& untagged) = 0;
};

// build_report's answer, line by line into `sink`, holding no more than its lines need. Without
// --top, each line is a group of the store's (its period, dimension and tag values, currency),
// handed out as the store sorts it (RowOrder::kCost), so the report holds one line at a time and
// the store its groups. With --top N, the groups come in text order, each whole, and only the N
// with the most effective cost so far are kept, the others summed into (other) per period and
// currency as they drop out (exact: 128-bit nano-units). Totals and untagged shares come from a
// second, small query (by charge category, tag values and currency). GPU-hours summed in another
// order than build_report's may differ in their last bits.
core::Status stream_report(Store& store, const ReportRequest& r, ReportSink& sink);
// stream_report's lines, collected.
core::Result<Report> run_report(Store& store, const ReportRequest& r);

}  // namespace aicost::ledger

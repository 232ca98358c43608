// evaluate_changes: every change's scope read from the ledger in one pass (one aggregate_into for
// the whole journal: SQLite answers its raw queries from one scan of the charges), by day and
// consumed unit (cost, GPU-hours, tokens) and by resource (GPU-hours weighted by the telemetry's
// activity, as `ledger report --useful` does), then measured (journal.cc).
#include <algorithm>
#include <cctype>
#include <map>

#include "aicost/core/amount.h"
#include "aicost/governance/journal.h"
#include "aicost/ledger/report.h"

namespace aicost::governance {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Tokens in one ConsumedQuantity of `unit`: 0 for a unit that does not count tokens; "1M tokens"
// or "million tokens" count millions, "1K tokens" or "thousand tokens" thousands.
double tokens_per_unit(const std::string& unit) {
  const std::string u = lower(unit);
  if (u.find("token") == std::string::npos) return 0;
  if (u.find("1m") != std::string::npos || u.find("million") != std::string::npos) return 1e6;
  if (u.find("1k") != std::string::npos || u.find("thousand") != std::string::npos) return 1e3;
  return 1;
}

double units(core::WideNanos n) { return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit); }

// One change's days, by currency and day, and its effective cost by currency.
struct Scope {
  std::map<std::string, std::map<ledger::Day, ScopeDay>> days;
  std::map<std::string, core::WideNanos> cost;
};

}  // namespace

core::Result<std::vector<ChangeResult>> evaluate_changes(ledger::Store& store, const ChangeOptions& o) {
  auto journal = store.changes();
  if (!journal) return journal.error();
  if (journal->empty()) return std::vector<ChangeResult>{};
  // Two queries per change: by day and consumed unit; its GPU rows by day and resource.
  std::vector<ledger::AggregateQuery> queries;
  ledger::Day first = 0, end = 0;
  for (std::size_t i = 0; i < journal->size(); ++i) {
    const auto& c = (*journal)[i];
    ledger::ReportRequest r;
    r.by = {{ledger::Dimension::kConsumedUnit, {}}};
    r.granularity = ledger::Granularity::kDay;
    r.from = c.day - o.window_days;
    r.to = std::max(c.day, std::min(c.day + o.window_days, o.as_of));
    r.filters = c.scope;
    auto lines = ledger::aggregate_query(r);
    auto gpus = lines;
    gpus.dims = {ledger::Dimension::kResource, ledger::Dimension::kResourceName};
    // Not gpu_rows_only: a store may then read each query on its own (SQLite does), where these
    // all come from one scan; rows without GPU-hours add nothing below.
    queries.push_back(std::move(lines));
    queries.push_back(std::move(gpus));
    first = i == 0 ? *r.from : std::min(first, *r.from);
    end = i == 0 ? *r.to : std::max(end, *r.to);
  }
  auto activity = store.gpu_activity(first, end);
  if (!activity) return activity.error();
  std::sort(activity->begin(), activity->end(), [](const ledger::HostActivity& a, const ledger::HostActivity& b) {
    return std::tie(a.host, a.day, a.metric) < std::tie(b.host, b.day, b.metric);
  });
  std::vector<Scope> scopes(journal->size());
  auto s = store.aggregate_into(queries, [&](std::size_t q, ledger::AggregateRow& row) -> core::Status {
    if (row.day >= queries[q].to.value_or(row.day + 1)) return {};  // an empty window ([day, day))
    Scope& scope = scopes[q / 2];
    ScopeDay& d = scope.days[row.currency][row.day];
    d.day = row.day;
    if (q % 2 == 0) {
      d.cost += units(row.sums.effective);
      d.gpu_hours += row.sums.gpu_hours;
      d.tokens += row.sums.consumed_quantity * tokens_per_unit(row.values.front());
      scope.cost[row.currency] += row.sums.effective;
      return {};
    }
    if (row.sums.gpu_hours == 0) return {};
    // A resource is a telemetry host by its name, its id, or its id's last path part.
    const std::string& id = row.values[0];
    const std::string& name = row.values[1];
    std::optional<double> busy;
    for (const std::string& host : {name, id, id.substr(id.find_last_of('/') + 1)})
      if (!host.empty() && !busy) busy = ledger::host_activity(*activity, host, row.day);
    if (busy) {
      d.observed_gpu_hours += row.sums.gpu_hours;
      d.useful_gpu_hours += row.sums.gpu_hours * *busy;
    }
    return {};
  });
  if (!s) return s.error().with_context("measuring the change journal");
  std::vector<ChangeResult> out;
  for (std::size_t i = 0; i < journal->size(); ++i) {
    // The currency with the most cost in the scope (a bill is in one, as a rule).
    const Scope& scope = scopes[i];
    std::string currency;
    core::WideNanos most = 0;
    for (const auto& [c, cost] : scope.cost)
      if (currency.empty() || cost > most) currency = c, most = cost;
    std::vector<ScopeDay> days;
    if (auto it = scope.days.find(currency); it != scope.days.end())
      for (const auto& [day, d] : it->second) days.push_back(d);
    auto m = measure_change((*journal)[i], days, o);
    m.currency = currency;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace aicost::governance

// evaluate_changes: each change's scope read from the ledger as a daily report (cost, GPU-hours,
// telemetry's useful GPU-hours, tokens by consumed unit), then measured (journal.cc).
#include <algorithm>
#include <cctype>
#include <cstdio>
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

ledger::Day parse_period(const std::string& label) {
  int y = 0;
  unsigned m = 0, d = 0;
  std::sscanf(label.c_str(), "%d-%u-%u", &y, &m, &d);
  return ledger::days_from_civil(y, m, d);
}

}  // namespace

core::Result<std::vector<ChangeResult>> evaluate_changes(ledger::Store& store, const ChangeOptions& o) {
  auto journal = store.changes();
  if (!journal) return journal.error();
  std::vector<ChangeResult> out;
  for (const auto& c : *journal) {
    ledger::ReportRequest r;
    r.by = {{ledger::Dimension::kConsumedUnit, {}}};
    r.granularity = ledger::Granularity::kDay;
    r.from = c.day - o.window_days;
    r.to = std::max(c.day, std::min(c.day + o.window_days, o.as_of));
    r.filters = c.scope;
    r.useful = true;
    std::vector<ScopeDay> days;
    std::string currency;
    if (*r.to > *r.from) {
      auto rep = ledger::run_report(store, r);
      if (!rep) return rep.error().with_context("measuring change " + std::to_string(c.id));
      // The currency with the most cost in the scope (a bill is in one, as a rule).
      const ledger::ReportLine* top = nullptr;
      for (const auto& t : rep->totals)
        if (!top || t.sums.effective > top->sums.effective) top = &t;
      if (top) currency = top->currency;
      std::map<ledger::Day, ScopeDay> by_day;
      for (const auto& line : rep->lines) {
        if (line.currency != currency) continue;
        const ledger::Day day = parse_period(line.period);
        auto& d = by_day[day];
        d.day = day;
        d.cost += static_cast<double>(line.sums.effective) / static_cast<double>(core::kNanosPerUnit);
        d.gpu_hours += line.sums.gpu_hours;
        d.observed_gpu_hours += line.sums.observed_gpu_hours;
        d.useful_gpu_hours += line.sums.useful_gpu_hours;
        d.tokens += line.sums.consumed_quantity * tokens_per_unit(line.values.front());
      }
      for (const auto& [day, d] : by_day) days.push_back(d);
    }
    auto m = measure_change(c, days, o);
    m.currency = currency;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace aicost::governance

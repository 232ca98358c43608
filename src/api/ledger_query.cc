#include "aicost/api/ledger_query.h"

#include <chrono>
#include <cstdio>
#include <set>


namespace aicost::api {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(trim(s.substr(start, comma - start)));
  out.push_back(trim(s.substr(start)));
  return out;
}

core::Result<ledger::Day> parse_day(const std::string& text, const char* option) {
  int y = 0;
  unsigned m = 0, d = 1;
  char tail = 0;
  const int n = std::sscanf(text.c_str(), "%4d-%2u-%2u%c", &y, &m, &d, &tail);
  if ((n != 2 && n != 3) || m < 1 || m > 12 || d < 1 || d > 31)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "'" + text + "' is not a date; write YYYY-MM-DD (or YYYY-MM for the 1st)", option);
  return ledger::days_from_civil(y, m, d);
}

}  // namespace

core::Result<ledger::Day> as_of_day(const std::string& text, const char* option) {
  if (text.empty()) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<ledger::Day>(std::chrono::duration_cast<std::chrono::days>(now).count());
  }
  int y = 0;
  unsigned m = 0, d = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%4d-%2u-%2u%c", &y, &m, &d, &tail) != 3 || m < 1 || m > 12 || d < 1 || d > 31)
    return core::make_error(core::ErrorCode::kInvalidInput, "'" + text + "' is not a date; write YYYY-MM-DD", option);
  return ledger::days_from_civil(y, m, d);
}

core::Result<ledger::ReportRequest> report_request(const LedgerReportQuery& o) {
  ledger::ReportRequest r;
  for (const auto& name : split_commas(o.by)) {
    if (name.empty()) continue;
    auto k = ledger::parse_group_key(name);
    if (!k) return k.error().with_context("--by");
    r.by.push_back(*k);
  }
  auto g = ledger::parse_granularity(o.granularity);
  if (!g) return g.error().with_context("--granularity");
  r.granularity = *g;
  if (!o.from.empty()) {
    auto d = parse_day(o.from, "--from");
    if (!d) return d.error();
    r.from = *d;
  }
  if (!o.to.empty()) {
    auto d = parse_day(o.to, "--to");
    if (!d) return d.error();
    r.to = *d;
  }
  if (r.from && r.to && *r.to <= *r.from)
    return core::make_error(core::ErrorCode::kInvalidInput, "--to must be after --from (--to is the first day left out)");
  r.top = o.top;
  r.useful = o.useful;
  for (const auto& f : o.filters) {
    const auto eq = f.find('=');
    if (eq == std::string::npos)
      return core::make_error(core::ErrorCode::kInvalidInput, "write a filter as DIMENSION=VALUE, e.g. tag:team=ml", f);
    auto k = ledger::parse_group_key(trim(f.substr(0, eq)));
    if (!k) return k.error().with_context("--filter");
    r.filters.push_back({*k, f.substr(eq + 1)});
  }
  for (const auto& a : o.aliases) {
    const auto eq = a.find('=');
    if (eq == std::string::npos)
      return core::make_error(core::ErrorCode::kInvalidInput, "write an alias as KEY=OTHER[,OTHER...], e.g. team=owner,squad", a);
    auto& list = r.aliases[ledger::canonical_tag_key(a.substr(0, eq))];
    for (const auto& other : split_commas(a.substr(eq + 1)))
      if (!other.empty()) list.push_back(ledger::canonical_tag_key(other));
  }
  return r;
}

core::Result<config::BudgetFile> check_budgets(const LedgerCheckQuery& q) {
  auto file = config::load_budgets(q.budgets);
  if (!file) return file.error();
  auto day = as_of_day(q.as_of);
  if (!day) return day.error();
  file->options.as_of = *day;
  file->options.strict = q.strict;
  file->options.stale_after_days = q.stale_after_days;
  return file;
}

core::Result<governance::CheckResult> ledger_check(ledger::Store& store, const config::BudgetFile& file) {
  auto sent = store.sent_alerts();
  if (!sent) return sent.error();
  std::set<std::string> fired;
  for (const auto& s : *sent) fired.insert(s.key);
  return governance::run_check(store, file.budgets, file.options, fired);
}

}  // namespace aicost::api

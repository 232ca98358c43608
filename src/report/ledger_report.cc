#include "aicost/report/ledger_report.h"

#include <fmt/format.h>

#include <map>

#include "aicost/core/amount.h"
#include "aicost/core/text.h"
#include "aicost/report/table.h"
#include "json.h"

namespace aicost::report {
namespace {


std::string people(core::WideNanos n) { return core::format_amount(n, 2); }
std::string exact(core::WideNanos n) { return core::format_amount_exact(n); }
// Money for the format: exact digits for programs, cents for people.
std::string money(core::WideNanos n, Format f) { return f == Format::kTable || f == Format::kMarkdown ? people(n) : exact(n); }

std::string severity(const ledger::RowIssue& i) {
  return i.severity == ledger::RowIssue::Severity::kError ? "error" : "warning";
}

Json issue_json(const ledger::RowIssue& i) {
  return Json{{"line", i.line}, {"column", i.column}, {"severity", severity(i)}, {"message", i.message}};
}

Json totals_json(const std::vector<ledger::CurrencyTotal>& totals) {
  Json out = Json::array();
  for (const auto& t : totals)
    out.push_back({{"currency", t.currency}, {"billed", exact(t.billed)}, {"effective", exact(t.effective)}});
  return out;
}

std::string totals_text(const std::vector<ledger::CurrencyTotal>& totals) {
  std::string out;
  for (const auto& t : totals)
    out += fmt::format("{}{} {} billed, {} effective", out.empty() ? "" : "; ", t.currency, people(t.billed),
                       people(t.effective));
  return out.empty() ? "no charges" : out;
}

Json source_json(const ledger::SourceRecord& s) {
  return Json{{"id", s.id},          {"path", s.file.path},   {"format", s.file.format},
              {"sha256", s.file.sha256}, {"bytes", s.file.bytes}, {"loaded_at", s.loaded_at},
              {"rows", s.rows},      {"rejected", s.rejected}, {"warnings", s.warnings},
              {"totals", totals_json(s.totals)}};
}

const char* outcome(billing::IngestResult::Outcome o) {
  switch (o) {
    case billing::IngestResult::Outcome::kLoaded: return "loaded";
    case billing::IngestResult::Outcome::kAlreadyLoaded: return "already_loaded";
    case billing::IngestResult::Outcome::kReplaced: return "replaced";
  }
  return "";
}

}  // namespace

std::string render_ingest(const std::string& path, const billing::IngestResult& r, Format f) {
  if (f == Format::kJson) {
    Json j{{"file", path}, {"outcome", outcome(r.outcome)}, {"source", source_json(r.record)}};
    if (r.outcome != billing::IngestResult::Outcome::kAlreadyLoaded) {
      j["records"] = r.summary.records;
      j["rounded_amounts"] = r.summary.rounded;
      j["replaced"] = r.replaced;
      j["issue_count"] = r.issue_count;
      Json issues = Json::array();
      for (const auto& i : r.issues) issues.push_back(issue_json(i));
      j["issues"] = issues;
    }
    return json_text(j) + "\n";
  }
  if (r.outcome == billing::IngestResult::Outcome::kAlreadyLoaded)
    return fmt::format("{}: already loaded as source #{} ({}, {} rows); nothing changed\n", path, r.record.id,
                       r.record.file.format, r.record.rows);
  std::string out = fmt::format("{}: {} {} rows as source #{} ({}); {}\n", path,
                                r.outcome == billing::IngestResult::Outcome::kReplaced ? "replaced, loaded" : "loaded",
                                r.record.rows, r.record.id, r.record.file.format, totals_text(r.record.totals));
  if (!r.replaced.empty()) {
    std::string ids;
    for (auto id : r.replaced) ids += (ids.empty() ? "#" : ", #") + std::to_string(id);
    out += fmt::format("  swapped out earlier load {} of this path\n", ids);
  }
  if (r.summary.rejected > 0)
    out += fmt::format("  {} rows not loaded (errors below; `aicost ledger validate` lists all)\n", r.summary.rejected);
  if (r.issue_count > 0) {
    out += fmt::format("  {} issue{}:\n", r.issue_count, r.issue_count == 1 ? "" : "s");
    for (const auto& i : r.issues)
      out += fmt::format("    line {}{}: {}: {}\n", i.line, i.column.empty() ? "" : " " + i.column, severity(i), i.message);
    if (r.issue_count > static_cast<std::int64_t>(r.issues.size()))
      out += fmt::format("    ... and {} more\n", r.issue_count - static_cast<std::int64_t>(r.issues.size()));
  }
  return out;
}

std::string render_sources(const std::vector<ledger::SourceRecord>& sources, Format f) {
  if (f == Format::kJson) {
    Json j = Json::array();
    for (const auto& s : sources) j.push_back(source_json(s));
    return json_text(j) + "\n";
  }
  Table t;
  t.title = sources.empty() ? "No sources loaded; add some with `aicost ledger ingest FILE`" : "Loaded sources";
  t.header = {"id", "format", "rows", "rejected", "warnings", "loaded_at", "totals", "path"};
  t.right_align = {true, false, true, true, true, false, false, false};
  for (const auto& s : sources) {
    std::string totals;
    for (const auto& c : s.totals) totals += (totals.empty() ? "" : "; ") + c.currency + " " + money(c.billed, f);
    t.rows.push_back({std::to_string(s.id), s.file.format, std::to_string(s.rows), std::to_string(s.rejected),
                      std::to_string(s.warnings), s.loaded_at, totals, s.file.path});
  }
  return render(t, f);
}

std::string render_compact(const std::string& db, const ledger::CompactResult& r, Format f) {
  if (f == Format::kJson)
    return json_text(Json{{"db", db}, {"bytes_before", r.bytes_before}, {"bytes_after", r.bytes_after}, {"how", r.how}}) +
           "\n";
  Table t;
  t.title = "Compacted " + db + " (" + r.how + ")";
  t.header = {"bytes_before", "bytes_after", "size_before", "size_after"};
  t.right_align = {true, true, true, true};
  t.rows.push_back({std::to_string(r.bytes_before), std::to_string(r.bytes_after),
                    core::format_bytes(static_cast<double>(r.bytes_before)),
                    core::format_bytes(static_cast<double>(r.bytes_after))});
  return render(t, f);
}

std::string render_ledger_report(const ledger::Report& r, Format f) {
  const auto& req = r.request;
  std::map<std::string, core::WideNanos> currency_effective;
  for (const auto& t : r.totals) currency_effective[t.currency] = t.sums.effective;
  auto share = [&](const ledger::ReportLine& l) {
    const auto total = currency_effective[l.currency];
    return total != 0 ? 100.0 * static_cast<double>(l.sums.effective) / static_cast<double>(total) : 0.0;
  };
  auto per_gpu_hour = [](const ledger::Sums& s) {
    return s.gpu_hours > 0 ? fmt::format("{:.4f}", static_cast<double>(s.effective) / 1e9 / s.gpu_hours) : std::string();
  };
  std::vector<std::string> dims;
  for (const auto& k : req.by) dims.push_back(ledger::group_key_name(k));

  if (f == Format::kJson) {
    Json lines = Json::array();
    auto line_json = [&](const ledger::ReportLine& l) {
      Json j;
      if (req.granularity != ledger::Granularity::kTotal) j["period"] = l.period;
      for (std::size_t i = 0; i < dims.size() && i < l.values.size(); ++i) j[dims[i]] = l.values[i];  // totals have none
      j["currency"] = l.currency;
      j["billed"] = exact(l.sums.billed);
      j["effective"] = exact(l.sums.effective);
      j["list"] = exact(l.sums.list);
      j["contracted"] = exact(l.sums.contracted);
      j["gpu_hours"] = l.sums.gpu_hours;
      if (req.useful) {
        j["observed_gpu_hours"] = l.sums.observed_gpu_hours;
        j["useful_gpu_hours"] = l.sums.useful_gpu_hours;
      }
      j["rows"] = l.sums.rows;
      return j;
    };
    for (const auto& l : r.lines) lines.push_back(line_json(l));
    Json totals = Json::array();
    for (const auto& t : r.totals) totals.push_back(line_json(t));
    Json untagged = Json::array();
    for (const auto& u : r.untagged)
      untagged.push_back({{"tag", u.tag_key}, {"currency", u.currency}, {"share", u.share},
                          {"untagged_effective", exact(u.untagged_effective)}});
    Json query{{"by", dims}};
    query["granularity"] = req.granularity == ledger::Granularity::kTotal ? "total"
                           : req.granularity == ledger::Granularity::kDay  ? "day"
                           : req.granularity == ledger::Granularity::kWeek ? "week"
                                                                             : "month";
    if (req.from) query["from"] = ledger::day_text(*req.from);
    if (req.to) query["to"] = ledger::day_text(*req.to);
    if (req.top) query["top"] = req.top;
    return json_text(Json{{"query", query}, {"lines", lines}, {"totals", totals}, {"untagged", untagged}}) + "\n";
  }

  Table t;
  std::string title = "Cost";
  if (!dims.empty()) {
    title += " by ";
    for (std::size_t i = 0; i < dims.size(); ++i) title += (i ? ", " : "") + dims[i];
  }
  if (req.from || req.to)
    title += fmt::format(", {} to {}", req.from ? ledger::day_text(*req.from) : "start",
                         req.to ? ledger::day_text(*req.to) + " (exclusive)" : "end");
  t.title = title + " (ranked by effective cost; money in each row's billing currency)";
  if (req.granularity != ledger::Granularity::kTotal) t.header.push_back("period");
  for (const auto& d : dims) t.header.push_back(d);
  // Grouped by currency, the group's own column is the currency column.
  const bool by_currency = std::find(dims.begin(), dims.end(), "currency") != dims.end();
  if (!by_currency) t.header.push_back("currency");
  for (const char* h : {"billed", "effective", "list", "gpu_hours", "per_gpu_hour", "rows", "share_pct"})
    t.header.push_back(h);
  if (req.useful) t.header.push_back("useful_pct");
  const std::size_t numbers = req.useful ? 8 : 7;
  t.right_align.assign(t.header.size(), true);
  for (std::size_t i = 0; i < t.header.size() - numbers; ++i) t.right_align[i] = false;
  auto row = [&](const ledger::ReportLine& l, bool total) {
    std::vector<std::string> cells;
    if (req.granularity != ledger::Granularity::kTotal) cells.push_back(total ? "total" : l.period);
    for (std::size_t i = 0; i < dims.size(); ++i)
      cells.push_back(!total ? l.values[i] : dims[i] == "currency" ? l.currency : i == 0 && cells.empty() ? "total" : "");
    if (!by_currency) cells.push_back(l.currency);
    cells.push_back(money(l.sums.billed, f));
    cells.push_back(money(l.sums.effective, f));
    cells.push_back(money(l.sums.list, f));
    cells.push_back(l.sums.gpu_hours > 0 ? fmt::format("{:.1f}", l.sums.gpu_hours) : "");
    cells.push_back(per_gpu_hour(l.sums));
    cells.push_back(std::to_string(l.sums.rows));
    cells.push_back(fmt::format("{:.1f}", share(l)));
    if (req.useful)
      cells.push_back(l.sums.observed_gpu_hours > 0
                          ? fmt::format("{:.1f}", 100.0 * l.sums.useful_gpu_hours / l.sums.observed_gpu_hours)
                          : "");
    t.rows.push_back(std::move(cells));
  };
  for (const auto& l : r.lines) row(l, false);
  if (f == Format::kCsv) return render(t, f);
  if (t.header.size() > numbers + 1)
    for (const auto& l : r.totals) row(l, true);
  std::string out = render(t, f);
  if (req.useful)
    out += "useful_pct: GPU-hours weighted by the hosts' mean SM_ACTIVE (else GR_ENGINE_ACTIVE, else GPU_UTIL) that day,\n"
           "  over the GPU-hours whose resource has telemetry; empty where none has\n";
  for (const auto& u : r.untagged)
    out += fmt::format("untagged {}: {:.1f} % of {} Usage and Purchase effective cost ({} {})\n", u.tag_key,
                       100.0 * u.share, u.currency, u.currency, people(u.untagged_effective));
  return out;
}

std::string render_validation(const std::string& path, const billing::Validation& v, Format f, bool& failed) {
  std::int64_t errors = 0, warnings = 0;
  for (const auto& i : v.issues) (i.severity == ledger::RowIssue::Severity::kError ? errors : warnings)++;
  failed = errors > 0 || warnings > 0;
  if (f == Format::kJson) {
    Json issues = Json::array();
    for (const auto& i : v.issues) issues.push_back(issue_json(i));
    return json_text(Json{{"file", path},
                {"format", v.summary.version},
                {"records", v.summary.records},
                {"loadable", v.summary.loaded},
                {"rejected", v.summary.rejected},
                {"conformant", !failed},
                {"issues", issues}}) +
           "\n";
  }
  Table t;
  t.title = fmt::format("{}: {}, {} rows, {} loadable, {} rejected; {} errors, {} warnings{}", path, v.summary.version,
                        v.summary.records, v.summary.loaded, v.summary.rejected, errors, warnings,
                        failed ? "" : " (conformant)");
  t.header = {"line", "column", "severity", "finding"};
  t.right_align = {true, false, false, false};
  for (const auto& i : v.issues) t.rows.push_back({std::to_string(i.line), i.column, severity(i), i.message});
  if (t.rows.empty()) return t.title + "\n";
  return render(t, f);
}

}  // namespace aicost::report

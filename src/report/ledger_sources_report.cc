// The ledger's sources: what `ledger ingest` loaded, the sources loaded so far (`ledger sources`)
// and the findings of `ledger validate` (report/ledger_report.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "aicost/report/ledger_report.h"
#include "aicost/report/table.h"
#include "json.h"
#include "ledger_parts.h"

namespace aicost::report {
namespace {

std::string severity(const ledger::RowIssue& i) { return ledger::severity_name(i.severity); }

// Where an issue is: "line 12" of a text file, "row 11" of a Parquet file (row 0: its schema).
std::string position(const ledger::RowIssue& i, const billing::ReadSummary& s) {
  return fmt::format("{} {}", s.rows_numbered ? "row" : "line", i.line);
}

Json issue_json(const ledger::RowIssue& i) {
  return Json{
      {"line", i.line}, {"column", i.column}, {"severity", severity(i)}, {"message", i.message}};
}

Json totals_json(const std::vector<ledger::CurrencyTotal>& totals) {
  Json out = Json::array();
  for (const auto& t : totals)
    out.push_back(
        {{"currency", t.currency}, {"billed", exact(t.billed)}, {"effective", exact(t.effective)}});
  return out;
}

std::string totals_text(const std::vector<ledger::CurrencyTotal>& totals) {
  std::string out;
  for (const auto& t : totals)
    out += fmt::format("{}{} {} billed, {} effective", out.empty() ? "" : "; ", t.currency,
                       people(t.billed), people(t.effective));
  return out.empty() ? "no charges" : out;
}

Json source_json(const ledger::SourceRecord& s) {
  return Json{{"id", s.id},
              {"path", s.file.path},
              {"format", s.file.format},
              {"sha256", s.file.sha256},
              {"bytes", s.file.bytes},
              {"loaded_at", s.loaded_at},
              {"rows", s.rows},
              {"rejected", s.rejected},
              {"warnings", s.warnings},
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

// An OpenShift delivery replaces what earlier uploads held of the days it sends again
// (billing/ingest.h); other exports replace whole billing periods.
static bool by_day(const billing::IngestResult& r) {
  return r.summary.version.rfind("ocp", 0) == 0;
}

std::string render_ingest(const std::string& path, const billing::IngestResult& r, Format f) {
  if (f == Format::kJson) {
    Json j{{"file", path}, {"outcome", outcome(r.outcome)}, {"source", source_json(r.record)}};
    if (r.outcome != billing::IngestResult::Outcome::kAlreadyLoaded) {
      j["records"] = r.summary.records;
      j["rounded_amounts"] = r.summary.rounded;
      j["replaced"] = r.replaced;
      j["restated"] = r.restated;
      j["periods"] = r.periods;
      j["restated_by"] = by_day(r) ? "day" : "billing period";
      j["parts"] = r.parts;
      j["encoding"] = billing::encoding_name(r.encoding);
      j["issue_count"] = r.issue_count;
      Json issues = Json::array();
      for (const auto& i : r.issues) issues.push_back(issue_json(i));
      j["issues"] = issues;
    }
    return json_text(j) + "\n";
  }
  if (r.outcome == billing::IngestResult::Outcome::kAlreadyLoaded)
    return fmt::format("{}: already loaded as source #{} ({}, {} rows); nothing changed\n", path,
                       r.record.id, r.record.file.format, r.record.rows);
  std::string out = fmt::format(
      "{}: {} {} rows as source #{} ({}); {}\n", path,
      r.outcome == billing::IngestResult::Outcome::kReplaced ? "replaced, loaded" : "loaded",
      r.record.rows, r.record.id, r.record.file.format, totals_text(r.record.totals));
  auto ids_text = [](const std::vector<std::int64_t>& ids, const std::vector<std::int64_t>& but) {
    std::string out;
    for (auto id : ids)
      if (std::find(but.begin(), but.end(), id) == but.end())
        out += (out.empty() ? "#" : ", #") + std::to_string(id);
    return out;
  };
  if (const auto by_path = ids_text(r.replaced, r.restated); !by_path.empty())
    out += fmt::format("  swapped out earlier load {} of this path\n", by_path);
  if (!r.restated.empty() && by_day(r)) {
    std::string days;
    for (const auto& p : r.periods) days += (days.empty() ? "" : ", ") + p;
    out += fmt::format("  replaced what earlier delivery {} held of the days sent again ({})\n",
                       ids_text(r.restated, {}), days);
  } else if (!r.restated.empty()) {
    std::string periods;
    for (const auto& p : r.periods) periods += (periods.empty() ? "" : ", ") + p.substr(0, 7);
    out += fmt::format("  replaced earlier delivery {} of billing period {} (a restatement)\n",
                       ids_text(r.restated, {}), periods);
  }
  if (r.summary.rejected > 0)
    out += fmt::format("  {} rows not loaded (errors below; `aicost ledger validate` lists all)\n",
                       r.summary.rejected);
  if (r.issue_count > 0) {
    out += fmt::format("  {} issue{}:\n", r.issue_count, r.issue_count == 1 ? "" : "s");
    for (const auto& i : r.issues)
      out += fmt::format("    {}{}: {}: {}\n", position(i, r.summary),
                         i.column.empty() ? "" : " " + i.column, severity(i), i.message);
    if (r.issue_count > static_cast<std::int64_t>(r.issues.size()))
      out += fmt::format("    ... and {} more\n",
                         r.issue_count - static_cast<std::int64_t>(r.issues.size()));
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
  t.title = sources.empty() ? "No sources loaded; add some with `aicost ledger ingest FILE`"
                            : "Loaded sources";
  t.header = {"id", "format", "rows", "rejected", "warnings", "loaded_at", "totals", "path"};
  t.right_align = {true, false, true, true, true, false, false, false};
  for (const auto& s : sources) {
    std::string totals;
    for (const auto& c : s.totals)
      totals += (totals.empty() ? "" : "; ") + c.currency + " " + money(c.billed, f);
    t.rows.push_back({std::to_string(s.id), s.file.format, std::to_string(s.rows),
                      std::to_string(s.rejected), std::to_string(s.warnings), s.loaded_at, totals,
                      s.file.path});
  }
  return render(t, f);
}

std::string render_validation(const std::string& path, const billing::Validation& v, Format f,
                              bool& failed) {
  std::int64_t errors = 0, warnings = 0;
  for (const auto& i : v.issues)
    if (i.severity != ledger::RowIssue::Severity::kNote)
      (i.severity == ledger::RowIssue::Severity::kError ? errors : warnings)++;
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
  t.title = fmt::format("{}: {}, {} rows, {} loadable, {} rejected; {} errors, {} warnings{}", path,
                        v.summary.version, v.summary.records, v.summary.loaded, v.summary.rejected,
                        errors, warnings, failed ? "" : " (conformant)");
  t.header = {v.summary.rows_numbered ? "row" : "line", "column", "severity", "finding"};
  t.right_align = {true, false, false, false};
  for (const auto& i : v.issues)
    t.rows.push_back({std::to_string(i.line), i.column, severity(i), i.message});
  if (t.rows.empty()) return t.title + "\n";
  return render(t, f);
}

}  // namespace aicost::report

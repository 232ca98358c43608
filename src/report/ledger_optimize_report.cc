#include "aicost/report/ledger_optimize_report.h"

#include <fmt/format.h>

#include "aicost/core/quantity.h"
#include "aicost/core/text.h"
#include "aicost/report/charts.h"
#include "aicost/report/html.h"
#include "aicost/report/table.h"
#include "json.h"
#include "optimize_parts.h"
#include "rounding.h"

namespace aicost::report {

namespace {

using optimize::LeverResult;
using optimize::LeverStatus;

bool ranked(const LeverResult& r) {
  return r.saving_usd && r.status != LeverStatus::kNoSaving && r.status != LeverStatus::kNotPriced;
}
std::string name(const LeverResult& r) { return r.subject.empty() ? r.id : r.id + " " + r.subject; }

std::string window_text(const optimize::LedgerBaseline& b) {
  return fmt::format("{}..{} ({} days)", ledger::day_text(b.from), ledger::day_text(b.to - 1),
                     b.to - b.from);
}

std::string render_json(const optimize::LedgerOptimizeResult& res, const std::string& ledger,
                        ledger::Day as_of) {
  const auto& b = res.baseline;
  const auto& c = res.combined;
  Json j;
  j["schema_version"] = 1;
  j["kind"] = "ledger";
  j["ledger"] = ledger;
  j["as_of"] = ledger::day_text(as_of);
  j["baseline"] = {{"currency", b.currency},
                   {"total_usd", cents(b.monthly)},
                   {"period", "month"},
                   {"from", ledger::day_text(b.from)},
                   {"to", ledger::day_text(b.to)}};
  j["guardrails"] = guardrails_json(res.guardrails);
  j["levers"] = Json::array();
  for (const auto& r : res.levers) j["levers"].push_back(lever_json(r));
  Json steps = Json::array();
  for (std::size_t i = 0; i < c.steps.size(); ++i)
    steps.push_back({{"id", c.steps[i].id},
                     {"lever", c.levers[i]},
                     {"total_usd", cents(c.steps[i].total_usd)},
                     {"saving_usd", cents(c.steps[i].saving_usd)}});
  Json change = Json::object();
  for (const auto& e : c.change) change[e.key] = e.value ? Json(*e.value) : Json();
  j["combined"] = {{"total_usd", cents(c.total_usd)},
                   {"saving_usd", cents(c.saving_usd)},
                   {"saving_pct", sig(b.monthly > 0 ? 100 * c.saving_usd / b.monthly : 0)},
                   {"sum_of_savings_usd", cents(c.sum_of_savings)},
                   {"risk", optimize::to_string(c.risk)},
                   {"levers", c.levers},
                   {"steps", steps},
                   {"change", change}};
  j["warnings"] = res.warnings;
  return json_text(j) + "\n";
}

std::string render_csv(const optimize::LedgerOptimizeResult& res) {
  Table t;
  t.header = {"record",     "id",        "subject",    "category",   "status",   "saving_usd",
              "saving_pct", "total_usd", "risk_level", "risk_kinds", "red_line", "change",
              "validation", "metric",    "stop_loss",  "why"};
  t.rows.push_back(
      {"baseline", "", "", "", "", "", "", fmt::format("{:.2f}", res.baseline.monthly)});
  for (const auto& r : res.levers) {
    std::string kinds;
    for (const auto& k : r.risk.kinds) kinds += (kinds.empty() ? "" : ";") + k;
    t.rows.push_back({"lever", r.id, r.subject, r.category, optimize::to_string(r.status),
                      r.saving_usd ? fmt::format("{:.2f}", *r.saving_usd) : "",
                      r.saving_pct ? fmt::format("{:.6g}", *r.saving_pct * 100) : "",
                      r.total_usd ? fmt::format("{:.2f}", *r.total_usd) : "",
                      ranked(r) ? optimize::to_string(r.risk.level) : "", kinds,
                      ranked(r) ? (r.red_line.ok ? "ok" : r.red_line.why) : "",
                      optimize::describe(r.change), r.rollout.validation, r.rollout.metric,
                      r.rollout.stop_loss, r.why});
  }
  const auto& c = res.combined;
  std::string ids;
  for (const auto& id : c.levers) ids += (ids.empty() ? "" : ";") + id;
  t.rows.push_back(
      {"combined", ids, "", "", "", fmt::format("{:.2f}", c.saving_usd),
       fmt::format("{:.6g}",
                   res.baseline.monthly > 0 ? 100 * c.saving_usd / res.baseline.monthly : 0),
       fmt::format("{:.2f}", c.total_usd), optimize::to_string(c.risk), "", "",
       optimize::describe(c.change)});
  return render(t, Format::kCsv);
}

std::string render_text(const optimize::LedgerOptimizeResult& res, const std::string& ledger,
                        ledger::Day as_of, Format f) {
  const bool md = f == Format::kMarkdown;
  const auto& b = res.baseline;
  const std::string cur = b.currency.empty() ? "USD" : b.currency;
  std::string out = fmt::format("{}aicost optimize: ledger {} as of {}\n", md ? "## " : "", ledger,
                                ledger::day_text(as_of));
  out +=
      fmt::format("{}baseline: {} {} a month ({:g} h), the effective cost of {}\n", md ? "\n" : "",
                  core::group_digits(b.monthly), cur, core::kHoursPerMonth, window_text(b));
  out += fmt::format("red lines ({}): max risk {}\n", res.guardrails.source,
                     optimize::to_string(res.guardrails.max_risk));
  // A table's warnings go to standard error (the command prints them); Markdown keeps them.
  if (md)
    for (const auto& w : res.warnings) out += "- warning: " + w + "\n";

  Table top;
  top.title = "Levers, by monthly saving";
  top.header = {"lever", "subject", "saving_" + cur, "saving", "risk", "red_line", "status"};
  top.right_align = {false, false, true, true, false, false, false};
  Table others;
  others.title = "Levers not applied";
  others.header = {"lever", "subject", "status", "why"};
  for (const auto& r : res.levers) {
    if (ranked(r)) {
      top.rows.push_back({r.id, r.subject, core::group_digits(*r.saving_usd),
                          fmt::format("{:.1f} %", 100 * *r.saving_pct), risk_text(r),
                          r.red_line.ok ? "ok" : "crossed", optimize::to_string(r.status)});
    } else {
      others.rows.push_back({r.id, r.subject, optimize::to_string(r.status), r.why});
    }
  }
  out += top.rows.empty() ? "\nNo lever saves money on this ledger.\n" : "\n" + render(top, f);
  out += md ? "\n### Changes, risks and rollout\n" : "\nChanges, risks and rollout\n";
  for (const auto& r : res.levers)
    if (ranked(r) || !r.notes.empty()) out += lever_details(r, name(r), md, ranked(r));
  if (!others.rows.empty()) out += "\n" + render(others, f);
  const auto& c = res.combined;
  out += md ? "\n### Together\n\n"
            : "\nTogether (the accepted levers; each acts on its own resources, so the savings add "
              "up)\n";
  if (c.levers.empty()) {
    out += "  no lever is accepted\n";
  } else {
    // The first ten by saving, then how many more (JSON lists them all).
    std::string ids;
    for (std::size_t i = 0; i < c.levers.size() && i < 10; ++i)
      ids += (i ? ", " : "") + c.levers[i];
    if (c.levers.size() > 10) ids += fmt::format(" and {} more", c.levers.size() - 10);
    out += fmt::format(
        "{}total {} {} a month (-{} {}, -{:.1f} %), risk up to {}: {}\n", md ? "" : "  ",
        core::group_digits(c.total_usd), cur, core::group_digits(c.saving_usd), cur,
        b.monthly > 0 ? 100 * c.saving_usd / b.monthly : 0, optimize::to_string(c.risk), ids);
  }
  return out;
}

}  // namespace

std::string render_ledger_optimize(const optimize::LedgerOptimizeResult& result,
                                   const std::string& ledger, ledger::Day as_of, Format format) {
  switch (format) {
    case Format::kJson: return render_json(result, ledger, as_of);
    case Format::kCsv: return render_csv(result);
    case Format::kHtml: {
      std::string numbers = render_text(result, ledger, as_of, Format::kTable);
      for (const auto& w : result.warnings) numbers += "warning: " + w + "\n";
      return html_page(
          "aicost optimize: ledger " + ledger,
          optimize_charts(result.levers, fmt::format("USD a month, {:g} h", core::kHoursPerMonth)),
          numbers);
    }
    default: return render_text(result, ledger, as_of, format);
  }
}

}  // namespace aicost::report

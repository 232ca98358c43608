#include "aicost/report/journal_report.h"

#include <fmt/format.h>

#include <cmath>

#include "aicost/report/table.h"
#include "json.h"

namespace aicost::report {
namespace {

using governance::ChangeResult;
using governance::Verdict;

// A value rounded to one decimal, without the "-0.0" of a small negative.
double tenth(double v) { return std::round(v * 10) / 10 + 0.0; }

std::string pct(double share) { return fmt::format("{:+.1f} %", tenth(share * 100)); }

std::string guardrail_words(const governance::GuardrailResult& g) {
  const std::string name = ledger::guardrail_name(g.guardrail.kind);
  const std::string limit = fmt::format("{:.0f} %", g.guardrail.limit * 100);
  if (!g.after) return name + " not measured (no data after the change)";
  if (g.guardrail.kind == ledger::GuardrailKind::kMaxUnitCostRise)
    return fmt::format("{} {} {} {}", name, pct(*g.after), g.crossed ? ">" : "<=", limit);
  return fmt::format("{} {:.0f} % {} {}", name, *g.after * 100, g.crossed ? "<" : ">=", limit);
}

// A unit cost with the decimals it needs.
std::string money(double v) { return fmt::format("{:.4f}", v); }

}  // namespace

std::string metric_words(governance::UnitMetric m) {
  switch (m) {
    case governance::UnitMetric::kPerMillionTokens: return "cost per 1M tokens";
    case governance::UnitMetric::kPerUsefulGpuHour: return "cost per useful GPU-hour";
    case governance::UnitMetric::kPerGpuHour: return "cost per GPU-hour";
    case governance::UnitMetric::kPerDay: return "cost per day";
  }
  return "?";
}

std::string verdict_text(const ChangeResult& c, const governance::ChangeOptions& o) {
  const std::string measured =
      c.effect ? fmt::format("{} {} (95 % CI {}…{})", pct(c.effect->effect), metric_words(c.metric),
                             pct(c.effect->lo), pct(c.effect->hi))
               : std::string();
  switch (c.verdict) {
    case Verdict::kKept: return "kept: " + measured;
    case Verdict::kNoEffect:
      return "no measurable effect: " + measured +
             (c.metric == governance::UnitMetric::kPerDay
                  ? "; no GPU-hours or tokens in scope, so the cost per day, "
                    "which moves with usage"
                  : "");
    case Verdict::kStopLoss: {
      std::string why;
      for (const auto& g : c.guardrails)
        if (g.crossed) why += (why.empty() ? "" : "; ") + guardrail_words(g);
      if (why.empty()) why = c.why + (measured.empty() ? "" : ": " + measured);
      return "stop-loss: roll back (" + why + ")";
    }
    case Verdict::kTooEarly:
      if (!c.why.empty()) return "too early: " + c.why;
      return fmt::format("too early: {} of {} days after", std::max(0, c.days_after),
                         o.window_days);
  }
  return "?";
}

std::string stop_loss_message(const governance::StopLossResult& s) {
  const auto& c = s.change;
  std::string text = verdict_text(c, {});
  const std::string prefix = "stop-loss: roll back (";
  if (text.rfind(prefix, 0) == 0)
    text = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  return fmt::format("stop-loss: roll back change {} ({} on {} since {}): {}", c.change.id,
                     c.change.lever, ledger::scope_text(c.change.scope),
                     ledger::day_text(c.change.day), text);
}

std::string render_changes(const std::vector<ChangeResult>& changes, ledger::Day as_of,
                           const governance::ChangeOptions& o, Format f) {
  if (f == Format::kJson) {
    Json list = Json::array();
    for (const auto& c : changes) {
      Json guardrails = Json::array();
      for (const auto& g : c.guardrails)
        guardrails.push_back({{"name", ledger::guardrail_name(g.guardrail.kind)},
                              {"limit", g.guardrail.limit},
                              {"before", g.before ? Json(*g.before) : Json(nullptr)},
                              {"after", g.after ? Json(*g.after) : Json(nullptr)},
                              {"crossed", g.crossed}});
      const auto opt = [&](auto get) { return c.effect ? Json(get(*c.effect)) : Json(nullptr); };
      list.push_back(
          {{"date", ledger::day_text(c.change.day)},
           {"scope", ledger::scope_text(c.change.scope)},
           {"lever", c.change.lever},
           {"note", c.change.note},
           {"metric", governance::unit_metric_name(c.metric)},
           {"currency", c.currency},
           {"before", opt([](const governance::Effect& e) { return e.before; })},
           {"after", opt([](const governance::Effect& e) { return e.after; })},
           {"effect_pct", opt([](const governance::Effect& e) { return e.effect * 100; })},
           {"ci_pct",
            c.effect ? Json::array({c.effect->lo * 100, c.effect->hi * 100}) : Json(nullptr)},
           {"days", {{"before", c.days_before}, {"after", c.days_after}}},
           {"verdict", governance::verdict_name(c.verdict)},
           {"verdict_text", verdict_text(c, o)},
           {"guardrails", guardrails}});
    }
    return json_text(Json{{"schema_version", 1},
                          {"as_of", ledger::day_text(as_of)},
                          {"window_days", o.window_days},
                          {"changes", list}}) +
           "\n";
  }
  Table t;
  t.title = changes.empty() ? "No changes recorded; record one with `aicost ledger change add "
                              "--date D --scope S --lever L`"
                            : fmt::format(
                                  "Changes as of {}: unit cost {} days before vs after each (Welch "
                                  "95 % CI over daily "
                                  "values)",
                                  ledger::day_text(as_of), o.window_days);
  t.header = {"date",       "scope",      "lever",       "metric",  "before", "after",
              "effect_pct", "ci_low_pct", "ci_high_pct", "verdict", "why"};
  t.right_align = {false, false, false, false, true, true, true, true, true, false, false};
  const bool people = f == Format::kTable || f == Format::kMarkdown;
  for (const auto& c : changes) {
    std::vector<std::string> row = {ledger::day_text(c.change.day),
                                    ledger::scope_text(c.change.scope), c.change.lever,
                                    governance::unit_metric_name(c.metric)};
    if (c.effect) {
      const auto num = [&](double v, int decimals) {
        return people ? fmt::format("{:.{}f}", decimals == 1 ? tenth(v) : v, decimals)
                      : fmt::format("{}", v);
      };
      row.push_back(people ? money(c.effect->before) : fmt::format("{}", c.effect->before));
      row.push_back(people ? money(c.effect->after) : fmt::format("{}", c.effect->after));
      row.push_back(num(c.effect->effect * 100, 1));
      row.push_back(num(c.effect->lo * 100, 1));
      row.push_back(num(c.effect->hi * 100, 1));
    } else {
      row.insert(row.end(), 5, "");
    }
    row.push_back(governance::verdict_name(c.verdict));
    row.push_back(verdict_text(c, o));
    t.rows.push_back(std::move(row));
  }
  return render(t, f);
}

}  // namespace aicost::report

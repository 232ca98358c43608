// `aicost ledger change add` and `aicost ledger changes`: the change journal, recorded in the
// ledger and measured on its bill and telemetry (docs/OPTIMIZE.md "Change journal").
#include <iostream>

#include <nlohmann/json.hpp>

#include "aicost/core/suggest.h"
#include "aicost/core/units.h"
#include "aicost/governance/journal.h"
#include "aicost/optimize/lever_names.h"
#include "aicost/report/journal_report.h"
#include "commands.h"

namespace aicost::app {
namespace {

struct ChangeOptions {
  std::string date, lever, note, as_of, window = "14d", guardrails_file;
  std::vector<std::string> scope, guardrails;
};

core::Result<ledger::Day> strict_day(const std::string& text, const char* option) {
  auto day = ledger::parse_day(text);
  if (!day) return day.error().with_context(option);
  return day;
}

core::Result<int> window_days(const std::string& text) {
  auto w = core::parse_duration(text);
  if (!w) return w.error().with_context("--window");
  const double days = w->value() / 86400;
  if (days < 2 || days != static_cast<double>(static_cast<int>(days)))
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "'" + text + "': a window is whole days, at least 2 (e.g. 14d)",
                            "--window");
  return static_cast<int>(days);
}

int run_add(const ChangeOptions& o, const LedgerDb& d, const GlobalOptions& g) {
  auto fmt = output_format(g);
  if (!fmt) return report_error(fmt.error(), g);
  ledger::Change c;
  auto day = strict_day(o.date, "--date");
  if (!day) return report_error(day.error(), g);
  c.day = *day;
  for (const auto& s : o.scope) {
    auto f = ledger::parse_scope(s);
    if (!f) return report_error(f.error(), g);
    c.scope.push_back(std::move(*f));
  }
  const auto levers = optimize::lever_names();
  if (std::find(levers.begin(), levers.end(), o.lever) == levers.end()) {
    std::string known;
    for (const auto& l : levers) known += (known.empty() ? "" : ", ") + l;
    return report_error(
        core::make_error(core::ErrorCode::kNotFound,
                         "unknown lever '" + o.lever + "'." + core::did_you_mean(o.lever, levers) +
                             " Known: " + known,
                         "--lever"),
        g);
  }
  c.lever = o.lever;
  c.note = o.note;
  for (const auto& s : o.guardrails) {
    auto gr = ledger::parse_guardrail(s);
    if (!gr) return report_error(gr.error().with_context("--guardrail"), g);
    c.guardrails.push_back(*gr);
  }
  auto store = open_ledger(d, store::OpenMode::kExisting);
  if (!store) return ledger_error(store.error(), d, g);
  auto id = (*store)->add_change(c);
  if (!id) return ledger_error(id.error(), d, g);
  if (*fmt == report::Format::kJson) {
    nlohmann::json gr = nlohmann::json::array();
    for (const auto& x : c.guardrails) gr.push_back(ledger::guardrail_text(x));
    std::cout << nlohmann::json{{"id", *id},
                                {"date", o.date},
                                {"scope", ledger::scope_text(c.scope)},
                                {"lever", c.lever},
                                {"note", c.note},
                                {"guardrails", gr}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "recorded change " << *id << ": " << c.lever << " on "
              << ledger::scope_text(c.scope) << " from " << o.date << "\n";
  }
  return 0;
}

int run_changes(const ChangeOptions& o, const LedgerDb& d, const GlobalOptions& g) {
  auto fmt = output_format(g);
  if (!fmt) return report_error(fmt.error(), g);
  governance::ChangeOptions co;
  auto day = o.as_of.empty() ? as_of_day("") : strict_day(o.as_of, "--as-of");
  if (!day) return report_error(day.error(), g);
  co.as_of = *day;
  auto w = window_days(o.window);
  if (!w) return report_error(w.error(), g);
  co.window_days = *w;
  auto limits = journal_guardrails(o.guardrails_file);
  if (!limits) return report_error(limits.error(), g);
  co.guardrails = std::move(*limits);
  auto store = open_ledger(d, store::OpenMode::kExisting);
  if (!store) return ledger_error(store.error(), d, g);
  auto r = governance::evaluate_changes(**store, co);
  if (!r) return ledger_error(r.error(), d, g);
  std::cout << report::render_changes(*r, co.as_of, co, *fmt);
  return 0;
}

}  // namespace

void setup_ledger_changes(CLI::App& ledger, const GlobalOptions& g, const LedgerDb& d,
                          const std::function<void(CLI::App*, std::function<int()>)>& on) {
  auto o = std::make_shared<ChangeOptions>();
  auto* change = ledger.add_subcommand(
      "change", "the change journal: record what was changed, where and when");
  change->require_subcommand(1);
  change->fallthrough();
  auto* add = change->add_subcommand(
      "add", "record a change (kept in the ledger; `aicost ledger changes` measures it)");
  add->add_option("--date", o->date, "the first day the change was in effect, YYYY-MM-DD")
      ->required();
  add->add_option(
      "--scope", o->scope,
      "where, as a report filter DIMENSION=VALUE (tag:run=r3, service=..., region=...); repeatable "
      "(one dimension OR, different ones AND); none: the whole ledger");
  add->add_option("--lever", o->lever,
                  "what: a lever id of `aicost optimize` (precision-fp8, commitment, ...)")
      ->required();
  add->add_option("--note", o->note, "free text");
  add->add_option("--guardrail", o->guardrails,
                  "a limit that calls for a roll-back: max_cost_rise=5% (the unit cost), "
                  "min_gpu_activity=40% (mean "
                  "SM activity after the change); repeatable");
  add->footer(
      "Example: aicost ledger change add --date 2025-04-14 --scope tag:run=r3 --lever "
      "precision-fp8 "
      "--guardrail min_gpu_activity=40%");
  on(add, [o, &g, &d] { return run_add(*o, d, g); });

  auto* list = ledger.add_subcommand(
      "changes",
      "each recorded change measured: unit cost before vs after, effect with 95 % CI, verdict");
  list->add_option(
      "--as-of", o->as_of,
      "measure as of this day, YYYY-MM-DD: days before it count (default: today, UTC)");
  list->add_option("--window", o->window, "days on each side of a change, e.g. 14d")
      ->capture_default_str();
  list->add_option("--guardrails", o->guardrails_file,
                   "a guardrails file (YAML, as `aicost optimize` reads): its max_cost_rise and "
                   "min_gpu_activity hold "
                   "for every change besides its own (a change's own limit of the same kind wins)");
  list->footer(
      "Verdicts: kept (the interval lies below 0), no_effect (it holds 0), stop_loss (a guardrail "
      "crossed, "
      "or the unit cost rose beyond doubt), too_early (the window after is not over).\n"
      "Example: aicost ledger changes --db examples/journal/journal.db --as-of 2025-05-19");
  on(list, [o, &g, &d] { return run_changes(*o, d, g); });
}

}  // namespace aicost::app

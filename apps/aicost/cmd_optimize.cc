#include <iostream>

#include "aicost/config/guardrails.h"
#include "aicost/optimize/ledger_levers.h"
#include "aicost/optimize/optimize.h"
#include "aicost/report/ledger_optimize_report.h"
#include "aicost/store/open.h"
#include "commands.h"

namespace aicost::app {

namespace {

struct OptimizeArgs {
  std::string plan;
  std::string guardrails;
  std::string emit;
  int threads = 0;
  std::string db, as_of;  // --db: levers from the ledger instead of a plan
  int window_days = 60;
};

// `aicost optimize --db LEDGER`: levers from what was spent (docs/OPTIMIZE.md "Ledger").
int optimize_ledger(const OptimizeArgs& a, const optimize::Guardrails& guardrails,
                    const catalog::Catalog& cat, report::Format fmt, const GlobalOptions& g) {
  if (!a.plan.empty() || !a.emit.empty()) {
    return report_error(
        core::make_error(
            core::ErrorCode::kInvalidInput,
            "give either a plan file or --db LEDGER, not both (--emit-plan needs a plan)",
            "optimize"),
        g);
  }
  auto day = as_of_day(a.as_of);
  if (!day) return report_error(day.error(), g);
  if (a.window_days < 7) {
    return report_error(
        core::make_error(core::ErrorCode::kInvalidInput, "--window must be at least 7 days",
                         "--window " + std::to_string(a.window_days)),
        g);
  }
  LedgerDb d;
  d.db = a.db;
  auto store = open_ledger(d, store::OpenMode::kExisting);
  if (!store) return ledger_error(store.error(), d, g);
  optimize::LedgerOptions o;
  o.as_of = *day;
  o.window_days = a.window_days;
  o.guardrails = guardrails;
  auto res = optimize::optimize_ledger(**store, cat, o);
  if (!res) return ledger_error(res.error().with_context("--db " + store::redact(a.db)), d, g);
  std::cout << report::render_ledger_optimize(*res, store::redact(a.db), *day, fmt);
  print_warnings(res->warnings, fmt);
  return 0;
}

}  // namespace

Command optimize_command() {
  return {"optimize",
          "what to change in a training or serving plan, what it saves and risks, within red lines",
          [](CLI::App& sub, const GlobalOptions& g) -> std::function<int()> {
            auto a = std::make_shared<OptimizeArgs>();
            sub.add_option("plan", a->plan, "training or serving plan file (YAML); or --db");
            sub.add_option("--db", a->db,
                           "a ledger (SQLite file or PostgreSQL URL): levers from what was spent, "
                           "commitments and idle schedules (docs/OPTIMIZE.md \"Ledger\")");
            sub.add_option(
                "--as-of", a->as_of,
                "with --db: spend and telemetry before this day, YYYY-MM-DD (default: today, UTC)");
            sub.add_option("--window", a->window_days,
                           "with --db: days of usage a commitment is sized from (default 60)");
            sub.add_option("--guardrails", a->guardrails,
                           "red lines (YAML): min_retention, max_recovery_time, min_mfu, max_risk, "
                           "capacity_buffer, max_over_sla (docs/OPTIMIZE.md); default: risk up to "
                           "medium, no cut in security spend, 10 % capacity buffer");
            sub.add_option("--emit-plan", a->emit,
                           "write the combined plan as a plan file for `aicost estimate`");
            sub.add_option("--threads", a->threads,
                           "worker threads of the layout searches (default: all cores)");
            sub.footer(
                "Example: aicost optimize examples/gpt3-175b-a100.yaml --guardrails "
                "examples/guardrails.yaml --emit-plan gpt3-optimized.yaml\n"
                "         aicost optimize --db fleet.db --as-of 2025-05-19 (after aicost ledger "
                "ingest --db fleet.db "
                "examples/optimize-ledger/*.csv examples/optimize-ledger/*.prom)");
            return [a, &g] {
              auto fmt = output_format(g);
              if (!fmt) return report_error(fmt.error(), g);
              auto cat = load_catalog(g);
              if (!cat) return report_error(cat.error(), g);
              std::optional<api::PlanSource> guardrails;
              if (!a->guardrails.empty()) {
                auto gr = api::plan_file(a->guardrails);
                if (!gr) return report_error(gr.error(), g);
                if (auto parsed = config::parse_guardrails(gr->text, gr->origin); !parsed) {
                  return report_error(parsed.error(), g);
                } else if (!a->db.empty()) {
                  return optimize_ledger(*a, *parsed, *cat, *fmt, g);
                }
                guardrails = std::move(*gr);
              }
              if (!a->db.empty()) return optimize_ledger(*a, optimize::Guardrails{}, *cat, *fmt, g);
              if (a->plan.empty()) {
                return report_error(
                    core::make_error(core::ErrorCode::kInvalidInput,
                                     "name a plan file, or a ledger with --db", "optimize"),
                    g);
              }
              auto src = api::plan_file(a->plan);
              if (!src) return report_error(src.error(), g);
              api::OptimizeOptions o;
              o.guardrails = guardrails;
              o.emit_plan = a->emit;
              o.threads = a->threads;
              return print_output(api::optimize(*src, *cat, *fmt, o), *fmt, g);
            };
          }};
}

}  // namespace aicost::app

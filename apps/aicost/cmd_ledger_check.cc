// `aicost ledger check`: budgets, forecasts and anomalies against the ledger; alerts printed, sent
// to a webhook and remembered in the ledger so each goes out once (docs/GOVERNANCE.md).
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>

#include "aicost/core/text.h"
#include "aicost/config/budgets.h"
#include "aicost/notify/webhook.h"
#include "aicost/report/governance_report.h"
#include "aicost/report/journal_report.h"
#include "aicost/store/open.h"
#include "commands.h"

namespace aicost::app {
namespace {

struct CheckOptions {
  std::string budgets, as_of, webhook, prometheus, guardrails;
  int webhook_attempts = 4;
  double webhook_timeout_s = 5;
  double webhook_max_retry_after_s = 60;
  bool dry_run = false;
  bool strict = false;
  int stale_after_days = 3;
};


}  // namespace

core::Result<ledger::Day> as_of_day(const std::string& text) {
  if (text.empty()) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<ledger::Day>(std::chrono::duration_cast<std::chrono::days>(now).count());
  }
  int y = 0;
  unsigned m = 0, d = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%4d-%2u-%2u%c", &y, &m, &d, &tail) != 3 || m < 1 || m > 12 || d < 1 || d > 31)
    return core::make_error(core::ErrorCode::kInvalidInput, "'" + text + "' is not a date; write YYYY-MM-DD", "--as-of");
  return ledger::days_from_civil(y, m, d);
}

namespace {

// Who claims the alerts of this run: the host, the process and the moment it claims.
std::string claim_owner() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + std::to_string(ns.count());
}

// Records what the webhook took (settling the claims). A check that cannot record it leaves its
// claims to lapse at `lapse`: until then no check sends those alerts again, after that one does.
core::Status record_delivered(ledger::Store& store, const std::vector<ledger::SentAlert>& sent,
                              std::chrono::system_clock::time_point lapse) {
  auto s = store.record_sent(sent);
  if (s) return s;
  const auto t = std::chrono::system_clock::to_time_t(lapse);
  char when[32] = {};
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return core::make_error(s.error().code,
                          s.error().message + "; the webhook took the alerts but they are not recorded: no check "
                                              "sends them again before " + when +
                              ", the first check after that does (receivers can drop repeats by their \"key\")",
                          s.error().context);
}

// Sends what is new to the webhook and records it, each notice by exactly one of the checks that
// run at once: its key is claimed in the ledger first, only what this check won is sent, and the
// claims are released when the webhook does not take them (docs/GOVERNANCE.md). Without a webhook
// the notices are only recorded.
core::Status send_new(ledger::Store& store, const governance::CheckResult& r, const CheckOptions& o) {
  struct Notice {
    std::string key;                  // claimed, and the payload's "key"
    std::vector<std::string> covers;  // recorded once it is sent
    std::string message;
  };
  std::vector<Notice> news;
  for (const auto& b : r.budgets)
    for (const auto& a : b.due) news.push_back({a.key(), a.covers, a.message()});
  for (const auto& a : r.anomalies)
    if (!a.sent_before) news.push_back({a.key(), {a.key()}, a.message()});
  for (const auto& w : r.waste)
    if (!w.sent_before) news.push_back({w.key(), {w.key()}, w.finding.message});
  for (const auto& sl : r.stop_losses)
    if (!sl.sent_before) news.push_back({sl.key(), {sl.key()}, report::stop_loss_message(sl)});
  if (news.empty()) return {};
  const auto sent_of = [&](const std::set<std::string>& keys) {
    std::vector<ledger::SentAlert> out;
    for (const auto& n : news)
      if (keys.count(n.key))
        for (const auto& key : n.covers) out.push_back({key, core::utc_now_iso(), n.message});
    return out;
  };
  std::set<std::string> keys;
  for (const auto& n : news) keys.insert(n.key);
  if (o.webhook.empty()) return store.record_sent(sent_of(keys));

  notify::WebhookOptions w;
  w.attempts = std::max(1, o.webhook_attempts);
  w.timeout = std::chrono::milliseconds(static_cast<long>(std::max(0.001, o.webhook_timeout_s) * 1000));
  w.max_retry_after = std::chrono::milliseconds(static_cast<long>(std::max(0.0, o.webhook_max_retry_after_s) * 1000));
  if (const char* token = std::getenv("AICOST_WEBHOOK_AUTHORIZATION")) w.headers.push_back({"Authorization", token});
  if (auto u = notify::parse_url(o.webhook); !u) return u.error().with_context("--webhook");
  // The claims outlast the longest delivery, with time to record it after.
  ledger::AlertClaim claim{claim_owner(), std::chrono::system_clock::now(),
                           std::chrono::duration_cast<std::chrono::seconds>(notify::delivery_bound(w)) +
                               std::chrono::minutes(5)};
  const std::vector<std::string> wanted(keys.begin(), keys.end());
  auto won = store.claim_alerts(wanted, claim);
  if (!won) return won.error();
  if (won->empty()) return {};  // another check is sending them
  const std::set<std::string> mine(won->begin(), won->end());
  auto d = notify::post_json(o.webhook, report::check_payload(r, mine), w);
  if (!d || !d->delivered) {
    (void)store.release_alerts(*won, claim.owner);  // else they lapse with the lease
    if (!d) return d.error().with_context("--webhook");
    return core::make_error(core::ErrorCode::kIo,
                            "the webhook did not take the alerts after " + std::to_string(d->attempts) +
                                " attempts: " + d->error + "; they stay due for the next check",
                            "--webhook");
  }
  return record_delivered(store, sent_of(mine), claim.now + claim.lease);
}

int run_check(const CheckOptions& o, const LedgerDb& d, const GlobalOptions& g) {
  auto fmt = output_format(g);
  if (!fmt) return report_error(fmt.error(), g);
  auto file = config::load_budgets(o.budgets);
  if (!file) return report_error(file.error(), g);
  auto day = as_of_day(o.as_of);
  if (!day) return report_error(day.error(), g);
  file->options.as_of = *day;
  file->options.strict = o.strict;
  file->options.stale_after_days = o.stale_after_days;
  auto limits = journal_guardrails(o.guardrails);
  if (!limits) return report_error(limits.error(), g);
  file->options.change_guardrails = std::move(*limits);
  auto store = open_ledger(d, store::OpenMode::kExisting);
  if (!store) return ledger_error(store.error(), d, g);
  auto sent = (*store)->sent_alerts();
  if (!sent) return ledger_error(sent.error(), d, g);
  std::set<std::string> fired;
  for (const auto& s : *sent) fired.insert(s.key);
  auto result = governance::run_check(**store, file->budgets, file->options, fired);
  if (!result) return ledger_error(result.error(), d, g);
  // With `--prometheus -` standard output is the metrics alone, so a collector can read it as it
  // is; the report goes to standard error.
  std::ostream& report_out = o.prometheus == "-" ? std::cerr : std::cout;
  report_out << report::render_check(*result, *fmt);
  // JSON carries the warnings; every other form prints them on standard error after the report.
  report_out.flush();
  if (*fmt != report::Format::kJson)
    for (const auto& w : result->warnings) std::cerr << "warning: " << w << "\n";

  if (!o.prometheus.empty()) {
    const std::string text = report::render_prometheus(*result);
    if (o.prometheus == "-") {
      std::cout << text;
    } else {
      // Written beside and renamed, so a collector never reads half a file.
      const std::string tmp = o.prometheus + ".tmp";
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << text;
      out.close();
      if (!out || std::rename(tmp.c_str(), o.prometheus.c_str()) != 0)
        return report_error(core::make_error(core::ErrorCode::kIo, "could not write the metrics", o.prometheus), g);
    }
  }

  const int status = result->gate_failed ? 3 : 0;
  if (o.dry_run) return status;
  if (auto s = send_new(**store, *result, o); !s) return ledger_error(s.error(), d, g);
  return status;
}

}  // namespace

std::function<int()> setup_ledger_check(CLI::App* check, const GlobalOptions& g, const LedgerDb& d) {
  auto o = std::make_shared<CheckOptions>();
  check->add_option("--budgets", o->budgets, "the budget file (YAML, docs/GOVERNANCE.md)")->required();
  check->add_option("--as-of", o->as_of, "check as of this day, YYYY-MM-DD: spend before it counts (default: today, UTC)");
  check->add_option("--webhook", o->webhook, "POST new alerts as JSON here (http:// or https://; $AICOST_WEBHOOK_AUTHORIZATION is sent as Authorization)");
  check->add_option("--webhook-attempts", o->webhook_attempts, "tries before giving up (backoff 0.5 s, doubling)")->capture_default_str();
  check->add_option("--webhook-timeout", o->webhook_timeout_s, "seconds per attempt")->capture_default_str();
  check->add_option("--webhook-max-retry-after", o->webhook_max_retry_after_s,
                    "seconds: a Retry-After up to this is honoured as asked; a webhook that asks for longer is "
                    "left to the next check (a check run by cron should end in minutes)")
      ->capture_default_str();
  check->add_option("--prometheus", o->prometheus, "write budget burn, forecast and anomaly gauges in Prometheus text format to this file ('-': standard output, which then holds the metrics alone; the report goes to standard error)");
  check->add_option("--guardrails", o->guardrails,
                    "a guardrails file (YAML, as `aicost optimize` reads): its max_cost_rise and min_gpu_activity "
                    "hold for every change of the journal besides its own, for the stop-loss");
  check->add_flag("--dry-run", o->dry_run, "print, send nothing, remember nothing");
  check->add_option("--stale-after", o->stale_after_days,
                    "warn when the newest charge is this many days or more older than the day before --as-of")
      ->capture_default_str()
      ->check(CLI::Range(1, 3650));
  check->add_flag("--strict", o->strict,
                  "stale or missing data (no charges, the newest too old, a budget with none in its period) fails "
                  "the gate too (exit 3)");
  check->footer("Exit status: 0 ok, 3 a budget is at a gating level (red or breached, on actual or forecast spend), a "
                "change of the journal is at stop-loss (`aicost ledger changes`), or, "
                "under --strict, the data is stale or missing; "
                "1 or 2 an error.\nExample: aicost ledger check --budgets examples/governance/budgets.yaml --as-of 2025-06-28");
  return [o, &g, &d] { return run_check(*o, d, g); };
}

}  // namespace aicost::app

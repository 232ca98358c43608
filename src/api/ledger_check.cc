// `aicost ledger check`: budgets, forecasts and anomalies against the ledger; alerts sent to a
// webhook and remembered in the ledger so each goes out once (docs/GOVERNANCE.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>
#include <set>

#include "aicost/api/ledger.h"
#include "aicost/config/budgets.h"
#include "aicost/config/guardrails.h"
#include "aicost/core/text.h"
#include "aicost/notify/webhook.h"
#include "aicost/report/governance_report.h"
#include "aicost/report/journal_report.h"

namespace aicost::api {
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
  return core::make_error(
      s.error().code,
      s.error().message +
          "; the webhook took the alerts but they are not recorded: no check "
          "sends them again before " +
          when + ", the first check after that does (receivers can drop repeats by their \"key\")",
      s.error().context);
}

// Sends what is new to the webhook and records it, each notice by exactly one of the checks that
// run at once: its key is claimed in the ledger first, only what this check won is sent, and the
// claims are released when the webhook does not take them (docs/GOVERNANCE.md). Without a webhook
// the notices are only recorded.
core::Status send_new(ledger::Store& store, const governance::CheckResult& r,
                      const LedgerCheckOptions& o) {
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
  w.timeout =
      std::chrono::milliseconds(static_cast<long>(std::max(0.001, o.webhook_timeout_s) * 1000));
  w.max_retry_after = std::chrono::milliseconds(
      static_cast<long>(std::max(0.0, o.webhook_max_retry_after_s) * 1000));
  if (const char* token = std::getenv("AICOST_WEBHOOK_AUTHORIZATION"))
    w.headers.push_back({"Authorization", token});
  if (auto u = notify::parse_url(o.webhook); !u) return u.error().with_context("--webhook");
  // The claims outlast the longest delivery, with time to record it after.
  ledger::AlertClaim claim{
      claim_owner(), std::chrono::system_clock::now(),
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
                            "the webhook did not take the alerts after " +
                                std::to_string(d->attempts) + " attempts: " + d->error +
                                "; they stay due for the next check",
                            "--webhook");
  }
  return record_delivered(store, sent_of(mine), claim.now + claim.lease);
}

}  // namespace

core::Result<config::BudgetFile> check_budgets(const LedgerCheckOptions& o) {
  auto file = config::load_budgets(o.budgets);
  if (!file) return file.error();
  auto day = as_of_day(o.as_of);
  if (!day) return day.error();
  file->options.as_of = *day;
  file->options.strict = o.strict;
  file->options.stale_after_days = o.stale_after_days;
  auto limits = journal_guardrails(o.guardrails);
  if (!limits) return limits.error();
  file->options.change_guardrails = std::move(*limits);
  return file;
}

core::Result<std::vector<ledger::Guardrail>> journal_guardrails(const std::string& path) {
  std::vector<ledger::Guardrail> out;
  if (path.empty()) return out;
  auto file = config::load_guardrails(path);
  if (!file) return file.error().with_context("--guardrails");
  if (file->max_cost_rise)
    out.push_back({ledger::GuardrailKind::kMaxUnitCostRise, *file->max_cost_rise});
  if (file->min_gpu_activity)
    out.push_back({ledger::GuardrailKind::kMinGpuActivity, *file->min_gpu_activity});
  return out;
}

core::Result<governance::CheckResult> read_check(ledger::Store& store,
                                                 const config::BudgetFile& file) {
  auto sent = store.sent_alerts();
  if (!sent) return sent.error();
  std::set<std::string> fired;
  for (const auto& s : *sent) fired.insert(s.key);
  return governance::run_check(store, file.budgets, file.options, fired);
}

core::Result<LedgerCheckOutput> ledger_check(const LedgerDb& d, const LedgerCheckOptions& o,
                                             report::Format fmt) {
  auto file = check_budgets(o);
  if (!file) return file.error();
  auto store = open_ledger(d, store::OpenMode::kExisting);
  if (!store) return scrub_error(store.error(), d.db);
  auto result = read_check(**store, *file);
  if (!result) return scrub_error(result.error(), d.db);
  LedgerCheckOutput out;
  std::optional<governance::CheckResult> cut, page;
  if (o.limit > 0) cut = report::largest_waste(*result, o.limit);
  const governance::CheckResult& shown = cut ? *cut : *result;
  if (fmt == report::Format::kHtml && o.limit == 0 && o.html_limit > 0)
    page = report::largest_waste(*result, o.html_limit);
  const governance::CheckResult& listed = page ? *page : shown;
  out.text = report::render_check(listed, fmt);
  // JSON carries the warnings.
  if (fmt != report::Format::kJson) out.warnings = listed.warnings;
  out.status = result->gate_failed ? 3 : 0;

  if (!o.prometheus.empty()) {
    std::string text = report::render_prometheus(shown);
    if (o.prometheus == "-") {
      out.metrics = std::move(text);
    } else {
      // Written beside and renamed, so a collector never reads half a file.
      const std::string tmp = o.prometheus + ".tmp";
      std::ofstream file_out(tmp, std::ios::binary | std::ios::trunc);
      file_out << text;
      file_out.close();
      if (!file_out || std::rename(tmp.c_str(), o.prometheus.c_str()) != 0) {
        out.error_after =
            core::make_error(core::ErrorCode::kIo, "could not write the metrics", o.prometheus);
        return out;
      }
    }
  }
  if (o.dry_run) return out;
  if (auto s = send_new(**store, *result, o); !s) out.error_after = scrub_error(s.error(), d.db);
  return out;
}

}  // namespace aicost::api

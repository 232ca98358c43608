// What names a check's findings (check.h): the key run_check looks up in `fired`, so that an alert
// is sent once, and an anomaly's one-line message.
#include <cstdio>
#include <string>

#include "aicost/governance/check.h"
#include "aicost/ledger/change.h"
#include "aicost/ledger/charge.h"

namespace aicost::governance {

std::string AnomalyResult::key() const {
  return "anomaly|" + scope + "|" + currency + "|" + ledger::day_text(episode.first_day);
}

std::string WasteResult::key() const {
  return std::string("waste|") + waste_kind_name(finding.kind) + "|" + finding.subject + "|" +
         finding.currency;
}

std::string StopLossResult::key() const {
  std::string crossed;
  for (const auto& g : change.guardrails)
    if (g.crossed)
      crossed += (crossed.empty() ? "" : ",") + ledger::guardrail_name(g.guardrail.kind);
  return "stop_loss|" + std::to_string(change.change.id) + "|" +
         (crossed.empty() ? "cost" : crossed);
}

std::string AnomalyResult::message() const {
  char text[160];
  std::snprintf(text, sizeof text, "%s %.2f %s (%+.0f%%) against %.2f expected",
                episode.increase ? "spend" : "drop to", episode.actual, currency.c_str(),
                episode.expected != 0 ? 100.0 * episode.impact / episode.expected : 0.0,
                episode.expected);
  std::string m =
      "anomaly in '" + scope + "' " + ledger::day_text(episode.first_day) +
      (episode.last_day != episode.first_day ? ".." + ledger::day_text(episode.last_day) : "") +
      ": " + text;
  if (!causes.empty()) {
    char cause[96];
    std::snprintf(cause, sizeof cause, " %+.2f", causes.front().delta);
    m += "; most of it: " + causes.front().value + cause;
  }
  return m;
}

}  // namespace aicost::governance

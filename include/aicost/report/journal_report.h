// The change journal measured (`aicost ledger changes`): one line per change, with its metric,
// effect, 95 % interval, guardrails and verdict in words; JSON as docs/JSON_OUTPUT.md gives it
// ({"schema_version", "as_of", "changes": [...]}). Also the words a stop-loss alert says.
#pragma once

#include <string>
#include <vector>

#include "aicost/governance/check.h"
#include "aicost/governance/journal.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_changes(const std::vector<governance::ChangeResult>& changes, ledger::Day as_of,
                           const governance::ChangeOptions& o, Format f);
// "kept: -20.1 % cost per GPU-hour (95 % CI -23.0…-17.2 %)", "no measurable effect (...)",
// "stop-loss: roll back (min_gpu_activity 31 % < 40 %)", "too early: 5 of 14 days after".
std::string verdict_text(const governance::ChangeResult& c, const governance::ChangeOptions& o);
// What a stop-loss alert says: "stop-loss: roll back change 3 (precision-fp8 on tag:run=r3 since
// 2025-04-14): min_gpu_activity 31 % < 40 %".
std::string stop_loss_message(const governance::StopLossResult& s);
// "cost per 1M tokens", "cost per useful GPU-hour", ...
std::string metric_words(governance::UnitMetric m);

}  // namespace aicost::report

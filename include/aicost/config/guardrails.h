// The red lines of `aicost optimize --guardrails G.yaml` (docs/OPTIMIZE.md "Red lines"):
//
//   min_retention: {logs: 5y, checkpoints: 12h}   # per data kind, a duration
//   max_recovery_time: 2h     # expected lost work + restart per interrupt
//   min_mfu: 35%              # against the GPU's BF16 dense peak
//   security_floor: true      # never cut security or audit spend (cannot be turned off)
//   max_risk: medium          # low | medium | high
//   capacity_buffer: 10%      # serving (stored; used from the serving milestone)
//   max_cost_rise: 5%         # the change journal: every change's unit cost may rise at most this
//   min_gpu_activity: 40%     # the change journal: mean SM activity after every change at least
//   this
//
// Every key is optional; absent ones keep optimize::Guardrails' defaults. Errors name
// file:line:col with a caret: unknown keys and data kinds with a "did you mean", numbers without
// their unit, values out of range.
#pragma once

#include <string>

#include "aicost/core/result.h"
#include "aicost/optimize/guardrails.h"

namespace aicost::config {

core::Result<optimize::Guardrails> parse_guardrails(const std::string& text,
                                                    const std::string& origin);
core::Result<optimize::Guardrails> load_guardrails(const std::string& path);

}  // namespace aicost::config

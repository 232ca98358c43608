// Red lines a change may not cross to save money (docs/OPTIMIZE.md "Red lines"): data kept at
// least so long, recovery no slower than a limit, efficiency no lower than a floor, no cut in
// security or audit spend, no lever riskier than allowed; for serving, the capacity buffer and
// the share of requests over the SLA. Read from `--guardrails G.yaml`
// by config::load_guardrails; without a file the defaults below hold.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "aicost/core/quantity.h"

namespace aicost::optimize {

enum class RiskLevel { kLow, kMedium, kHigh };
const char* to_string(RiskLevel level);  // "low", "medium", "high"
std::optional<RiskLevel> risk_level_from_string(const std::string& name);

// The data kinds a plan keeps and a minimum retention can be set for.
inline constexpr const char* kRetentionKinds[] = {"logs", "checkpoints"};

struct Guardrails {
  // Minimum time each kind of data is kept: "logs" (storage.log_retention) and "checkpoints"
  // (the span the retained checkpoints cover: checkpoints_retained x checkpoint interval).
  std::map<std::string, core::Seconds> min_retention;
  // Longest expected recovery per interrupt: lost work (back to the last checkpoint) + restart.
  std::optional<core::Seconds> max_recovery;
  // Lowest acceptable model FLOP utilisation, measured against the GPU's BF16 dense peak so that
  // a precision change does not move the yardstick.
  std::optional<double> min_mfu;
  // Never propose a change that lowers the plan's security spend (scanning, audit, keys).
  bool security_floor = true;
  // Training: the most of a step the GPUs may wait for data from the dataset's storage tier (a
  // cheap, slow tier stretches every step). nullopt: no change may add a wait (a limit of 0).
  std::optional<double> max_data_stall;
  double data_stall_limit() const { return max_data_stall.value_or(0.0); }
  // Levers riskier than this are rejected.
  RiskLevel max_risk = RiskLevel::kMedium;
  // Serving: spare capacity kept above the load the fleet is sized for (10-20 % for bursts;
  // serving::capacity_buffer measures it).
  double capacity_buffer = 0.10;
  // Serving: the most requests that may go over the SLA for want of ready replicas, across the
  // traffic profile (scaling lags, spot reclaims). nullopt: a tenth of what the plan's SLA
  // percentile lets miss anyway (P90: 1 %).
  std::optional<double> max_over_sla;
  // The change journal (`aicost ledger changes --guardrails`, `ledger check --guardrails`): limits
  // every recorded change is held to, besides those it was recorded with (a change's own limit of
  // the same kind wins). A fraction: 0.05 for 5 %. `aicost optimize` does not read them.
  std::optional<double> max_cost_rise;  // the measured unit cost may rise at most this much
  std::optional<double>
      min_gpu_activity;             // the mean SM activity after a change at least this (0..1)
  std::string source = "defaults";  // the file, or "defaults"
};

}  // namespace aicost::optimize

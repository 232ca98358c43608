// The change journal (`aicost ledger change add`, docs/OPTIMIZE.md "Change journal"): what was
// changed, where and when, kept with the ledger (table `changes`, schema 7) so that `aicost ledger
// changes` can measure it on the bill and `ledger check` can call a stop-loss.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"
#include "aicost/ledger/query.h"

namespace aicost::ledger {

// A limit the change must not cross; crossing it calls for a roll-back (a stop-loss).
enum class GuardrailKind {
  kMaxUnitCostRise,  // "max_cost_rise=5%": the measured unit cost may rise at most this much
  kMinGpuActivity,   // "min_gpu_activity=40%": mean SM activity after the change at least this
};

struct Guardrail {
  GuardrailKind kind = GuardrailKind::kMaxUnitCostRise;
  double limit = 0;  // a fraction: 0.05 for 5 %
  friend bool operator==(const Guardrail&, const Guardrail&) = default;
};

// "max_cost_rise=5%" or "min_gpu_activity=40%" (a percentage, or a fraction 0..1 for the activity);
// an unknown name gets "did you mean".
core::Result<Guardrail> parse_guardrail(std::string_view text);
std::string guardrail_name(GuardrailKind k);  // "max_cost_rise", "min_gpu_activity"
std::string guardrail_text(
    const Guardrail& g);  // the inverse of parse_guardrail: "max_cost_rise=5%"

// A scope term is a report filter, DIMENSION=VALUE ("tag:run=r3", "service=Amazon EC2",
// "region=us-east-1"); dimensions as parse_group_key reads them, with "did you mean". Several
// terms combine as report filters do (one dimension OR, different ones AND).
core::Result<Filter> parse_scope(std::string_view text);
std::string scope_text(const Filter& f);                   // "tag:run=r3"
std::string scope_text(const std::vector<Filter>& scope);  // terms joined by ", "; "all" when none

struct Change {
  std::int64_t id = 0;        // the store's, from 1 in the order recorded; 0 before it is stored
  Day day = 0;                // the first day the change was in effect
  std::vector<Filter> scope;  // where (empty: the whole ledger)
  std::string lever;  // what: a lever id of `aicost optimize` ("precision-fp8", "commitment")
  std::string note;
  std::vector<Guardrail> guardrails;
  std::string added_at;  // ISO 8601 UTC, when it was recorded
};

}  // namespace aicost::ledger

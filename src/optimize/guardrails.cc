#include "aicost/optimize/guardrails.h"

namespace aicost::optimize {

const char* to_string(RiskLevel level) {
  switch (level) {
    case RiskLevel::kLow: return "low";
    case RiskLevel::kMedium: return "medium";
    case RiskLevel::kHigh: return "high";
  }
  return "?";
}

std::optional<RiskLevel> risk_level_from_string(const std::string& name) {
  for (RiskLevel l : {RiskLevel::kLow, RiskLevel::kMedium, RiskLevel::kHigh}) {
    if (name == to_string(l)) return l;
  }
  return std::nullopt;
}

}  // namespace aicost::optimize

#include "aicost/optimize/change.h"

#include <algorithm>

#include "aicost/optimize/guardrails.h"

namespace aicost::optimize {

Change merge(const Change& first, const Change& then) {
  Change out = first;
  for (const Edit& e : then) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Edit& o) { return o.key == e.key; });
    if (it == out.end()) {
      out.push_back(e);
    } else {
      it->value = e.value;
    }
  }
  return out;
}

std::string describe(const Change& change) {
  std::string out;
  for (const Edit& e : change) {
    if (!out.empty()) out += "; ";
    out += e.key + ": " + (e.value ? *e.value : "(removed)");
  }
  return out;
}

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

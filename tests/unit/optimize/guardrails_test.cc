#include "aicost/optimize/guardrails.h"

#include <gtest/gtest.h>

namespace aicost::optimize {
namespace {

TEST(RiskLevel, NamesRoundTrip) {
  for (RiskLevel l : {RiskLevel::kLow, RiskLevel::kMedium, RiskLevel::kHigh}) {
    EXPECT_EQ(risk_level_from_string(to_string(l)), l);
  }
  EXPECT_FALSE(risk_level_from_string("extreme"));
}

}  // namespace
}  // namespace aicost::optimize

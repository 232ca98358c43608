// The step model against published measured runs (data/validation/training-dev.csv), judged out
// of sample: grouped cross-validation refits the calibrated parameters without each source and
// predicts that source's runs (docs/VALIDATION.md). Prints the report so a CI log shows it.
#include <gtest/gtest.h>

#include <iostream>

#include "aicost/config/cross_validation.h"
#include "aicost/config/validation_csv.h"
#include "aicost/perf/accuracy.h"
#include "aicost/report/cross_validation_report.h"
#include "test_support.h"

namespace aicost {
namespace {

const std::string kDevSet = std::string(AICOST_SOURCE_DIR) + "/data/validation/training-dev.csv";

std::vector<perf::AccuracyCase> held_out(const config::CrossValidationRun& run) {
  std::vector<perf::AccuracyCase> out;
  for (size_t i = 0; i < run.observations.size(); ++i) {
    const auto& o = run.observations[i];
    out.push_back({o.name, o.regime, o.measured, run.cv.held_out[i]});
  }
  return out;
}

// Measured on 2026-12-01: CV median 5.5 %, p90 10.8 % over 38 runs in 7 source groups (in-sample
// 3.2 % / 10.5 %). The target (median <= 8 %, p90 <= 15 %) holds on this set; the bounds
// below pin today's figures with a little room, so a change that makes the model worse out of
// sample fails here.
TEST(ValidationAccuracy, TrainingCrossValidatedErrorWithinBounds) {
  auto run = config::cross_validate_csv(kDevSet, testing::builtin_catalog());
  ASSERT_TRUE(run) << run.error().what();
  std::cout << report::render_cross_validation(run->observations, run->parameters, run->cv,
                                               run->skipped, report::Format::kTable);
  // Every MEASURED row with a published layout is used: 38 of the dev set's rows, 7 sources.
  EXPECT_EQ(run->observations.size(), 38u);
  EXPECT_EQ(run->cv.groups.size(), 7u);
  // Five fitted numbers: gemm_max for ampere and hopper, three shared.
  EXPECT_EQ(perf::fitted_numbers(run->cv.all, run->parameters).size(), 5u);
  const auto s = perf::summarize(held_out(*run));
  EXPECT_LE(s.median_abs, 0.06);
  EXPECT_LE(s.p90_abs, 0.115);
}

TEST(ValidationAccuracy, SkipsRowsWithoutMeasurementsAndSaysWhy) {
  auto set = config::load_validation_csv(kDevSet, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  bool llama2_skipped = false;
  for (const auto& s : set->skipped) {
    if (s.rfind("Llama 2 7B pretraining: not a MEASURED row", 0) == 0) llama2_skipped = true;
  }
  EXPECT_TRUE(llama2_skipped);
}

}  // namespace
}  // namespace aicost

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

// Measured on 2026-12-01 after the dev set grew to 131 runs in 16 source groups (H100, A100,
// B200, GB200; BF16, FP8, MXFP8; dense and MoE): CV median 6.6 %, p90 18.7 %, worst 291 % (in-sample
// 5.6 % / 18.1 %). The target (median <= 8 %, p90 <= 15 %) no longer holds on this set: the
// p90 is carried by FP8 on H100 (model too slow by 10-20 %) and small MoE models at micro-batch 1
// (Qwen3-30B-A3B on B200/H100, model 1.6-3.3x too fast). The bounds pin today's figures with a
// little room, so a change that makes the model worse out of sample fails here; tighten them as the
// physics improves.
TEST(ValidationAccuracy, TrainingCrossValidatedErrorWithinBounds) {
  auto run = config::cross_validate_csv(kDevSet, testing::builtin_catalog());
  ASSERT_TRUE(run) << run.error().what();
  std::cout << report::render_cross_validation(run->observations, run->parameters, run->cv,
                                               run->skipped, report::Format::kTable);
  // Every MEASURED row with a published layout is used: 131 of the dev set's rows, 16 sources.
  EXPECT_EQ(run->observations.size(), 131u);
  EXPECT_EQ(run->cv.groups.size(), 16u);
  // Six fitted numbers: gemm_max for ampere, hopper and blackwell, three shared.
  EXPECT_EQ(perf::fitted_numbers(run->cv.all, run->parameters).size(), 6u);
  const auto s = perf::summarize(held_out(*run));
  EXPECT_LE(s.median_abs, 0.07);
  EXPECT_LE(s.p90_abs, 0.195);
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

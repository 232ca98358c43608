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

// Measured on 2026-12-02 on 144 runs in 18 source groups (H100, A100, B200, B300, GB200; BF16,
// FP8, MXFP8; dense and MoE), after software eras, FP8 casts as a memory-bound term, the output
// layer in BF16, the MoE dispatcher terms and FP8 GEMM efficiency depending on K
// (fp8_gemm_half_k, from the H200 cuBLAS sweep): CV median 5.3 %, p90 14.1 %, worst 67 %
// (in-sample 4.1 % / 11.4 %); before the K term 5.9 % / 16.9 %, worst 74 %. The target
// (median <= 8 %, p90 <= 15 %) holds. The worst are the Megatron-Bridge MoE runs when their one
// source group is held out and Qwen3-30B-A3B on H100 (docs/VALIDATION.md). The bounds pin
// today's figures with a little room, so a regression fails.
TEST(ValidationAccuracy, TrainingCrossValidatedErrorWithinBounds) {
  auto run = config::cross_validate_csv(kDevSet, testing::builtin_catalog());
  ASSERT_TRUE(run) << run.error().what();
  std::cout << report::render_cross_validation(run->observations, run->parameters, run->cv,
                                               run->skipped, report::Format::kTable);
  // Every MEASURED row with a published layout is used: 144 of the dev set's rows, 18 sources.
  EXPECT_EQ(run->observations.size(), 144u);
  EXPECT_EQ(run->cv.groups.size(), 18u);
  // Eight fitted numbers: gemm_max for ampere, hopper and blackwell, five shared.
  EXPECT_EQ(perf::fitted_numbers(run->cv.all, run->parameters).size(), 8u);
  const auto s = perf::summarize(held_out(*run));
  EXPECT_LE(s.median_abs, 0.055);
  EXPECT_LE(s.p90_abs, 0.145);
  EXPECT_LE(s.max_abs, 0.70);
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

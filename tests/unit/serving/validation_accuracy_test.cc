// The serving model against published measurements (../shared/validation/inference-dev.csv):
// static-batch throughput and batch-1 TTFT, median |error| <= 10 %, 90th percentile <= 20 %,
// one calibration per GPU generation. Prints the table.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "aicost/config/inference_csv.h"
#include "aicost/perf/accuracy.h"
#include "aicost/report/accuracy_report.h"
#include "test_support.h"

namespace aicost {
namespace {

const std::string kDevSet =
    std::string(AICOST_SOURCE_DIR) + "/../shared/validation/inference-dev.csv";

TEST(ServingAccuracy, InferenceDevSetWithinBounds) {
  if (!std::filesystem::exists(kDevSet)) GTEST_SKIP() << "no " << kDevSet;
  auto set = config::load_inference_csv(kDevSet, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  std::vector<perf::AccuracyCase> all, bounded;
  for (const auto& m : set->cases) {
    const std::string metric = serving::to_string(m.metric);
    perf::AccuracyCase c{m.name + " (" + metric + ")", m.replica.gpu.generation + "/" + metric,
                         m.measured, serving::predict(m)};
    all.push_back(c);
    if (m.metric != serving::Metric::kTpot) bounded.push_back(c);
  }
  std::cout << report::render_accuracy(all, set->skipped, report::Format::kTable);
  EXPECT_GE(bounded.size(), 20u);
  const auto s = perf::summarize(bounded);
  EXPECT_LE(s.median_abs, 0.10);
  EXPECT_LE(s.p90_abs, 0.20);
}

}  // namespace
}  // namespace aicost

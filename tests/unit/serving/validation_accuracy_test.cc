// The serving model against published measurements (data/validation/inference-dev.csv):
// static-batch throughput and batch-1 TTFT, median |error| <= 10 %, 90th percentile <= 20 %,
// one calibration per GPU generation. Prints the table.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "aicost/config/inference_csv.h"
#include "aicost/perf/accuracy.h"
#include "aicost/report/accuracy_report.h"
#include "test_support.h"

namespace aicost {
namespace {

const std::string kDevSet =
    std::string(AICOST_SOURCE_DIR) + "/data/validation/inference-dev.csv";

TEST(ServingAccuracy, InferenceDevSetWithinBounds) {
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

// A server under load (data/validation/inference-loaded.csv: NIM 1.8.0, Llama-3.3-70B FP8 on
// 2 x H100, 5,000 -> 500 tokens, 1 to 250 clients). The model is calibrated on the static rows
// above only. It must find the knee where it is (the KV cache holds ~88 sequences: from 100
// clients on, throughput is flat and the TTFT is queueing that grows with every client) and
// stay within 25 % on every row. Measured today: median 17.7 %, max 23.4 %; the model is
// conservative under heavy prefill load (throughput -15 %, ITL +19 %): it lets prefills stall
// decode steps, where chunked prefill overlaps them in part.
TEST(ServingAccuracy, LoadedServerSaturatesWhereMeasured) {
  auto set = config::load_inference_csv(
      std::string(AICOST_SOURCE_DIR) + "/data/validation/inference-loaded.csv",
      testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_TRUE(set->skipped.empty());
  std::vector<perf::AccuracyCase> all;
  std::map<int, std::map<serving::Metric, double>> predicted;
  for (const auto& m : set->cases) {
    ASSERT_GT(m.clients, 0) << m.name;
    const double p = serving::predict(m);
    predicted[m.clients][m.metric] = p;
    all.push_back({m.name + " (" + serving::to_string(m.metric) + ")",
                   m.replica.gpu.generation + "/" + serving::to_string(m.metric), m.measured, p});
  }
  std::cout << report::render_accuracy(all, {}, report::Format::kTable);
  ASSERT_EQ(all.size(), 24u);
  const auto s = perf::summarize(all);
  EXPECT_LE(s.median_abs, 0.20);
  EXPECT_LE(s.max_abs, 0.25);
  using serving::Metric;
  // Below the knee throughput rises with clients; past it, it is flat and each extra client
  // adds the same wait.
  EXPECT_LT(predicted[50][Metric::kThroughput], 0.95 * predicted[100][Metric::kThroughput]);
  EXPECT_DOUBLE_EQ(predicted[150][Metric::kThroughput], predicted[250][Metric::kThroughput]);
  EXPECT_NEAR(predicted[250][Metric::kTtft] - predicted[200][Metric::kTtft],
              predicted[200][Metric::kTtft] - predicted[150][Metric::kTtft], 1e-6);
  EXPECT_GT(predicted[100][Metric::kTtft], 5 * predicted[50][Metric::kTtft]);
}

}  // namespace
}  // namespace aicost

// The serving model against published measurements (data/validation/inference-dev.csv), judged
// out of sample: grouped cross-validation refits the serving parameters without each source and
// predicts that source's rows (docs/VALIDATION.md). Prints the report.
#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include "../shipped_fit.h"
#include "aicost/config/cross_validation.h"
#include "aicost/config/inference_csv.h"
#include "aicost/perf/accuracy.h"
#include "aicost/report/accuracy_report.h"
#include "aicost/report/cross_validation_report.h"
#include "test_support.h"

namespace aicost {
namespace {

const std::string kDevSet = std::string(AICOST_SOURCE_DIR) + "/data/validation/inference-dev.csv";

// Measured on 2026-12-03 over the 100 measurements of 7 source groups (aicost validate --cv
// data/validation/inference-dev.csv): CV median 4.8 %, p90 17.8 %, max 110.9 % (in-sample 4.4 % /
// 17.7 %), 13 fitted numbers (14 counting Ada's pooled prefill share); without the TPOT rows
// 4.8 % / 18.3 %. The target (median <= 10 %, p90 <= 20 %) is met and asserted. Before
// attention DP's prompt imbalance was charged (h/serve10): 4.7 % / 18.3 %, max 110.6 %, without
// the TPOT rows 4.7 % / 20.4 %. Before the engine's sequence cap applied per rank under attention
// DP (h/serve9): 5.1 % / 18.8 %, max 110.7 %, without the TPOT rows 5.2 % / 20.7 %. Before Hopper's
// decode share could reach an HBM copy's 89 % (the H200's decode GEMMs stream their bytes at 90 %
// past a fixed 6 us each, which the per-layer cost holds; h/serve8): 7.3 % / 22.3 %, max 91.5 %.
// Before MLA's attention FLOPs and attention DP's one all-reduce of bytes a layer (h/serve8): 7.3 %
// / 24.1 %, max 92.5 %. Before the routing copies of MoE layers and attention in the wider of the
// weights' and the cache's precision (h/serve7): 7.2 % / 24.4 %, max 96.7 %. Before the decode
// share had a prior (70 %, a tenth of a row): 7.3 % / 28.0 %, max 97 %. Before NVFP4 GEMMs ran at
// the B200-measured 54 % of the BF16 share and attention-DP ranks paid the per-sequence cost for
// their own sequences only: 11.5 % / 31.2 %, max 145 %. Still far off: Mixtral on TensorRT-LLM 0.9
// +111 % (14 % of FP8 peak: an outlier), Qwen3-30B-A3B on GB200 +57 % (docs/VALIDATION.md). The
// bounds pin today's figures, so that a regression fails.
TEST(ServingAccuracy, InferenceCrossValidatedErrorWithinBounds) {
  auto run = config::cross_validate_csv(kDevSet, testing::builtin_catalog());
  ASSERT_TRUE(run) << run.error().what();
  std::cout << report::render_cross_validation(run->observations, run->parameters, run->cv,
                                               run->skipped, report::Format::kTable);
  EXPECT_EQ(run->observations.size(), 100u);
  EXPECT_EQ(run->cv.groups.size(), 7u);
  EXPECT_EQ(perf::fitted_numbers(run->cv.all, run->parameters).size(), 13u);
  std::vector<perf::AccuracyCase> all, bounded;
  for (size_t i = 0; i < run->observations.size(); ++i) {
    const auto& o = run->observations[i];
    all.push_back({o.name, o.regime, o.measured, run->cv.held_out[i]});
    if (o.name.find("(tpot)") == std::string::npos) bounded.push_back(all.back());
  }
  const auto s = perf::summarize(all);
  std::cout << "all rows: CV median " << 100 * s.median_abs << " %, p90 " << 100 * s.p90_abs
            << " %\n";
  EXPECT_LE(s.median_abs, 0.10);  // the target
  EXPECT_LE(s.p90_abs, 0.20);
  EXPECT_LE(s.median_abs, 0.049);  // today's figures, so that a regression fails
  EXPECT_LE(s.p90_abs, 0.179);
  const auto b = perf::summarize(bounded);
  std::cout << "without TPOT rows: CV median " << 100 * b.median_abs << " %, p90 "
            << 100 * b.p90_abs << " %\n";
  EXPECT_LE(b.median_abs, 0.049);
  EXPECT_LE(b.p90_abs, 0.184);
  testing::expect_shipped_profiles_are_the_fit(*run, testing::builtin_catalog());
}

// A server under load (data/validation/inference-loaded.csv: NIM 1.8.0, Llama-3.3-70B FP8 on
// 2 x H100, 5,000 -> 500 tokens, 1 to 250 clients). The model is calibrated on the static rows
// above only. It must find the knee where it is (the KV cache holds ~88 sequences: from 100
// clients on, throughput is flat and the TTFT is queueing that grows with every client) and
// stay within 44 % on every row. Measured 2026-12-02: median 15.9 %, p90 29.2 %, max 43.0 % (the
// single-client TPOT, +43 %: the per-layer overhead fitted on inference-dev.csv sits at its 100 us
// cap, 99 us, 8 ms a step of an 80-layer model; 25.8 % max when it was 52 us, before the KV and
// per-sequence terms); the model is conservative under heavy prefill load (throughput -15 %, ITL
// +18 %): it lets prefills stall decode steps, where chunked prefill overlaps them in part.
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
  EXPECT_LE(s.max_abs, 0.44);
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

// The step model against published measured runs (data/validation/training-dev.csv): the
// acceptance bounds of the estimate issue. Prints the per-run table so a CI log shows it.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/validation_csv.h"
#include "aicost/perf/accuracy.h"
#include "aicost/perf/estimate.h"
#include "aicost/report/accuracy_report.h"

namespace aicost {
namespace {

const std::string kDevSet = std::string(AICOST_SOURCE_DIR) + "/data/validation/training-dev.csv";

TEST(ValidationAccuracy, TrainingDevSetWithinBounds) {
  auto cat = config::load_builtin_catalog();
  ASSERT_TRUE(cat) << cat.error().what();
  auto set = config::load_validation_csv(kDevSet, *cat);
  ASSERT_TRUE(set) << set.error().what();
  std::vector<perf::AccuracyCase> cases;
  for (const auto& c : set->cases) {
    auto est = perf::estimate_training(c.job);
    ASSERT_TRUE(est) << c.name << ": " << est.error().what();
    cases.push_back({c.name, c.job.cluster.gpu.generation, c.measured_tokens_per_s_per_gpu,
                     est->tokens_per_s_per_gpu});
  }
  std::cout << report::render_accuracy(cases, set->skipped, report::Format::kTable);
  // Every MEASURED row with a published layout is used: 38 of the dev set's rows.
  EXPECT_GE(cases.size(), 38u);
  const auto s = perf::summarize(cases);
  EXPECT_LE(s.median_abs, 0.08);
  EXPECT_LE(s.p90_abs, 0.15);
}

TEST(ValidationAccuracy, SkipsRowsWithoutMeasurementsAndSaysWhy) {
  auto cat = config::load_builtin_catalog();
  auto set = config::load_validation_csv(kDevSet, *cat);
  ASSERT_TRUE(set);
  bool llama2_skipped = false;
  for (const auto& s : set->skipped) {
    if (s.rfind("Llama 2 7B pretraining: not a MEASURED row", 0) == 0) llama2_skipped = true;
  }
  EXPECT_TRUE(llama2_skipped);
}

}  // namespace
}  // namespace aicost

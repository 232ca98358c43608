// data/intervals.yaml: generated from the shipped validation data, never edited by hand, read
// back into the catalog; and the 80 % intervals it gives cover 70-90 % of runs they were not
// built from (docs/VALIDATION.md "Intervals").
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/cross_validation.h"
#include "aicost/config/memory_csv.h"
#include "aicost/report/cross_validation_report.h"
#include "test_support.h"

namespace aicost {
namespace {

const std::string kRoot = AICOST_SOURCE_DIR;
const std::string kTraining = "data/validation/training-dev.csv";
const std::string kServing = "data/validation/inference-dev.csv";
const std::string kMemory = "data/validation/memory-dev.csv";

config::CrossValidationRun run(const std::string& csv) {
  auto r = config::cross_validate_csv(kRoot + "/" + csv, testing::builtin_catalog());
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? std::move(*r) : config::CrossValidationRun{};
}

TEST(ErrorBandsFile, ShippedFileIsCurrent) {
  const auto training = config::held_out_bands(run(kTraining), kTraining);
  const auto serving = config::held_out_bands(run(kServing), kServing);
  auto memory_cases = config::load_memory_csv(kRoot + "/" + kMemory, testing::builtin_catalog());
  ASSERT_TRUE(memory_cases) << memory_cases.error().message;
  const auto memory = config::memory_margin(*memory_cases, kMemory);
  const std::string expected = report::render_error_bands_yaml(&training, &serving, &memory);
  std::ifstream in(kRoot + "/data/intervals.yaml", std::ios::binary);
  ASSERT_TRUE(in) << "data/intervals.yaml is missing";
  std::stringstream shipped;
  shipped << in.rdbuf();
  EXPECT_EQ(shipped.str(), expected)
      << "data/intervals.yaml is stale (the model or data/validation/ changed). Regenerate it "
         "from the repository root with:\n  "
      << report::kWriteIntervalsCommand;
}

TEST(ErrorBandsFile, BuiltinCatalogReadsTheBands) {
  const auto& cat = testing::builtin_catalog();
  const auto built = config::held_out_bands(run(kTraining), kTraining);
  const auto& loaded = cat.training_bands();
  ASSERT_EQ(loaded.bands.size(), built.bands.size());
  EXPECT_EQ(loaded.source, kTraining);
  for (size_t i = 0; i < built.bands.size(); ++i) {
    EXPECT_EQ(loaded.bands[i].regime, built.bands[i].regime);
    EXPECT_EQ(loaded.bands[i].rows, built.bands[i].rows);
    EXPECT_EQ(loaded.bands[i].groups, built.bands[i].groups);
    // Written with four decimals.
    EXPECT_NEAR(loaded.bands[i].p10, built.bands[i].p10, 5.1e-5);
    EXPECT_NEAR(loaded.bands[i].p90, built.bands[i].p90, 5.1e-5);
  }
  EXPECT_FALSE(cat.serving_bands().bands.empty());
}

TEST(ErrorBandsFile, ABandWithoutAFigureIsAnError) {
  catalog::Catalog cat;
  const auto s = config::add_catalog_text(
      "intervals:\n  training:\n    source: x.csv\n    bands:\n"
      "      - {regime: all, rows: 3, groups: 2, p10: 0.95, median: 1, max: 1.09, min: 0.93}\n",
      "bands.yaml", cat);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("has no 'p90'"), std::string::npos) << s.error().message;
}

// The intervals' coverage of held-out runs: every row is predicted by the fit without its source
// group, and judged by bands built without that group too (perf::band_coverage).
TEST(ErrorBandsFile, TrainingIntervalsCoverSeventyToNinetyPercentOfHeldOutRuns) {
  const double c = config::held_out_coverage(run(kTraining));
  EXPECT_GE(c, 0.70);
  EXPECT_LE(c, 0.90);
}

// The serving set has three source groups: holding one out leaves bands from two sources, widened
// by k(2) = 2.94, so the serving intervals over-cover by design (91 % on 2026-12-01). Not narrower
// than 70 %; not so wide that they say nothing.
TEST(ErrorBandsFile, ServingIntervalsCoverAtLeastSeventyPercentOfHeldOutRuns) {
  const double c = config::held_out_coverage(run(kServing));
  EXPECT_GE(c, 0.70);
  EXPECT_LE(c, 0.95);
}

}  // namespace
}  // namespace aicost

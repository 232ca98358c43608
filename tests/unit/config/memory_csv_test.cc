// data/validation/memory-dev.csv: published peak memory per GPU, read as plans; the margin the
// memory model's over-statement gives; and the published training runs are not refused.
#include "aicost/config/memory_csv.h"

#include <gtest/gtest.h>

#include "aicost/config/validation_csv.h"
#include "aicost/perf/memory.h"
#include "temp_dir.h"
#include "test_support.h"

namespace aicost::config {
namespace {

const std::string kRoot = AICOST_SOURCE_DIR;

std::vector<MemoryCase> shipped() {
  auto r = load_memory_csv(kRoot + "/data/validation/memory-dev.csv", testing::builtin_catalog());
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : std::vector<MemoryCase>{};
}

TEST(MemoryCsv, ShippedRowsAreReadAsPlans) {
  const auto cases = shipped();
  ASSERT_EQ(cases.size(), 9u);
  for (const auto& c : cases) {
    EXPECT_GT(c.measured_gib, 0) << c.name;
    EXPECT_FALSE(c.source.empty()) << c.name;
  }
  EXPECT_EQ(cases[0].measured_as, "max_reserved");
  // Row 6: a published run that completed, its capacity the upper bound of its peak.
  EXPECT_EQ(cases[5].measured_as, "ran");
  EXPECT_EQ(cases[5].measured_gib, core::in_gib(cases[5].job.cluster.gpu.memory));
  EXPECT_EQ(cases[5].job.expert_tensor(), 1);
  // Row 5: Llama 3.1 70B on 256 GPUs, TP 8, FSDP (ZeRO-3) over the 32 data-parallel ranks.
  EXPECT_EQ(cases[4].job.parallel.tensor, 8);
  EXPECT_EQ(cases[4].job.data_parallel(), 32);
  EXPECT_EQ(cases[4].job.parallel.sharding, workload::OptimizerSharding::kZero3);
  EXPECT_TRUE(is_memory_csv(kRoot + "/data/validation/memory-dev.csv"));
  EXPECT_FALSE(is_memory_csv(kRoot + "/data/validation/training-dev.csv"));
}

TEST(MemoryCsv, MarginIsTheLargestOverStatement) {
  auto cases = shipped();
  ASSERT_GE(cases.size(), 2u);
  cases.resize(2);
  const double p0 = core::in_gib(perf::estimate_memory(cases[0].job).total());
  const double p1 = core::in_gib(perf::estimate_memory(cases[1].job).total());
  cases[0].measured_gib = p0 / 1.25;  // over-stated by 25 %
  cases[1].measured_gib = p1 * 1.5;   // under-stated: does not widen the margin
  const auto m = memory_margin(cases, "x.csv");
  EXPECT_NEAR(m.margin, 0.25, 1e-12);
  EXPECT_EQ(m.rows, 2);
  cases[0].measured_gib = p0 * 1.1;
  EXPECT_EQ(memory_margin(cases, "x.csv").margin, 0.0);
}

TEST(MemoryCsv, AMissingColumnNamesIt) {
  testing::TempDir dir;
  const auto path = dir.write("m.csv", "name,source,model\nx,y,llama3.1-8b\n");
  auto r = load_memory_csv(path, testing::builtin_catalog());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no column 'gpu'"), std::string::npos) << r.error().message;
}

// The bar: no configuration a published run used is refused as out of memory. Every
// training run of the validation set ran on its GPUs; with the shipped margin none is refused.
TEST(MemoryCsv, NoPublishedTrainingRunIsRefused) {
  const auto& cat = testing::builtin_catalog();
  auto set = load_validation_csv(kRoot + "/data/validation/training-dev.csv", cat);
  ASSERT_TRUE(set) << set.error().message;
  for (auto c : set->cases) {
    c.job.memory_margin = cat.memory_margin().margin;
    const auto mem = perf::estimate_memory(c.job);
    EXPECT_FALSE(mem.refused()) << c.name << ": " << core::in_gib(mem.total()) << " GiB of "
                                << core::in_gib(mem.capacity);
  }
}

}  // namespace
}  // namespace aicost::config

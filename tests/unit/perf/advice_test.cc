#include "aicost/perf/advice.h"

#include <gtest/gtest.h>

#include "aicost/perf/memory.h"
#include "perf_fixture.h"

namespace aicost::perf {
namespace {

using testing::classic_gpt;
using testing::make_job;

// GPT-3 175B on 64 H100 80 GB at TP 8, PP 1, no recompute and no optimizer sharding: 16 bytes of
// model state per parameter on 1/8 of 175B params alone is ~330 GiB, so only sharding everything
// over the 8 data-parallel ranks (ZeRO-3) fits (tests/golden/error_out_of_memory.err words it).
TEST(MemoryFixes, OnlyTheChangesThatFitAreOfferedWithThePeakTheyLeave) {
  auto job = make_job(classic_gpt(96, 12288, 96), "h100-sxm-80gb", 64, 2048, 64);
  job.parallel.tensor = 8;
  ASSERT_FALSE(estimate_memory(job).fits());
  const auto fixes = memory_fixes(job);
  ASSERT_FALSE(fixes.empty());
  for (const auto& f : fixes) {
    // The peak is the memory model's on the changed job, derived here by making the change.
    auto changed = job;
    switch (f.lever) {
      case MemoryLever::kZero3:
        changed.parallel.sharding = workload::OptimizerSharding::kZero3;
        break;
      case MemoryLever::kPipeline: changed.parallel.pipeline = f.value; break;
      case MemoryLever::kTensor: changed.parallel.tensor = f.value; break;
      default: FAIL() << "a change this job's size cannot fit by: " << static_cast<int>(f.lever);
    }
    const auto mem = estimate_memory(changed);
    EXPECT_TRUE(mem.fits());
    EXPECT_EQ(f.peak.value(), mem.total().value());
  }
  EXPECT_EQ(fixes.back().lever, MemoryLever::kZero3);  // the costliest to adopt comes last
}

TEST(MemoryFixes, AJobThatFitsNeedsNoFix) {
  auto job = make_job(classic_gpt(24, 2048, 16), "h100-sxm-80gb", 8, 2048, 8);
  ASSERT_TRUE(estimate_memory(job).fits());
  EXPECT_TRUE(memory_fixes(job).empty());
}

}  // namespace
}  // namespace aicost::perf

// Reading published serving measurements (columns of inference-dev.csv): how a row names its
// precision and its load, and what a row the reader cannot use says.
#include "aicost/config/inference_csv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "aicost/serving/capacity.h"
#include "temp_dir.h"
#include "test_support.h"

namespace aicost::config {
namespace {

// One folder per process (ctest runs this binary's tests in parallel processes), removed when
// it exits.
std::string write_csv(const std::string& name, const std::string& rows) {
  static const testing::TempDir dir("aicost-inference-csv");
  return dir.write(name + ".csv",
                   "name,model,gpu_type,tp,precision,input_tokens,output_tokens,batch_or_concurrency,"
                   "throughput_tokens_per_s,ttft_ms,tpot_ms\n" + rows);
}

TEST(InferenceCsv, PrecisionsAndLoadsAsPublishedTablesSpellThem) {
  const auto path = write_csv("spellings",
      "fp4,Llama-3.1-8B,B200,1,NVFP4,1000,1000,max load,30000,,\n"
      "int8,Llama-3.1-8B,H100-SXM-80GB,1,INT8 SmoothQuant,128,128,static batch 64,9000,,\n"
      "bf16,Llama-3.1-8B,H100-SXM-80GB,1,default dtype (BF16 presumed),32,128,fixed batch 8,,,6.5\n"
      "closed,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,200,concurrency=16,2500,60,\n"
      "clients,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,200,32 concurrent requests,4000,,\n"
      "open,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,200,request rate 2.5,500,40,8\n"
      "odd,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,200,whatever the engine liked,500,,\n");
  auto set = load_inference_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  auto first = [&](const std::string& name) -> const serving::Measurement* {
    for (const auto& m : set->cases)
      if (m.name == name) return &m;
    return nullptr;
  };
  ASSERT_TRUE(first("fp4") && first("int8") && first("bf16") && first("closed") && first("clients") && first("open"));
  EXPECT_EQ(first("fp4")->replica.weights, catalog::Precision::kFp4);
  EXPECT_EQ(first("fp4")->replica.kv_cache, catalog::Precision::kFp8);
  EXPECT_TRUE(first("fp4")->max_load);
  EXPECT_EQ(first("int8")->replica.weights, catalog::Precision::kInt8);
  EXPECT_EQ(first("int8")->batch, 64);
  EXPECT_EQ(first("bf16")->replica.weights, catalog::Precision::kBf16);
  EXPECT_EQ(first("closed")->clients, 16);
  EXPECT_EQ(first("clients")->clients, 32);
  EXPECT_DOUBLE_EQ(first("open")->requests_per_s, 2.5);
  ASSERT_EQ(set->skipped.size(), 1u);
  EXPECT_NE(set->skipped[0].find("'request rate R'"), std::string::npos) << set->skipped[0];
}

// Poisson arrivals well below capacity are all served: throughput is the rate times the answer,
// and a lone request's TTFT is its prefill. Arrivals beyond capacity are served at the
// replica's most: the closed loop at every slot.
TEST(InferenceCsv, OpenLoopRowsPredictServedLoad) {
  const auto path = write_csv("open_loop",
      "light,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,200,request rate 0.01,2,,\n"
      "light,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,200,request rate 0.01,,40,\n"
      "flood,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,200,request rate 100000,2,,\n");
  auto set = load_inference_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_EQ(set->cases.size(), 3u);
  const auto& r = set->cases[0].replica;
  EXPECT_NEAR(serving::predict(set->cases[0]), 0.01 * 200, 1e-12);
  EXPECT_NEAR(serving::predict(set->cases[1]), serving::prefill_time(r, 1000, 1000).value(), 1e-4);
  const int slots = static_cast<int>(serving::max_load_batch(r, 1000, 200));
  EXPECT_NEAR(serving::predict(set->cases[2]),
              serving::closed_loop(r, slots, serving::Traffic{0, 1000, 200}, slots).output_tokens_per_s, 1e-9);
}

}  // namespace
}  // namespace aicost::config

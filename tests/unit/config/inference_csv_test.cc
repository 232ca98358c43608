// Reading published serving measurements (columns of inference-dev.csv): how a row names its
// precision and its load, and what a row the reader cannot use says.
#include "aicost/config/inference_csv.h"

#include <gtest/gtest.h>

#include <cmath>
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
  return dir.write(
      name + ".csv",
      "name,model,gpu_type,tp,precision,input_tokens,output_tokens,batch_or_concurrency,"
      "throughput_tokens_per_s,ttft_ms,tpot_ms\n" +
          rows);
}

// The same columns with the system's GPU count (`num_gpus`) after `gpu_type`.
std::string write_system_csv(const std::string& name, const std::string& rows) {
  static const testing::TempDir dir("aicost-inference-system-csv");
  return dir.write(name + ".csv",
                   "name,model,gpu_type,num_gpus,tp,precision,input_tokens,output_tokens,"
                   "batch_or_concurrency,throughput_tokens_per_s,ttft_ms,tpot_ms\n" +
                       rows);
}

TEST(InferenceCsv, PrecisionsAndLoadsAsPublishedTablesSpellThem) {
  const auto path = write_csv(
      "spellings",
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
  ASSERT_TRUE(first("fp4") && first("int8") && first("bf16") && first("closed") &&
              first("clients") && first("open"));
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

// "max_num_seqs N" in a max-load cell is the engine's limit on running sequences (vLLM
// --max-num-seqs): the batch is what the KV cache holds, capped by it. Llama 3.1 8B FP8 on an
// H100 holds ~950K tokens of cache, ~460 sequences of 1,000 + 1,000 tokens: a limit of 64 binds,
// and the throughput at max load is then exactly that of a continuous batch of 64.
TEST(InferenceCsv, MaxNumSeqsCapsTheMaxLoadBatch) {
  const auto path = write_csv(
      "max-num-seqs",
      "capped,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,1000,max load (max_num_seqs 64),3000,,\n"
      "free,Llama-3.1-8B,H100-SXM-80GB,1,FP8,1000,1000,max load,3000,,\n");
  auto set = load_inference_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_EQ(set->cases.size(), 2u);
  const auto& capped = set->cases[0];
  const auto& free = set->cases[1];
  EXPECT_DOUBLE_EQ(capped.max_sequences, 64);
  EXPECT_DOUBLE_EQ(free.max_sequences, 2048);
  ASSERT_GT(serving::max_load_batch(free.replica, 1000, 1000), 64);
  EXPECT_NEAR(serving::predict(capped),
              64 / serving::continuous_step_time(capped.replica, 64, 1000, 1000).value(), 1e-6);
  EXPECT_LT(serving::predict(capped), serving::predict(free));
}

// The precision cell may name the KV cache ("NVFP4 (BF16 KV cache)"); "attention DP" in the
// framework cell splits attention by sequence; TensorRT-LLM before v0.8 (no XQA) reads the cache
// per query head.
TEST(InferenceCsv, KvPrecisionAttentionDpAndOldKernelsAsTheRowSaysThem) {
  static const testing::TempDir dir("aicost-inference-engine-csv");
  const auto path = dir.write(
      "engine.csv",
      "name,model,gpu_type,tp,precision,framework,input_tokens,output_tokens,batch_or_concurrency,"
      "throughput_tokens_per_s,ttft_ms,tpot_ms\n"
      "kv,DeepSeek-R1,B200,8,NVFP4 (BF16 KV cache),\"TensorRT-LLM (tp 8, ep 8, attention "
      "DP)\",1024,2048,concurrency 3072,36000,,\n"
      "old,Llama-2-70B,H100-SXM-80GB,2,FP8,TensorRT-LLM v0.6.1 (static batch),128,2048,static "
      "batch 64,1000,,\n"
      "new,Llama-2-70B,H100-SXM-80GB,2,FP8,TensorRT-LLM v0.9.0 (static batch),128,2048,static "
      "batch 64,2000,,\n");
  auto set = load_inference_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_EQ(set->cases.size(), 3u);
  EXPECT_EQ(set->cases[0].replica.weights, catalog::Precision::kFp4);
  EXPECT_EQ(set->cases[0].replica.kv_cache, catalog::Precision::kBf16);
  EXPECT_TRUE(set->cases[0].replica.attention_data_parallel);
  EXPECT_FALSE(set->cases[1].replica.attention_data_parallel);
  EXPECT_FALSE(set->cases[1].replica.kv_read_once_per_group);
  EXPECT_TRUE(set->cases[2].replica.kv_read_once_per_group);
}

// Poisson arrivals well below capacity are all served: throughput is the rate times the answer,
// and a lone request's TTFT is its prefill. Arrivals beyond capacity are served at the
// replica's most: the closed loop at every slot.
TEST(InferenceCsv, OpenLoopRowsPredictServedLoad) {
  const auto path =
      write_csv("open_loop",
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
              serving::closed_loop(r, slots, serving::Traffic{core::PerSecond(0), 1000, 200}, slots)
                  .output_token_rate.value(),
              1e-9);
}

// A row about a whole system (8 GPUs at TP 2) measures 4 replicas side by side: its throughput
// is 4 times one replica's, its latencies one replica's. Clients spread as evenly as they can:
// 10 clients on 8 single-GPU replicas are 2 replicas with 2 clients and 6 with 1.
TEST(InferenceCsv, WholeSystemRowsAreGpusOverTpReplicas) {
  const auto path =
      write_system_csv("system",
                       "one,Llama-3.1-8B,H100-SXM-80GB,2,2,FP8,1000,1000,max load,20000,,\n"
                       "four,Llama-3.1-8B,H100-SXM-80GB,8,2,FP8,1000,1000,max load,80000,,\n"
                       "four,Llama-3.1-8B,H100-SXM-80GB,8,2,FP8,2048,1,batch 1,,40,\n"
                       "c1,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,1000,200,concurrency 1,500,,\n"
                       "c2,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,1000,200,concurrency 2,900,,\n"
                       "c10,Llama-3.1-8B,H100-SXM-80GB,8,1,FP8,1000,200,concurrency 10,5000,,\n"
                       "odd,Llama-3.1-8B,H100-SXM-80GB,6,4,FP8,1000,1000,max load,20000,,\n");
  auto set = load_inference_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_EQ(set->cases.size(), 6u);
  EXPECT_EQ(set->cases[0].replicas, 1);
  EXPECT_EQ(set->cases[1].replicas, 4);
  EXPECT_NEAR(serving::predict(set->cases[1]), 4 * serving::predict(set->cases[0]), 1e-6);
  auto one_replica_ttft = set->cases[2];
  one_replica_ttft.replicas = 1;
  EXPECT_DOUBLE_EQ(serving::predict(set->cases[2]), serving::predict(one_replica_ttft));
  EXPECT_EQ(set->cases[5].replicas, 8);
  EXPECT_NEAR(serving::predict(set->cases[5]),
              2 * serving::predict(set->cases[4]) + 6 * serving::predict(set->cases[3]), 1e-6);
  ASSERT_EQ(set->skipped.size(), 1u);
  EXPECT_EQ(set->skipped[0].rfind("odd: num_gpus 6 is not a multiple of tp 4", 0), 0u)
      << set->skipped[0];
}

// A cell the reader cannot read skips its row and says which cell; it is never read as 0 (or as
// the digits it starts with: "1k" is not 1).
TEST(InferenceCsv, UnreadableCellsSkipTheRowWithTheReason) {
  const auto path =
      write_system_csv("unreadable",
                       "k,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,1k,128,static batch 8,900,,\n"
                       "na,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,128,128,static batch 8,n/a,,\n"
                       "tp,Llama-3.1-8B,H100-SXM-80GB,2,two,FP8,128,128,static batch 8,900,,\n"
                       "zero,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,128,0,static batch 8,900,,\n"
                       "none,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,128,128,static batch 8,,,\n"
                       "big,Llama-3.1-405B,L4,1,1,BF16,128,128,static batch 8,900,,\n"
                       "ok,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,128,128,static batch 8,900,,\n");
  auto set = load_inference_csv(path, testing::builtin_catalog());
  ASSERT_TRUE(set) << set.error().what();
  ASSERT_EQ(set->cases.size(), 1u);
  EXPECT_EQ(set->cases[0].name, "ok");
  ASSERT_EQ(set->skipped.size(), 6u);
  const std::vector<std::string> expected = {
      "k: unreadable row (column 'input_tokens' is not a number: '1k')",
      "na: unreadable row (column 'throughput_tokens_per_s' is not a number: 'n/a')",
      "tp: unreadable row (column 'tp' is not a number: 'two')",
      "zero: input_tokens and output_tokens must be at least 1",
      "none: no measured throughput_tokens_per_s, ttft_ms or tpot_ms",
      "big: the weights ("};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(set->skipped[i].rfind(expected[i], 0), 0u) << set->skipped[i];
  }
  EXPECT_NE(set->skipped[5].find("do not fit on l4"), std::string::npos) << set->skipped[5];
}

// Every measurement the reader keeps gets a prediction: never 0 and never NaN (the dev sets, the
// loaded server, and rows at the edges: one token, one client, a trickle of requests). Rows
// without token counts used to be predicted 0 (TTFT of no prompt) or NaN (TPOT of no output);
// they are skipped.
TEST(InferenceCsv, NoPredictionIsZeroOrNaN) {
  std::vector<serving::Measurement> all;
  for (const char* f : {"inference-dev.csv", "inference-loaded.csv"}) {
    auto set = load_inference_csv(std::string(AICOST_SOURCE_DIR) + "/data/validation/" + f,
                                  testing::builtin_catalog());
    ASSERT_TRUE(set) << set.error().what();
    all.insert(all.end(), set->cases.begin(), set->cases.end());
  }
  auto edges = load_inference_csv(
      write_system_csv("edges",
                       "t1,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,1,1,batch 1,10,1,1\n"
                       "c1,Llama-3.1-70B,H100-SXM-80GB,8,4,BF16,8000,1,concurrency 1,10,100,1\n"
                       "r,Llama-3.1-8B,A100-SXM4-80GB,1,1,BF16,1,1,request rate 0.001,1,1,1\n"
                       "no-input,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,,128,batch 1,,30,\n"
                       "no-output,Llama-3.1-8B,H100-SXM-80GB,1,1,FP8,128,,fixed batch 8,,,6\n"),
      testing::builtin_catalog());
  ASSERT_TRUE(edges) << edges.error().what();
  ASSERT_EQ(edges->skipped.size(), 2u);
  EXPECT_EQ(edges->skipped[0], "no-input: input_tokens and output_tokens must be at least 1");
  all.insert(all.end(), edges->cases.begin(), edges->cases.end());
  ASSERT_GE(all.size(), 50u);
  for (const auto& m : all) {
    const double p = serving::predict(m);
    EXPECT_GT(p, 0) << m.name << " " << serving::to_string(m.metric);
    EXPECT_FALSE(std::isnan(p)) << m.name << " " << serving::to_string(m.metric);
  }
}

}  // namespace
}  // namespace aicost::config

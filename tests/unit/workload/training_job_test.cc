#include "aicost/workload/training_job.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

// validate(): divisibility rules of Megatron-Core (training-model.md notation: n = t*p*d*c,
// m = B/(d*b)); errors name the key and list values that would work.

namespace aicost::workload {
namespace {

catalog::ModelSpec dense_spec() { return testing::dense_spec(8, 1024, 16, 4096, 32000); }

TrainingJob job_with(catalog::ModelSpec spec) {
  TrainingJob j;
  auto m = Model::create(std::move(spec));
  EXPECT_TRUE(m) << (m ? "" : m.error().what());
  if (m) j.model = *m;
  j.tokens = 1e9;
  j.seq_length = 2048;
  j.global_batch = 64;
  j.cluster.gpus = 16;
  return j;
}

std::string message_of(const TrainingJob& j, std::vector<std::string>* warnings = nullptr) {
  auto st = validate(j, warnings);
  EXPECT_FALSE(st);
  if (st) return {};
  EXPECT_EQ(st.error().code, core::ErrorCode::kInvalidInput);
  return st.error().what();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Validate, BaselineIsValidWithoutWarnings) {
  // 16 GPUs, t=p=c=1 -> d=16; 64 % (16*1) == 0.
  std::vector<std::string> w;
  auto st = validate(job_with(dense_spec()), &w);
  EXPECT_TRUE(st) << st.error().what();
  EXPECT_TRUE(w.empty());
}

TEST(Validate, TensorParallelMustDivideHeads) {
  // 16 heads, TP 3: values that would (powers of two dividing 16): 1, 2, 4, 8, 16.
  auto j = job_with(dense_spec());
  j.parallel.tensor = 3;
  j.cluster.gpus = 48;
  const std::string msg = message_of(j);
  EXPECT_TRUE(contains(msg, "tensor_model_parallel_size")) << msg;
  EXPECT_TRUE(contains(msg, "values that would: 1, 2, 4, 8, 16")) << msg;
}

TEST(Validate, ModelParallelMustDivideGpus) {
  // t*p*c = 2*4*1 = 8 does not divide 12 GPUs.
  auto j = job_with(dense_spec());
  j.parallel.tensor = 2;
  j.parallel.pipeline = 4;
  j.cluster.gpus = 12;
  auto st = validate(j, nullptr);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().context, "cluster.gpus");
  EXPECT_TRUE(contains(st.error().message, "multiple of 8")) << st.error().what();
}

TEST(Validate, GlobalBatchMustBeMultipleOfMicroBatchTimesDp) {
  // d = 16, b = 1: B = 40 is not a multiple of 16. For no power-of-two b is 40 % (16 b) == 0,
  // so the message asks for a multiple of the DP size 16.
  auto j = job_with(dense_spec());
  j.global_batch = 40;
  auto st = validate(j, nullptr);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().context, "training.global_batch_size");
  EXPECT_TRUE(contains(st.error().message, "multiple of 16")) << st.error().what();
}

TEST(Validate, GlobalBatchErrorListsMicroBatchesThatFit) {
  // d = 16, b = 3, B = 64: 64 % 48 != 0; b in {1, 2, 4} gives 16, 32, 64 which divide 64.
  auto j = job_with(dense_spec());
  j.parallel.micro_batch = 3;
  const std::string msg = message_of(j);
  EXPECT_TRUE(contains(msg, "global_batch_size")) << msg;
  EXPECT_TRUE(contains(msg, "1, 2, 4")) << msg;
}

TEST(Validate, ExpertParallelMustDivideExperts) {
  // 8 experts, EP 3: divisors of 8 are 1, 2, 4, 8.
  auto s = dense_spec();
  s.num_moe_experts = 8;
  s.moe_router_topk = 2;
  s.moe_ffn_hidden_size = 1024;
  auto j = job_with(s);
  j.parallel.expert = 3;
  const std::string msg = message_of(j);
  EXPECT_TRUE(contains(msg, "expert_model_parallel_size")) << msg;
  EXPECT_TRUE(contains(msg, "values that would: 1, 2, 4, 8")) << msg;
}

TEST(Validate, SequenceParallelWithTp1Warns) {
  auto j = job_with(dense_spec());
  j.parallel.sequence_parallel = true;
  std::vector<std::string> w;
  auto st = validate(j, &w);
  ASSERT_TRUE(st) << st.error().what();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(contains(w[0], "sequence_parallel")) << w[0];
}

TEST(Validate, UnevenPipelineWarnsWithSlowestStage) {
  // 8 layers on p = 3: ceil(8/3) = 3 layers on the slowest stage. 15 GPUs -> d = 5, B = 64 ->
  // not a multiple; use B = 60 (60 % 5 == 0).
  auto j = job_with(dense_spec());
  j.parallel.pipeline = 3;
  j.cluster.gpus = 15;
  j.global_batch = 60;
  std::vector<std::string> w;
  auto st = validate(j, &w);
  ASSERT_TRUE(st) << st.error().what();
  ASSERT_FALSE(w.empty());
  EXPECT_TRUE(contains(w[0], "holds 3 layers")) << w[0];
  EXPECT_EQ(j.layers_per_stage(), 3);
}

TEST(Divisors, AscendingList) {
  EXPECT_EQ(divisors(12), (std::vector<int>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(divisors(1), (std::vector<int>{1}));
}

}  // namespace
}  // namespace aicost::workload

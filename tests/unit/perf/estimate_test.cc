#include "aicost/perf/estimate.h"

#include <gtest/gtest.h>

#include "perf_fixture.h"

// Structural properties of the step model (training-model.md §4, §2, §6).

namespace aicost::perf {
namespace {

// 1 node of 8 A100, TP 1, PP 4 -> DP 2. No TP/CP/EP traffic. Tiny vocabulary so the last-stage
// output layer is negligible next to 8 transformer layers per stage (a pure 1F1B pipeline).
workload::TrainingJob pipeline_job(int virtual_stages, int global_batch) {
  auto j = testing::make_job(testing::classic_gpt(32, 4096, 32, 128), "a100-sxm4-80gb", 8, 2048,
                             global_batch);
  j.parallel.pipeline = 4;
  j.parallel.virtual_pipeline = virtual_stages;
  j.parallel.tensor = 1;
  return j;
}

TrainingEstimate estimate(const workload::TrainingJob& j) {
  std::vector<std::string> w;
  auto st = workload::validate(j, &w);
  EXPECT_TRUE(st) << (st ? "" : st.error().what());
  auto e = estimate_training(j);
  EXPECT_TRUE(e) << (e ? "" : e.error().what());
  return e ? *e : TrainingEstimate{};
}

TEST(StepEstimate, BubbleIsPMinusOneMicroBatchSlots) {
  // m = B/(d b) = 64/2 = 32 micro-batches; bubble = (p-1) x one stage's micro-batch time
  // = (p-1)/m x (compute + recompute) when the logits are negligible: 3/32 of compute.
  const auto e = estimate(pipeline_job(1, 64));
  const double m = 32, p = 4;
  const double expected = (p - 1) / m * (e.step.compute + e.step.recompute).value();
  EXPECT_NEAR(e.step.bubble.value(), expected, 0.01 * expected);
}

TEST(StepEstimate, InterleavingTwoChunksHalvesBubble) {
  // (p-1)/v: v = 2 gives half the bubble of v = 1, all else equal.
  const auto e1 = estimate(pipeline_job(1, 64));
  const auto e2 = estimate(pipeline_job(2, 64));
  EXPECT_NEAR(e2.step.bubble.value(), e1.step.bubble.value() / 2, 1e-9 * e1.step.bubble.value());
  EXPECT_NEAR(e2.step.compute.value(), e1.step.compute.value(), 1e-9 * e1.step.compute.value());
}

TEST(StepEstimate, DoublingGlobalBatchHalvesBubbleShareOfCompute) {
  // Bubble is fixed at (p-1) slots while compute grows with m: bubble/compute = (p-1)/m halves.
  const auto e1 = estimate(pipeline_job(1, 64));
  const auto e2 = estimate(pipeline_job(1, 128));
  const double r1 = e1.step.bubble / e1.step.compute;
  const double r2 = e2.step.bubble / e2.step.compute;
  EXPECT_NEAR(r2, r1 / 2, 1e-9 * r1);
  // And as a share of the step it falls by roughly half ((p-1)/(m+p-1): 3/35 -> 3/67).
  EXPECT_NEAR((e2.step.bubble / e2.step_time) / (e1.step.bubble / e1.step_time), 35.0 / 67.0, 0.05);
}

TEST(StepEstimate, MfuIsModelFlopsRateOverPeak) {
  // MFU = model_flops_per_token * tokens/s/GPU / peak (bf16 A100 peak 312 TFLOP/s).
  const auto e = estimate(pipeline_job(1, 64));
  EXPECT_NEAR(e.peak_per_gpu.value(), 312e12, 1.0);
  const double expected = e.model_flops_per_token * e.tokens_per_s_per_gpu / 312e12;
  EXPECT_NEAR(e.mfu, expected, 1e-12 * expected);
  EXPECT_GT(e.mfu, 0.0);
  EXPECT_LT(e.mfu, 1.0);
}

TEST(StepEstimate, TokensPerSecondIsBatchOverStepTime) {
  // tokens/step = B s = 64 * 2048; tokens/s/GPU = that / step_time / 8.
  const auto e = estimate(pipeline_job(1, 64));
  EXPECT_DOUBLE_EQ(e.tokens_per_step, 64.0 * 2048);
  EXPECT_NEAR(e.tokens_per_s_per_gpu, 64.0 * 2048 / e.step_time.value() / 8,
              1e-12 * e.tokens_per_s_per_gpu);
}

TEST(StepEstimate, GpuHoursAreStepsTimesStepTimeTimesGpus) {
  // steps = ceil(D / (B s)) = ceil(1e12 / 131072) = ceil(7629394.53) = 7629395 whole steps;
  // gpu_hours = steps * step_time * 8 / 3600.
  const auto e = estimate(pipeline_job(1, 64));
  const double steps = 7629395;
  EXPECT_EQ(e.steps, steps);
  const double expected = steps * e.step_time.value() * 8 / 3600;
  EXPECT_NEAR(e.gpu_hours, expected, 1e-12 * expected);
}

TEST(StepEstimate, StepTimeIsSumOfBreakdown) {
  const auto e = estimate(pipeline_job(1, 64));
  EXPECT_NEAR(e.step_time.value(), e.step.total().value(), 1e-15);
}

TEST(StepEstimate, Fp8OnGpuWithoutFp8PeakIsAnError) {
  // The A100 catalog entry has no fp8 peak.
  auto j = pipeline_job(1, 64);
  j.precision = catalog::Precision::kFp8;
  auto e = estimate_training(j);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, core::ErrorCode::kInvalidInput);
  EXPECT_EQ(e.error().context, "training.precision");
  EXPECT_NE(e.error().message.find("fp8"), std::string::npos) << e.error().what();
}

}  // namespace
}  // namespace aicost::perf

namespace aicost::perf {
namespace {

// The data-loading term: a step reads global batch x seq x bytes per token once per loading stage
// (first and last: min(PP, 2)); a prefetching loader overlaps it with the step, so the GPUs wait
// only for what outlasts the rest of the step.
TEST(DataLoading, TheGpusWaitOnlyForTheReadThatOutlastsTheStep) {
  auto j = pipeline_job(1, 64);  // PP 4: the first and last stages load, 2 of the 8 GPUs
  j.data.bytes_per_token = 4;
  const auto fed = estimate(j);  // no read rate: the loader keeps up
  EXPECT_EQ(fed.step.data_loading.value(), 0);
  const double bytes = 64.0 * 2048 * 4 * 2;
  const auto reads = data_reads(j);
  EXPECT_DOUBLE_EQ(reads.per_step.value(), bytes);

  // A shared rate that reads the step's batch in 3 x the step: the GPUs wait 2 steps' time.
  j.data.shared = core::BytesPerSecond(bytes / (3 * fed.step_time.value()));
  const auto starved = estimate(j);
  EXPECT_NEAR(starved.step.data_loading.value(), 2 * fed.step_time.value(),
              1e-9 * fed.step_time.value());
  EXPECT_NEAR(starved.step_time.value(), 3 * fed.step_time.value(), 1e-9 * fed.step_time.value());

  // A rate that reads it in half a step: no wait.
  j.data.shared = core::BytesPerSecond(bytes / (0.5 * fed.step_time.value()));
  EXPECT_EQ(estimate(j).step.data_loading.value(), 0);

  // Per node: the loading stages' GPUs sit on whole nodes (here, 2 GPUs of one node: 1 node).
  j.data.shared = core::BytesPerSecond(0);
  j.data.per_node = core::BytesPerSecond(1e5);  // 10.5 s, above the 3.8 s step
  EXPECT_EQ(data_reads(j).reading_nodes, 1);
  EXPECT_NEAR(estimate(j).step_time.value(), bytes / 1e5, 1e-9 * bytes / 1e5);
}

// Qwen3-30B-A3B (48 MoE layers, 128 experts) on 8 B200 with EP 8: 16 experts per GPU. Megatron's
// alltoall dispatcher syncs the host before its all-to-all, so each MoE layer of each micro-batch
// pays moe_sync_expert_overhead per local expert: 48 x 16 x 64 micro-batches x 100 us = 4.9152 s
// more per step. The flex dispatcher (DeepEP/HybridEP) does not pay it.
TEST(MoeDispatch, AlltoallHostSyncCostsPerLocalExpert) {
  auto spec = testing::builtin().model("qwen3-30b-a3b");
  ASSERT_TRUE(spec);
  auto j = testing::make_job(**spec, "b200-sxm-180gb", 8, 4096, 512);
  j.parallel.expert = 8;
  j.parallel.micro_batch = 1;  // 512 / 8 = 64 micro-batches per GPU
  j.precision = catalog::Precision::kBf16;
  j.efficiency.moe_sync_expert_overhead = core::seconds(0);
  const double base = estimate(j).step_time.value();
  j.efficiency.moe_sync_expert_overhead = core::seconds(100e-6);
  EXPECT_NEAR(estimate(j).step_time.value() - base, 48 * 16 * 64 * 100e-6, 1e-9);
  j.parallel.moe_dispatcher = workload::MoeDispatcher::kFlex;
  auto flex = j;
  flex.efficiency.moe_sync_expert_overhead = core::seconds(0);
  EXPECT_NEAR(estimate(j).step_time.value(), estimate(flex).step_time.value(), 1e-12);
}

// DeepSeek-V3 with EP 32 over four 8-GPU nodes: DeepEP sends a token once per node holding any of
// its experts (~2.7 of 3 other nodes) where the alltoall dispatcher sends one copy per expert (6 of
// 8 leave the node), and at DeepEP's share of the NIC: the EP time falls by more than half.
TEST(MoeDispatch, FlexDispatcherCutsCrossNodeExpertTraffic) {
  auto spec = testing::builtin().model("deepseek-v3");
  ASSERT_TRUE(spec);
  auto j = testing::make_job(**spec, "b200-sxm-180gb", 256, 4096, 4096);
  j.parallel.pipeline = 8;
  j.parallel.expert = 32;
  j.precision = catalog::Precision::kBf16;
  const auto a2a = estimate(j);
  j.parallel.moe_dispatcher = workload::MoeDispatcher::kFlex;
  const auto flex = estimate(j);
  EXPECT_GT(a2a.step.ep_comm.value(), 0);
  EXPECT_LT(flex.step.ep_comm.value(), 0.5 * a2a.step.ep_comm.value());
}

}  // namespace
}  // namespace aicost::perf

#include "aicost/perf/memory.h"

#include <gtest/gtest.h>

#include "perf_fixture.h"

// Korthikanti et al. 2022 Table 2 (training-model.md §3.2) and model-state bytes per parameter
// (§3.1). GPT-3 175B shape: s=2048, b=1, h=12288, a=96, t=8.

namespace aicost::perf {
namespace {

using testing::classic_gpt;
using testing::make_job;
using workload::AttentionKernel;
using workload::OptimizerSharding;
using workload::Recompute;

constexpr double s = 2048, b = 1, h = 12288, a = 96, t = 8;
constexpr double sbh = s * b * h;
constexpr double kRel = 1e-12;

workload::TrainingJob gpt175b(bool sp, Recompute rc) {
  auto j = make_job(classic_gpt(96, 12288, 96), "a100-sxm4-80gb", 64, 2048, 64);
  j.parallel.tensor = 8;
  j.parallel.pipeline = 8;
  j.parallel.sequence_parallel = sp;
  j.parallel.recompute = rc;
  j.parallel.attention = AttentionKernel::kUnfused;
  return j;
}

TEST(ActivationBytes, TensorParallelNoRecompute) {
  // sbh (10 + 24/t + 5 a s / (h t)) = sbh (10 + 3 + 10) = 23 sbh.
  const double expected = sbh * (10 + 24 / t + 5 * a * s / (h * t));
  EXPECT_NEAR(activation_bytes_per_layer(gpt175b(false, Recompute::kNone), false), expected,
              expected * kRel);
}

TEST(ActivationBytes, TensorPlusSequenceParallel) {
  // sbh (34 + 5 a s / h) / t.
  const double expected = sbh * (34 + 5 * a * s / h) / t;
  EXPECT_NEAR(activation_bytes_per_layer(gpt175b(true, Recompute::kNone), false), expected,
              expected * kRel);
}

TEST(ActivationBytes, TensorParallelSelectiveRecompute) {
  // sbh (10 + 24/t).
  const double expected = sbh * (10 + 24 / t);
  EXPECT_NEAR(activation_bytes_per_layer(gpt175b(false, Recompute::kSelective), false), expected,
              expected * kRel);
}

TEST(ActivationBytes, TensorSequenceParallelSelectiveRecompute) {
  // 34 sbh / t.
  const double expected = 34 * sbh / t;
  EXPECT_NEAR(activation_bytes_per_layer(gpt175b(true, Recompute::kSelective), false), expected,
              expected * kRel);
}

TEST(ActivationBytes, FullRecomputeWithSequenceParallel) {
  // Only the layer input is kept, sharded by SP: 2 sbh / t.
  const double expected = 2 * sbh / t;
  EXPECT_NEAR(activation_bytes_per_layer(gpt175b(true, Recompute::kFull), false), expected,
              expected * kRel);
}

TEST(ActivationBytes, NoParallelismNoRecompute) {
  // t = 1: sbh (34 + 5 a s / h).
  auto j = gpt175b(false, Recompute::kNone);
  j.parallel.tensor = 1;
  const double expected = sbh * (34 + 5 * a * s / h);
  EXPECT_NEAR(activation_bytes_per_layer(j, false), expected, expected * kRel);
}

// Model states on one GPU of a t=1, p=1 job: all parameters are local.
double state_bytes_per_param(OptimizerSharding sharding, int dp) {
  auto j = make_job(classic_gpt(4, 1024, 16, 32000), "a100-sxm4-80gb", dp, 1024, dp);
  j.parallel.sharding = sharding;
  j.parallel.grad_reduce_in_fp32 = true;
  const auto mem = estimate_memory(j);
  const double params = local_params(j).dense;
  // local_params leaves out the final norm (h = 1024 params of 1.16e8): within 1e-4.
  EXPECT_NEAR(params, j.model.params_total(), 1e-4 * params);
  return (mem.weights + mem.gradients + mem.optimizer).value() / params;
}

TEST(ModelStates, MegatronWithoutDistributedOptimizerIs18BytesPerParam) {
  // bf16 weights 2 + fp32 grads 4 + fp32 master 4 + Adam m, v 8 = 18, independent of d.
  EXPECT_NEAR(state_bytes_per_param(OptimizerSharding::kNone, 8), 18.0, 1e-9);
}

TEST(ModelStates, DistributedOptimizerIs6Plus12OverD) {
  // 2 + 4 + 12/d; d = 8 -> 7.5.
  EXPECT_NEAR(state_bytes_per_param(OptimizerSharding::kZero1, 8), 6.0 + 12.0 / 8, 1e-9);
  EXPECT_NEAR(state_bytes_per_param(OptimizerSharding::kZero1, 32), 6.0 + 12.0 / 32, 1e-9);
}

TEST(ModelStates, Bf16OptimizerStatesAre8BytesPerParam) {
  // Precision-aware optimizer: fp32 master 4 + bf16 Adam m 2 + bf16 v 2 = 8 bytes per param,
  // instead of 12; sharded over d = 8 by the distributed optimizer: 8 / 8 = 1 byte per param.
  auto j = make_job(classic_gpt(4, 1024, 16, 32000), "a100-sxm4-80gb", 8, 1024, 8);
  j.parallel.sharding = OptimizerSharding::kZero1;
  const double fp32 = estimate_memory(j).optimizer.value();
  j.parallel.bf16_optimizer_states = true;
  const auto mem = estimate_memory(j);
  const double params = local_params(j).dense;
  EXPECT_NEAR(mem.optimizer.value() / params, 8.0 / 8, 1e-12);
  EXPECT_NEAR(mem.optimizer.value() / fp32, 8.0 / 12, 1e-12);
}

TEST(ModelStates, Fp8ParamGatherKeepsLayerWeightsInOneByte) {
  // t = 1, p = 1, no sharding: the transformer layers' weights take 1 byte per param, the
  // embedding, untied output layer and final norm keep 2: weights = 1 x all + 1 x (V h + V h + h).
  auto j = make_job(classic_gpt(4, 1024, 16, 32000), "a100-sxm4-80gb", 8, 1024, 8);
  j.precision = catalog::Precision::kFp8;
  j.parallel.fp8_param_gather = true;
  const auto mem = estimate_memory(j);
  const double all = j.model.params_total();
  const double outside = 32000.0 * 1024 + j.model.output_params() + 1024;
  const double expected = all + outside;
  // params_total vs the layer sum: within the final norm (1e-5 of the total).
  EXPECT_NEAR(mem.weights.value(), expected, 1e-4 * expected);
  // The layers alone (4 (12 h^2 + 13 h) for a classic GPT with biases) moved from 2 to 1 byte.
  j.parallel.fp8_param_gather = false;
  const double saved = estimate_memory(j).weights.value() - mem.weights.value();
  const double h = 1024;
  EXPECT_NEAR(saved, 4 * (12 * h * h + 13 * h), 1e-3 * saved);
}

workload::TrainingJob one_trillion(Recompute rc) {
  // Korthikanti 1T: 128 layers, h=25600, a=160, t=8, p=64 on 512 A100-80GB, b=1, s=2048.
  auto j = make_job(classic_gpt(128, 25600, 160), "a100-sxm4-80gb", 512, 2048, 512);
  j.parallel.tensor = 8;
  j.parallel.pipeline = 64;
  j.parallel.sequence_parallel = false;
  j.parallel.recompute = rc;
  j.parallel.attention = AttentionKernel::kUnfused;
  return j;
}

TEST(MemoryFit, OneTrillionWithoutRecomputeDoesNotFit) {
  // Per layer 21 sbh = 21 * 2048 * 25600 B = 1.10 GB; 2 layers per stage x 64 micro-batches in
  // flight = 141 GB of activations alone > 80 GiB (Korthikanti Fig. 1: needs recompute).
  const auto mem = estimate_memory(one_trillion(Recompute::kNone));
  EXPECT_GT(mem.activations.value(), 1.3e11);
  EXPECT_FALSE(mem.fits());
}

TEST(MemoryFit, OneTrillionWithFullRecomputeFits) {
  // Activations 2 sbh x 128 = 13.4 GB (+1 layer 1.1 GB); states 1.0T/512 params x (6 + 12) B
  // = 35 GB (d = 1) -> about 50 GB + overhead < 80 GiB.
  const auto mem = estimate_memory(one_trillion(Recompute::kFull));
  EXPECT_TRUE(mem.fits()) << mem.total().value() / 1e9 << " GB";
}

}  // namespace
}  // namespace aicost::perf

namespace aicost::perf {
namespace {

// A breakdown of `gib` GiB (all in activations) on an 80 GiB GPU with the given margin.
MemoryBreakdown breakdown(double gib, double margin) {
  MemoryBreakdown m;
  m.activations = core::gib(gib);
  m.capacity = core::gib(80);
  m.margin = margin;
  return m;
}

TEST(MemoryVerdict, TightWithinTheMarginRefusedBeyondIt) {
  // Margin 5 %: up to 80 x 1.05 = 84 GiB is tight, beyond is refused.
  EXPECT_STREQ(breakdown(79.9, 0.05).verdict(), "fits");
  EXPECT_STREQ(breakdown(83.9, 0.05).verdict(), "tight");
  EXPECT_FALSE(breakdown(83.9, 0.05).refused());
  EXPECT_STREQ(breakdown(84.1, 0.05).verdict(), "does not fit");
  EXPECT_TRUE(breakdown(84.1, 0.05).refused());
  // No margin: nothing is tight.
  EXPECT_STREQ(breakdown(80.1, 0.0).verdict(), "does not fit");
}

TEST(MemoryVerdict, EstimateCarriesTheJobsMargin) {
  auto j = testing::make_job(testing::classic_gpt(24, 2048, 16), "a100-sxm4-80gb", 8, 2048, 64);
  j.memory_margin = 0.07;
  EXPECT_EQ(estimate_memory(j).margin, 0.07);
}

}  // namespace
}  // namespace aicost::perf

// FP8 training terms of the layer model: each FP8 GEMM's forward input and backward output
// gradient pay a memory-bound cast (fp8_cast_bytes per element), and the output layer stays BF16.
// Expected values are derived here from the GEMM shapes of a GPT layer, not from the model code.
#include <gtest/gtest.h>

#include "../../../src/perf/layer_time.h"
#include "aicost/workload/training_job.h"
#include "test_support.h"

namespace aicost::perf {
namespace {

workload::TrainingJob gpt3_fp8(double cast_bytes) {
  const auto& cat = testing::builtin_catalog();
  workload::TrainingJob job;
  job.model = *workload::Model::create(**cat.model("gpt3-175b"));
  job.cluster = workload::Cluster::of(**cat.gpu("h100-sxm-80gb"), 8);
  job.efficiency = **cat.efficiency("hopper");
  job.efficiency.fp8_cast_bytes = cast_bytes;
  job.precision = catalog::Precision::kFp8;
  job.seq_length = 2048;
  job.parallel.tensor = 8;
  job.parallel.micro_batch = 1;
  return job;
}

// GPT-3: MHA and a GeLU MLP with f = 4h. Per token, the four GEMMs cast (n + k) elements each:
// QKV (3h/t + h), projection (h + h/t), fc1 (4h/t + h), fc2 (h + 4h/t) = 4h + 12h/t.
TEST(Fp8Terms, EveryFp8GemmOperandPaysItsCast) {
  const auto with = gpt3_fp8(4), without = gpt3_fp8(0);
  const double h = 12288, t = 8, tokens = 2048;
  const double elements = tokens * (4 * h + 12 * h / t);
  const auto& gpu = with.cluster.gpu;
  const double expected = elements * 4 / (gpu.memory_bandwidth.value() * with.efficiency.memory_bound);
  const double got = (layer_time(with, false).compute - layer_time(without, false).compute).value();
  EXPECT_NEAR(got, expected, expected * 1e-9);
  // BF16 training casts nothing.
  auto bf16 = with;
  bf16.precision = catalog::Precision::kBf16;
  auto bf16_no_cast = bf16;
  bf16_no_cast.efficiency.fp8_cast_bytes = 0;
  EXPECT_EQ(layer_time(bf16, false).compute.value(), layer_time(bf16_no_cast, false).compute.value());
}

// Megatron's output layer is not a Transformer Engine FP8 module: its GEMM runs at BF16 speed.
TEST(Fp8Terms, OutputLayerStaysBf16) {
  const auto fp8 = gpt3_fp8(4);
  auto bf16 = fp8;
  bf16.precision = catalog::Precision::kBf16;
  EXPECT_DOUBLE_EQ(logits_time(fp8).compute.value(), logits_time(bf16).compute.value());
  // A transformer-block GEMM does run faster in FP8.
  EXPECT_LT(gemm_time(fp8, 2048, 4608, 12288).value(), gemm_time(bf16, 2048, 4608, 12288).value());
}

}  // namespace
}  // namespace aicost::perf

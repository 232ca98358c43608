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
  const double expected =
      elements * 4 / (gpu.memory_bandwidth.value() * with.efficiency.memory_bound);
  const double got = (layer_time(with, false).compute - layer_time(without, false).compute).value();
  EXPECT_NEAR(got, expected, expected * 1e-9);
  // BF16 training casts nothing.
  auto bf16 = with;
  bf16.precision = catalog::Precision::kBf16;
  auto bf16_no_cast = bf16;
  bf16_no_cast.efficiency.fp8_cast_bytes = 0;
  EXPECT_EQ(layer_time(bf16, false).compute.value(),
            layer_time(bf16_no_cast, false).compute.value());
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

// An FP8 GEMM's epilogue does not speed up with its K loop: the FP8 share of the doubled peak is
// fp8_gemm_relative * K / (K + fp8_gemm_half_k), so the FP8 gain over BF16 grows with K, and a
// layer's backward GEMMs pay it at their own K (data gradient K = N, weight gradient K = rows).
TEST(Fp8Terms, Fp8GainGrowsWithK) {
  auto fp8 = gpt3_fp8(0);
  fp8.efficiency.fp8_gemm_relative = 0.9;
  fp8.efficiency.fp8_gemm_half_k = 256;
  auto bf16 = fp8;
  bf16.precision = catalog::Precision::kBf16;
  auto gain = [&](double m, double n, double k) {
    return gemm_time(bf16, m, n, k).value() / gemm_time(fp8, m, n, k).value();
  };
  // BF16 efficiency is symmetric in M, N, K, so the gain is (FP8 peak / BF16 peak, ~2) x 0.9 x
  // K / (K + 256) exactly.
  const auto& gpu = fp8.cluster.gpu;
  const double peaks =
      gpu.peak(catalog::Precision::kFp8)->value() / gpu.peak(catalog::Precision::kBf16)->value();
  EXPECT_NEAR(gain(4096, 4096, 1024), peaks * 0.9 * 1024 / 1280, 1e-9);
  EXPECT_NEAR(gain(4096, 4096, 8192), peaks * 0.9 * 8192 / 8448, 1e-9);
  // A dense GPT-3 layer (TP 8, 2048 rows): each GEMM runs forward (K = k), data gradient (K = n)
  // and weight gradient (K = rows); the layer's GEMM time is the sum of the twelve.
  const double h = 12288, t = 8, rows = 2048;
  const double shapes[4][2] = {
      {3 * h / t, h}, {h, h / t}, {4 * h / t, h}, {h, 4 * h / t}};  // {n, k}
  double expected = 0;
  for (const auto& nk : shapes) {
    expected += gemm_time(fp8, rows, nk[0], nk[1]).value() +
                gemm_time(fp8, rows, nk[1], nk[0]).value() +
                gemm_time(fp8, nk[0], nk[1], rows).value();
  }
  auto no_gemm = fp8;
  no_gemm.efficiency.gemm_max = 1e12;  // GEMMs take no time: what is left is the rest of the layer
  const double rest = layer_time(no_gemm, false).compute.value();
  EXPECT_NEAR(layer_time(fp8, false).compute.value() - rest, expected, expected * 1e-6);
}

}  // namespace
}  // namespace aicost::perf

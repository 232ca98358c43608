// The serving replica model in closed form (../shared/reference/inference-model.md §1).
#include <gtest/gtest.h>

#include <cmath>

#include "aicost/serving/replica.h"
#include "replica_support.h"

namespace aicost::serving {
namespace {

using catalog::Precision;

using testing::preset;

constexpr double kKiB = 1024;

// 2 L g d_h bytes: Llama-2/3-70B 2 x 80 x 8 x 128 x 2 B = 320 KiB; 160 KiB with an fp8 cache.
TEST(KvCache, Llama3_70bIs320KiBPerToken) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("llama3-70b"), Precision::kBf16).value(), 320 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("llama3-70b"), Precision::kFp8).value(), 160 * kKiB);
}

// Mixtral-8x7B: 2 x 32 x 8 x 128 x 2 B = 128 KiB; Llama-2-7B (MHA): 2 x 32 x 32 x 128 x 2 = 512
// KiB.
TEST(KvCache, MixtralAndLlama2_7b) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("mixtral-8x7b"), Precision::kBf16).value(),
                   128 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("llama2-7b"), Precision::kBf16).value(), 512 * kKiB);
}

// MLA caches the latent: 61 x (512 + 64) x 2 B = 70,272 B = 68.6 KiB, not 2 x 61 x 128 x 128 x 2.
TEST(KvCache, DeepSeekV3CachesTheLatent) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(preset("deepseek-v3"), Precision::kBf16).value(),
                   61.0 * (512 + 64) * 2);
}

Replica llama70b_h100(int tp) {
  Replica r = testing::replica_of("llama3-70b", "h100-sxm-80gb", "hopper");
  r.tensor_parallel = tp;
  return r;
}

// 70.6B bf16 parameters = 141 GB: they do not fit on one 80 GiB H100, they do on two.
TEST(Capacity, WeightsDecideWhetherAReplicaFits) {
  EXPECT_FALSE(check(llama70b_h100(1)));
  ASSERT_TRUE(check(llama70b_h100(2)));
  // TP 2: per GPU 0.9 x 80 GiB - 70.6 GB - 2 GiB workspace free; KV heads split over 2 ranks
  // (160 KiB per token per GPU).
  const auto r = llama70b_h100(2);
  const double free =
      0.9 * 80 * std::pow(1024.0, 3) - r.model.params_total() - 2 * std::pow(1024.0, 3);
  EXPECT_NEAR(kv_capacity_tokens(r), free / (160 * kKiB), 1);
}

// One read of every bf16 weight of a TP2 Llama-70B replica but the input embedding (a row gather,
// not streamed): (P - embedding) x 2 B / 2 GPUs / (HBM x share), in seconds.
double weight_read_s(const Replica& r) {
  return (r.model.params_total() - r.model.embedding_params()) * 2 / 2 /
         (r.gpu.memory_bandwidth.value() * r.efficiency.serving_decode_bandwidth);
}

// A decode step at batch 1 reads every weight once: at least weight_read_s.
TEST(Decode, Batch1IsBoundByReadingTheWeights) {
  auto r = llama70b_h100(2);
  const double step = decode_step_time(r, 1, 100).value();
  EXPECT_GE(step, weight_read_s(r));
  // KV of 100 tokens and two all-reduces per layer are small; the fixed costs per layer and per
  // sequence come on top.
  EXPECT_LT(step, weight_read_s(r) * 1.2 + 80 * r.efficiency.serving_layer_overhead.value() +
                      r.efficiency.serving_sequence_overhead.value());
}

// A short prompt's GEMMs still stream every weight they use: a one-token prefill takes at least
// the batch-1 decode read, though its FLOPs take far less.
TEST(Prefill, ShortPromptIsBoundByReadingTheWeights) {
  auto r = llama70b_h100(2);
  const double t = prefill_time(r, 1, 1).value();
  EXPECT_GE(t, weight_read_s(r));
  // Above it only by the all-reduces (latency + 16 KiB over NVLink, < 1 us) and the per-layer
  // overhead.
  EXPECT_LT(t, weight_read_s(r) + 2 * 80 * (r.efficiency.serving_allreduce_latency.value() + 1e-6) +
                   80 * r.efficiency.serving_layer_overhead.value());
}

// Leviathan et al.: 4 draft tokens accepted at 70 % give (1 - 0.7^5) / 0.3 = 2.7731 tokens a
// verify step. At batch 1 the verify step reads what a plain step reads (still bandwidth-bound),
// so a token costs (1 + 4 x 5 %) / 2.7731 = 0.4327 of a plain step.
TEST(Speculation, Batch1GainIsTokensPerStepOverDraftCost) {
  auto r = llama70b_h100(2);
  const double plain = decode_step_time(r, 1, 1000).value();
  r.speculation = {4, 0.7, 0.05};
  EXPECT_NEAR(r.speculation.tokens_per_step(), 2.77310, 1e-5);
  // Within 1 %: the verify step's all-reduces carry 5 tokens, still latency-bound.
  EXPECT_NEAR(decode_step_time(r, 1, 1000).value() / plain, 1.2 / 2.77310, 0.01);
}

// At a large batch the verify step is compute-bound: five times the GEMM work costs more than the
// 2.77 tokens it yields, and speculation slows decode down.
TEST(Speculation, LargeBatchesLoseTheGain) {
  auto r = llama70b_h100(2);
  r.weights = r.kv_cache = catalog::Precision::kFp8;
  auto speculating = r;
  speculating.speculation = {4, 0.7, 0.05};
  EXPECT_GT(decode_step_time(speculating, 512, 300).value(), decode_step_time(r, 512, 300).value());
  EXPECT_LT(decode_step_time(speculating, 1, 300).value(), decode_step_time(r, 1, 300).value());
}

// Static batch: throughput = batch x output / (prefill + output decode steps).
TEST(Batch, ThroughputIsTokensOverTime) {
  const auto r = llama70b_h100(2);
  const auto b = run_batch(r, 64, 512, 256);
  EXPECT_NEAR(b.output_tokens_per_s, 64.0 * 256 / (b.prefill + b.decode).value(), 1e-9);
  EXPECT_NEAR(b.tpot_s * 256, b.decode.value(), 1e-12);
  // Larger batches raise throughput while decode stays memory-bound.
  EXPECT_GT(run_batch(r, 128, 512, 256).output_tokens_per_s, b.output_tokens_per_s);
}

// A TP1 replica of catalog entries, without the per-layer overhead (closed forms below).
Replica replica(const char* model, const char* gpu, const char* generation) {
  Replica r = testing::replica_of(model, gpu, generation);
  r.efficiency.serving_layer_overhead = core::Seconds(0);
  return r;
}

// FP8 and NVFP4 checkpoints quantize the transformer blocks only: the embedding and output
// matrices (V = 2 x 128,256 x 8,192 for Llama 3 70B) stay 16-bit, and NVFP4 stores an E4M3 scale
// per 16 values (4.5 bits a value). Llama 3.3 70B in NVFP4 then takes (P - V) x 0.5625 + V x 2
// bytes = 68.45e9 x 0.5625 + 2.10e9 x 2 = 42.7 GB, not P / 2 = 35.3 GB.
TEST(Weights, QuantizedCheckpointsKeepTheVocabularyMatricesAt16Bit) {
  auto r = replica("llama3-70b", "b200", "blackwell");
  const double v = r.model.embedding_params() + r.model.output_params();
  const double p = r.model.params_total();
  EXPECT_NEAR(v, 2.0 * 128256 * 8192, 1);
  r.weights = Precision::kFp4;
  EXPECT_NEAR(weight_bytes_per_gpu(r).value(), (p - v) * 0.5625 + v * 2, 1);
  EXPECT_NEAR(weight_bytes_per_gpu(r).value() / 1e9, 42.7, 0.1);
  r.weights = Precision::kFp8;
  EXPECT_NEAR(weight_bytes_per_gpu(r).value(), (p - v) + v * 2, 1);
  r.weights = Precision::kBf16;
  EXPECT_NEAR(weight_bytes_per_gpu(r).value(), p * 2, 1);
}

// Attention DP splits the cache by sequence over the ranks: an MLA latent, replicated on every
// rank under TP, then takes 1/TP of each GPU's memory per token, and the attention weights stay
// whole on each rank (the MLP and experts are split): block weights per GPU = (B - A) / t + A,
// with B the transformer-block parameters; the 16-bit vocabulary matrices V split over t either
// way.
TEST(AttentionDataParallel, SplitsTheCacheBySequenceAndKeepsAttentionWhole) {
  auto r = replica("deepseek-v3", "b200", "blackwell");
  r.tensor_parallel = 8;
  r.weights = Precision::kFp4;
  r.kv_cache = Precision::kFp8;
  const double tp_capacity = kv_capacity_tokens(r);
  auto dp = r;
  dp.attention_data_parallel = true;
  const double v = r.model.embedding_params() + r.model.output_params();
  const double b = r.model.params_total() - v, a = r.model.attention_params() * r.model.layers();
  const double nvfp4 = 0.5 + 1.0 / 16;  // 4 bits and an E4M3 scale per 16 values
  EXPECT_NEAR(weight_bytes_per_gpu(r).value(), b * nvfp4 / 8 + v / 8 * 2, 1);
  EXPECT_NEAR(weight_bytes_per_gpu(dp).value(), ((b - a) / 8 + a) * nvfp4 + v / 8 * 2, 1);
  const double per_token = kv_bytes_per_token(r.model, Precision::kFp8).value();
  const double free = 0.9 * r.gpu.memory.value() - 2 * std::pow(1024.0, 3);
  EXPECT_NEAR(tp_capacity, (free - weight_bytes_per_gpu(r).value()) / per_token, 1);
  EXPECT_NEAR(kv_capacity_tokens(dp), (free - weight_bytes_per_gpu(dp).value()) / (per_token / 8),
              1);
}

// Without a grouped-query decode kernel (TensorRT-LLM before XQA) each of Llama-70B's 64 query
// heads reads its KV head: the KV part of a decode step costs 64 / 8 = 8 times as much.
TEST(Decode, KernelsWithoutGroupedQueryReuseReadTheCachePerQueryHead) {
  auto r = llama70b_h100(2);
  r.weights = r.kv_cache = Precision::kFp8;
  r.efficiency.serving_layer_overhead = core::Seconds(0);
  auto old = r;
  old.kv_read_once_per_group = false;
  // Batch 1: memory-bound; the weights part is the step at context 0 (plus all-reduces).
  const double base = decode_step_time(r, 1, 0).value();
  const double kv = decode_step_time(r, 1, 4096).value() - base;
  EXPECT_NEAR(decode_step_time(old, 1, 4096).value() - base, 8 * kv, 1e-9);
}

// At a compute-bound batch the GEMMs take their FLOP time whatever the weights; the attention
// kernels that read the KV cache come after them, so the KV bytes add to the step instead of
// hiding under the compute: step(context) - step(0) = batch x context x KV bytes per GPU / (HBM
// x share), at any batch.
TEST(Decode, KvReadsAddToComputeBoundGemms) {
  auto r = llama70b_h100(2);
  r.weights = r.kv_cache = Precision::kFp8;
  const double batch = 1024, context = 256;
  const double per_token_per_gpu = 160 * kKiB / 2;  // fp8 (160 KiB), KV heads split over TP 2
  const double kv = batch * context * per_token_per_gpu /
                    (r.gpu.memory_bandwidth.value() * r.efficiency.serving_kv_bandwidth);
  const double added =
      decode_step_time(r, batch, context).value() - decode_step_time(r, batch, 0).value();
  EXPECT_NEAR(added, kv, 1e-9);
  // The step at context 0 is compute-bound: 2 x 70.6 G x 1024 FLOPs exceed the weight reads.
  const double flops_time =
      2 * r.model.params_active() * batch /
      (r.gpu.peak(Precision::kFp8)->value() * r.efficiency.serving_prefill_mfu *
       r.efficiency.serving_fp8_prefill_relative * 2);  // x TP 2
  EXPECT_GT(flops_time,
            r.model.params_total() / 2 /
                (r.gpu.memory_bandwidth.value() * r.efficiency.serving_decode_bandwidth));
}

// Continuous batching under full load (in-flight batching with chunked prefill): each step
// generates one token of each of `batch` sequences and prefills the prompts of the batch / output
// sequences that replace those finishing, in the same step. At 8 sequences of 128 -> 128 tokens a
// step has 8 decode and 8 prefill rows; its GEMMs are still bound by the weight reads, which the
// prefill rows share, so the step costs a decode step plus only the prefill rows' causal
// attention (2 L q s FLOPs a row at the GEMM rate) and their all-reduce bytes, not a prefill of
// its own (which would read the weights again).
TEST(Continuous, PrefillRowsShareTheStepsWeightReads) {
  auto r = llama70b_h100(2);
  r.weights = r.kv_cache = Precision::kFp8;
  r.efficiency.serving_layer_overhead = core::Seconds(0);
  const double batch = 8, input = 128, output = 128, tp = 2;
  const double prefill_rows = batch * input / output;
  const double mixed = continuous_step_time(r, batch, input, output).value();
  const double decode = decode_step_time(r, batch, input + (output + 1) / 2).value();
  const double gemm_rate = r.gpu.peak(Precision::kFp8)->value() * r.efficiency.serving_prefill_mfu *
                           r.efficiency.serving_fp8_prefill_relative * tp;
  const double attention =
      2.0 * r.model.layers() * r.model.q_width() * input * prefill_rows / gemm_rate;
  // Two all-reduces per layer of hidden x 2 bytes a row, ring volume 2 (t - 1) / t, over NVLink.
  const double bus = r.gpu.scale_up_bandwidth.value() * r.efficiency.scale_up_bus;
  const double comm =
      prefill_rows * 2.0 * r.model.layers() * r.model.hidden() * 2 * (2 * (tp - 1) / tp) / bus;
  EXPECT_NEAR(mixed - decode, attention + comm, 1e-9);
  // The weight reads alone (35.3 GB per GPU) take longer than the 16 rows' GEMMs.
  EXPECT_GT(r.model.params_total() / tp /
                (r.gpu.memory_bandwidth.value() * r.efficiency.serving_decode_bandwidth),
            2 * r.model.params_active() * (batch + prefill_rows) / gemm_rate);
}

// FP4 GEMMs run at fp4_gemm_relative of the FP4 peak, FP8 at serving_fp8_prefill_relative of the
// FP8 one: a long prefill (compute-bound) on B200 takes 1 / (2 x 0.7 / 0.75) of its FP8 time
// (each with its cache in its own precision, so that attention runs at the same rate as the GEMMs).
TEST(Prefill, Fp4HasItsOwnGemmEfficiency) {
  auto r = replica("llama3-70b", "b200", "blackwell");
  r.efficiency.serving_fp8_prefill_relative = 0.75;
  r.efficiency.fp4_gemm_relative = 0.7;
  r.weights = r.kv_cache = Precision::kFp8;
  auto fp4 = r;
  fp4.weights = fp4.kv_cache = Precision::kFp4;
  EXPECT_NEAR(prefill_time(fp4, 8192, 8192).value() / prefill_time(r, 8192, 8192).value(),
              0.75 / (2 * 0.7), 1e-9);
}

// Each routed expert a GPU runs costs serving_expert_overhead per MoE layer and step, whatever its
// rows. Mixtral (32 MoE layers, 8 experts, top 2) at batch 1: a decode step touches
// 8 (1 - (1 - 2/8)^1) = 2 experts per layer, so 5 us an expert adds 32 x 2 x 5 us = 320 us; at
// batch 4, 8 (1 - 0.75^4) = 5.469 experts: 32 x 5.469 x 5 us = 875 us.
TEST(Moe, EachTouchedExpertCostsItsOverheadPerLayer) {
  auto r = replica("mixtral-8x7b", "h100-sxm-80gb", "hopper");
  r.weights = r.kv_cache = Precision::kFp8;
  r.efficiency.serving_expert_overhead = core::Seconds(0);
  auto slow = r;
  slow.efficiency.serving_expert_overhead = core::Seconds(5e-6);
  EXPECT_NEAR(decode_step_time(slow, 1, 1000).value() - decode_step_time(r, 1, 1000).value(),
              32 * 2 * 5e-6, 1e-12);
  const double touched = 8 * (1 - std::pow(0.75, 4));
  EXPECT_NEAR(decode_step_time(slow, 4, 1000).value() - decode_step_time(r, 4, 1000).value(),
              32 * touched * 5e-6, 1e-12);
}

// Under attention data parallel the ranks run expert parallelism: a GPU of a TP4 replica holds a
// quarter of the experts a step touches. Mixtral at batch 1 on 4 GPUs: 32 x 2 / 4 x 5 us = 80 us.
TEST(Moe, AttentionDataParallelSplitsTheExpertsOverTheRanks) {
  auto r = replica("mixtral-8x7b", "h100-sxm-80gb", "hopper");
  r.weights = r.kv_cache = Precision::kFp8;
  r.tensor_parallel = 4;
  r.attention_data_parallel = true;
  r.efficiency.serving_expert_overhead = core::Seconds(0);
  auto slow = r;
  slow.efficiency.serving_expert_overhead = core::Seconds(5e-6);
  EXPECT_NEAR(decode_step_time(slow, 1, 1000).value() - decode_step_time(r, 1, 1000).value(),
              32 * 2 / 4.0 * 5e-6, 1e-12);
}

// The decode attention kernels read the KV cache at serving_kv_bandwidth of HBM, not at the
// weight-streaming share. Llama 3 8B (32 layers, 8 KV heads of 128, 16-bit cache: 128 KiB a
// token) on one H100 (3.35 TB/s), batch 8: 1,000 more context tokens read 8 x 1,000 x 128 KiB =
// 1.049 GB more, 1.049e9 / (3.35e12 x 0.8) = 391 us at an 80 % share.
TEST(Decode, KvReadsStreamAtTheirOwnShare) {
  auto r = replica("llama3-8b", "h100-sxm-80gb", "hopper");
  r.efficiency.serving_kv_bandwidth = 0.8;
  ASSERT_NEAR(r.gpu.memory_bandwidth.value(), 3.35e12, 1e9);
  const double more = decode_step_time(r, 8, 2000).value() - decode_step_time(r, 8, 1000).value();
  EXPECT_NEAR(more, 8 * 1000 * 128 * kKiB / (3.35e12 * 0.8), 1e-9);
  // A step at batch 8 is bound by the weight read, so the weight share does not enter it.
  auto other = r;
  other.efficiency.serving_decode_bandwidth *= 0.9;
  EXPECT_NEAR(decode_step_time(other, 8, 2000).value() - decode_step_time(other, 8, 1000).value(),
              more, 1e-12);
}

// serving_sequence_overhead is paid once per running sequence in each forward step: at 2 us, a
// decode step of 64 sequences takes 64 x 2 us = 128 us longer, and so does the time per output
// token of a static batch of 64 (every decode step runs all 64); at batch 1, 2 us.
TEST(Decode, EachSequenceCostsItsOverheadPerStep) {
  auto r = replica("llama3-8b", "h100-sxm-80gb", "hopper");
  r.efficiency.serving_sequence_overhead = core::Seconds(0);
  auto slow = r;
  slow.efficiency.serving_sequence_overhead = core::Seconds(2e-6);
  EXPECT_NEAR(decode_step_time(slow, 64, 1000).value() - decode_step_time(r, 64, 1000).value(),
              128e-6, 1e-12);
  EXPECT_NEAR(decode_step_time(slow, 1, 1000).value() - decode_step_time(r, 1, 1000).value(), 2e-6,
              1e-12);
  EXPECT_NEAR(run_batch(slow, 64, 512, 256).tpot_s - run_batch(r, 64, 512, 256).tpot_s, 128e-6,
              1e-12);
  // Under continuous batching the step still runs 64 sequences: the same 128 us.
  EXPECT_NEAR(continuous_step_time(slow, 64, 512, 256).value() -
                  continuous_step_time(r, 64, 512, 256).value(),
              128e-6, 1e-12);
}

// Under attention DP every rank runs its own executor over its 1/TP of the sequences (TensorRT-LLM
// enable_attention_dp: max_batch_size is per rank), so their per-sequence work runs side by side:
// 64 sequences over 8 ranks at 2 us cost 8 x 2 us = 16 us a step, where one scheduler over all 64
// (plain TP8) costs 128 us.
TEST(Decode, AttentionDataParallelRanksScheduleTheirOwnSequences) {
  auto r = replica("llama3-8b", "h100-sxm-80gb", "hopper");
  r.tensor_parallel = 8;
  r.efficiency.serving_sequence_overhead = core::Seconds(0);
  auto slow = r;
  slow.efficiency.serving_sequence_overhead = core::Seconds(2e-6);
  EXPECT_NEAR(decode_step_time(slow, 64, 1000).value() - decode_step_time(r, 64, 1000).value(),
              128e-6, 1e-12);
  r.attention_data_parallel = slow.attention_data_parallel = true;
  EXPECT_NEAR(decode_step_time(slow, 64, 1000).value() - decode_step_time(r, 64, 1000).value(),
              16e-6, 1e-12);
  EXPECT_NEAR(continuous_step_time(slow, 64, 512, 256).value() -
                  continuous_step_time(r, 64, 512, 256).value(),
              16e-6, 1e-12);
}

// A decode step at batch 1 in closed form: one read of the weights but the input embedding at the
// weight share, the context's KV at the KV share, the per-layer and the per-sequence overhead
// (TP1: no all-reduce). Llama 3 8B, 16-bit, context 1,000, 52 us a layer, 2 us a sequence.
TEST(Decode, Batch1StepIsTheSumOfItsTerms) {
  auto r = replica("llama3-8b", "h100-sxm-80gb", "hopper");
  r.efficiency.serving_layer_overhead = core::Seconds(52e-6);
  r.efficiency.serving_sequence_overhead = core::Seconds(2e-6);
  const double hbm = r.gpu.memory_bandwidth.value();
  const double weights = (r.model.params_total() - r.model.embedding_params()) * 2 /
                         (hbm * r.efficiency.serving_decode_bandwidth);
  const double kv = 1000 * 128 * kKiB / (hbm * r.efficiency.serving_kv_bandwidth);
  EXPECT_NEAR(decode_step_time(r, 1, 1000).value(), weights + kv + 32 * 52e-6 + 2e-6, 1e-12);
}

}  // namespace
}  // namespace aicost::serving

namespace aicost::serving {
namespace {

// slowed(r, k) on one GPU (no TP transfer): prefill = FLOPs / (peak x share) + layers x
// overhead, a decode step = bytes / (bandwidth x efficiency) + layers x overhead; dividing the
// efficiencies and multiplying the overheads by k multiplies both times by k exactly.
TEST(Slowed, TimesOfOneGpuGrowByTheRatio) {
  Replica r = testing::replica_of("llama3-8b", "h100-sxm-80gb", "hopper");
  r.tensor_parallel = 1;
  const Replica s = slowed(r, 1.3);
  EXPECT_NEAR(prefill_time(s, 2048, 2048).value(), 1.3 * prefill_time(r, 2048, 2048).value(),
              1e-12);
  EXPECT_NEAR(decode_step_time(s, 64, 4096).value(), 1.3 * decode_step_time(r, 64, 4096).value(),
              1e-12);
}

}  // namespace
}  // namespace aicost::serving

// Context parallelism's ring attention in the layer model: c steps of one K/V block each, every
// hop of the ring hidden only behind one step's attention (attention / c), the backward passing
// K/V and dK/dV, and the forward ring again when attention is recomputed. Expected values are
// derived here from the attention FLOPs and the link, not from the model code.
#include <gtest/gtest.h>

#include "../../../src/perf/layer_time.h"
#include "aicost/workload/training_job.h"
#include "test_support.h"

namespace aicost::perf {
namespace {

// A GPT-3 175B layer (MHA: K and V are h wide) at 4k tokens on H100, TP 8, CP `cp`: the CP ring
// leaves the 8-GPU node, so each hop crosses InfiniBand.
workload::TrainingJob gpt3_cp(int cp, workload::Recompute recompute) {
  const auto& cat = testing::builtin_catalog();
  workload::TrainingJob job;
  job.model = *workload::Model::create(**cat.model("gpt3-175b"));
  job.cluster = workload::Cluster::of(**cat.gpu("h100-sxm-80gb"), 8 * cp);
  job.efficiency = **cat.efficiency("hopper");
  job.precision = catalog::Precision::kBf16;
  job.seq_length = 4096;
  job.parallel.tensor = 8;
  job.parallel.context = cp;
  job.parallel.micro_batch = 1;
  job.parallel.recompute = recompute;
  return job;
}

struct Ring {
  double hop, attn_fwd, attn_bwd;
};

// One hop: the local K and V, tokens = b s / c rows of kv / t elements in BF16, sent once over
// the GPU's NIC (scale_out_bus of its line rate) after the collective latency. Causal flash
// attention over the whole sequence for the local queries: 4 (q / t) s tokens / 2 FLOPs at
// attention_flash of the BF16 peak; the backward attention_flash_backward times that.
Ring ring_of(const workload::TrainingJob& job, double q, double kv) {
  const double t = job.parallel.tensor, s = job.seq_length, c = job.parallel.context;
  const double tokens = job.parallel.micro_batch * s / c;
  const auto& e = job.efficiency;
  const double bytes = 2 * tokens * kv / t * 2;
  const double hop = e.collective_latency.value() +
                     bytes / (job.cluster.inter_node_bandwidth.value() * e.scale_out_bus);
  const double flops = 4 * q / t * s * tokens * 0.5;
  const double fwd =
      flops / ((*job.cluster.gpu.peak(catalog::Precision::kBf16)).value() * e.attention_flash);
  return {hop, fwd, fwd * e.attention_flash_backward};
}

// GPT-3: MHA, q = kv = h.
Ring ring_of(const workload::TrainingJob& job) { return ring_of(job, 12288, 12288); }

double exposed(double comm, double hide) { return comm > hide ? comm - hide : 0; }

TEST(CpRing, EachHopHidesOnlyBehindItsOwnStep) {
  const auto job = gpt3_cp(4, workload::Recompute::kNone);
  const Ring r = ring_of(job);
  const double c = 4;
  // 3 hops forward (K, V) and 3 backward (K, V, dK, dV: twice the bytes), each against 1/4 of
  // the attention.
  const double expected =
      (c - 1) * exposed(r.hop, r.attn_fwd / c) + (c - 1) * exposed(2 * r.hop, r.attn_bwd / c);
  ASSERT_GT(expected, 0);
  EXPECT_NEAR(layer_time(job, false).cp.value(), expected, expected * 1e-9);
  // Hidden behind the whole attention instead, as if every hop overlapped every step, the ring
  // would cost less: the per-step bound is what the kernel allows.
  const double whole =
      exposed((c - 1) * r.hop, r.attn_fwd) + exposed((c - 1) * 2 * r.hop, r.attn_bwd);
  EXPECT_LT(whole, expected);
}

TEST(CpRing, RecomputedAttentionRunsTheForwardRingAgain) {
  const auto none = gpt3_cp(4, workload::Recompute::kNone);
  const Ring r = ring_of(none);
  const double forward = 3 * exposed(r.hop, r.attn_fwd / 4);
  for (auto rc : {workload::Recompute::kSelective, workload::Recompute::kFull}) {
    const double extra =
        (layer_time(gpt3_cp(4, rc), false).cp - layer_time(none, false).cp).value();
    EXPECT_NEAR(extra, forward, forward * 1e-9);
  }
}

// Llama 3.1 70B (GQA: K and V are 1,024 wide) at 8k tokens, TP 4, CP 2 inside an H100 node, as
// NeMo's recipes run it: a 4 MB hop over NVLink takes ~30 us with its latency, half the
// attention ~140 us.
TEST(CpRing, GqaAtLongSequencesHidesTheRingInsideANode) {
  const auto& cat = testing::builtin_catalog();
  workload::TrainingJob job;
  job.model = *workload::Model::create(**cat.model("llama3.1-70b"));
  job.cluster = workload::Cluster::of(**cat.gpu("h100-sxm-80gb"), 8);
  job.efficiency = **cat.efficiency("hopper");
  job.seq_length = 8192;
  job.parallel.tensor = 4;
  job.parallel.context = 2;
  job.parallel.micro_batch = 1;
  EXPECT_EQ(layer_time(job, false).cp.value(), 0);
}

// TP 4 x CP 4 = 16 GPUs: CP neighbours sit 4 ranks apart, so half the hops stay on NVLink and
// half cross the network; the lockstep ring runs at the network hop. Llama 3.1 70B at 8k tokens,
// micro-batch 2 (the same tokens per GPU as CP 2 with micro-batch 1).
TEST(CpRing, ARingThatOutgrowsTheNodeRunsAtItsNetworkHop) {
  const auto& cat = testing::builtin_catalog();
  workload::TrainingJob job;
  job.model = *workload::Model::create(**cat.model("llama3.1-70b"));
  job.cluster = workload::Cluster::of(**cat.gpu("h100-sxm-80gb"), 16);
  job.efficiency = **cat.efficiency("hopper");
  job.seq_length = 8192;
  job.parallel.tensor = 4;
  job.parallel.context = 4;
  job.parallel.micro_batch = 2;
  const Ring r = ring_of(job, 8192, 1024);  // 64 query heads, 8 K/V heads of 128
  const double expected =
      3 * exposed(r.hop, r.attn_fwd / 4) + 3 * exposed(2 * r.hop, r.attn_bwd / 4);
  ASSERT_GT(expected, 0);
  EXPECT_NEAR(layer_time(job, false).cp.value(), expected, expected * 1e-9);
}

TEST(CpRing, NoContextParallelismNoRing) {
  EXPECT_EQ(layer_time(gpt3_cp(1, workload::Recompute::kNone), false).cp.value(), 0);
}

}  // namespace
}  // namespace aicost::perf

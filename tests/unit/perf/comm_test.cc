#include "aicost/perf/comm.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "perf_fixture.h"

// NCCL bus-bandwidth convention (training-model.md §5.1): t = alpha + S * factor / busBW, with
// factor 2(n-1)/n for all-reduce (two latency terms: reduce-scatter + all-gather phases).

namespace aicost::perf {
namespace {

workload::TrainingJob cluster_job(int gpus) {
  auto j = testing::make_job(testing::classic_gpt(4, 1024, 16), "a100-sxm4-80gb", gpus, 1024, gpus);
  // Hand-set links and efficiencies so every number below is explicit.
  j.cluster.scale_up_domain = 8;
  j.cluster.gpus_per_node = 8;
  j.cluster.intra_node_bandwidth = core::gb_per_s(300);    // NVLink per direction
  j.cluster.inter_node_bandwidth = core::gbit_per_s(200);  // 25 GB/s NIC per GPU
  j.efficiency.scale_up_bus = 0.8;
  j.efficiency.scale_out_bus = 0.7;
  j.efficiency.collective_latency = core::seconds(20e-6);
  return j;
}

TEST(Collective, AllReduceInsideNvlinkDomain) {
  // n = 8, stride 1, S = 1 GB: 2 * 20 us + 1e9 * 2*7/8 / (300e9 * 0.8) = 40 us + 7.2917 ms.
  const auto j = cluster_job(8);
  const double expected = 2 * 20e-6 + 1e9 * (2.0 * 7 / 8) / (300e9 * 0.8);
  const auto t = collective_time(j, Collective::kAllReduce, Group{8, 1}, core::gb(1));
  EXPECT_NEAR(t.value(), expected, expected * 1e-12);
}

TEST(Collective, DpGroupWithOneGpuPerNodeUsesNic) {
  // 32 GPUs, TP 8 -> DP group of 4 at stride 8: one GPU per node, so one NIC per rank:
  // busBW = 25 GB/s * 0.7 = 17.5 GB/s.
  const auto j = cluster_job(32);
  const Group dp{4, 8};
  EXPECT_EQ(local_ranks(j, dp), 1);
  EXPECT_NEAR(bus_bandwidth(j, dp).value(), 25e9 * 0.7, 1.0);
  // Reduce-scatter of 2 GB: 20 us + 2e9 * 3/4 / 17.5e9.
  const double expected = 20e-6 + 2e9 * 0.75 / 17.5e9;
  EXPECT_NEAR(collective_time(j, Collective::kReduceScatter, dp, core::gb(2)).value(), expected,
              expected * 1e-12);
}

TEST(Collective, CrossNodeGroupWithEightLocalRanks) {
  // 16 ranks at stride 1 span two nodes with 8 local ranks each:
  // busBW = min(NVLink * 0.8, 8 * NIC * 0.7) = min(240, 140) GB/s = 140 GB/s.
  const auto j = cluster_job(16);
  const Group g{16, 1};
  EXPECT_EQ(local_ranks(j, g), 8);
  EXPECT_NEAR(bus_bandwidth(j, g).value(), std::min(300e9 * 0.8, 8 * 25e9 * 0.7), 1.0);
}

TEST(Collective, CrossNodeCappedByNvlink) {
  // With 100 GB/s NICs, 8 * 100 * 0.7 = 560 GB/s > NVLink 240 GB/s: NVLink caps it.
  auto j = cluster_job(16);
  j.cluster.inter_node_bandwidth = core::gb_per_s(100);
  EXPECT_NEAR(bus_bandwidth(j, Group{16, 1}).value(), 240e9, 1.0);
}

TEST(Collective, SingleRankIsFree) {
  const auto j = cluster_job(8);
  EXPECT_EQ(collective_time(j, Collective::kAllReduce, Group{1, 1}, core::gb(1)).value(), 0.0);
}

// MoE dispatch (DeepSeek-V3-like: 256 experts, top-8, EP 32 over four 8-GPU domains).
TEST(Dispatch, AllToAllSendsOneCopyPerRoutedExpert) {
  // Megatron's alltoall dispatcher permutes before the all-to-all: 8 copies per token, of which
  // 7/32 stay in the domain and 24/32 leave it.
  const auto j = cluster_job(32);
  const auto c = dispatch_copies(j, Group{32, 1}, 256, 8);
  EXPECT_NEAR(c.local, 8.0 * 7 / 32, 1e-12);
  EXPECT_NEAR(c.remote, 8.0 * 24 / 32, 1e-12);
}

TEST(Dispatch, FlexSendsOneCopyPerDestinationDomain) {
  // DeepEP/HybridEP: a token crosses to another domain once if any of its 8 experts lives there.
  // A domain holds 64 of 256 experts; P(missed) = prod_{i<8} (192 - i) / (256 - i).
  auto j = cluster_job(32);
  j.parallel.moe_dispatcher = workload::MoeDispatcher::kFlex;
  double miss_domain = 1, miss_gpu = 1;
  for (int i = 0; i < 8; ++i) {
    miss_domain *= (192.0 - i) / (256.0 - i);
    miss_gpu *= (248.0 - i) / (256.0 - i);
  }
  const auto c = dispatch_copies(j, Group{32, 1}, 256, 8);
  EXPECT_NEAR(c.remote, 3 * (1 - miss_domain), 1e-12);  // ~2.71 copies, not 6
  EXPECT_LT(c.remote, 8.0 * 24 / 32 / 2);
  // NVLink: each domain's 7 other GPUs are hit with P = 1 - miss_gpu, for 4 domains' traffic.
  EXPECT_NEAR(c.local, 4 * 7 * (1 - miss_gpu), 1e-12);
}

TEST(Dispatch, FlexInsideOneDomainDeduplicatesPerGpu) {
  // EP 8 in one domain: one NVLink copy per other GPU that holds any of the token's experts.
  auto j = cluster_job(8);
  j.parallel.moe_dispatcher = workload::MoeDispatcher::kFlex;
  const auto c = dispatch_copies(j, Group{8, 1}, 128, 8);
  double miss = 1;
  for (int i = 0; i < 8; ++i) miss *= (112.0 - i) / (128.0 - i);
  EXPECT_EQ(c.remote, 0.0);
  EXPECT_NEAR(c.local, 7 * (1 - miss), 1e-12);
}

TEST(Dispatch, FlexCrossesTheNetworkAtTheDeepEpShare) {
  // 1 GB of tokens, EP 16 over two domains, 16 experts top-1: remote copies = P(expert in the
  // other domain) = 1/2; RDMA at 25 GB/s x flex_dispatch_bus 0.86; NVLink 2 x 7 x 1/16 = 0.875
  // copies at 240 GB/s is faster, so the network decides.
  auto j = cluster_job(16);
  j.parallel.moe_dispatcher = workload::MoeDispatcher::kFlex;
  j.efficiency.flex_dispatch_bus = 0.86;
  const double expected = 20e-6 + 1e9 * 0.5 / (25e9 * 0.86);
  EXPECT_NEAR(dispatch_time(j, Group{16, 1}, 16, 1, core::gb(1)).value(), expected,
              expected * 1e-9);
}

}  // namespace
}  // namespace aicost::perf

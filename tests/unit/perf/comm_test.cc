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
  j.cluster.intra_node_bandwidth = core::gb_per_s(300);  // NVLink per direction
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

}  // namespace
}  // namespace aicost::perf

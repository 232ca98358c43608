// The ingest's telemetry by hour (src/store/sample_rollup.h): sums and counts per host, GPU, metric
// and hour, handed over hour first, the order `gpu_hourly` is written in.
#include "sample_rollup.h"

#include <gtest/gtest.h>

#include <vector>

namespace aicost::store {
namespace {

TEST(SampleRollup, SumsPerHourAndHandsThemOverHourFirst) {
  std::vector<ledger::GpuSample> samples;
  // Two hosts, two hours each, the samples host by host; two samples in host b's first hour.
  for (const char* host : {"b", "a"})
    for (ledger::UnixSeconds t : {7200 + 60, 3600 + 59, 3600 + 3599})
      for (ledger::GpuMetric m : {ledger::GpuMetric::kSmActive, ledger::GpuMetric::kGpuUtil}) {
        if (std::string(host) == "a" && t == 3600 + 3599) continue;
        ledger::GpuSample s;
        s.host = host;
        s.gpu = "0";
        s.time = t;
        s.metric = m;
        s.value = m == ledger::GpuMetric::kSmActive ? 0.25 : 1.0;
        samples.push_back(s);
      }
  SampleRollup rollup;
  rollup.add(samples);
  const auto rows = rollup.rows();
  ASSERT_EQ(rows.size(), 8u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& a = rows[i - 1];
    const auto& b = rows[i];
    EXPECT_TRUE(std::tie(a.hour, a.host, a.gpu, a.metric) <
                std::tie(b.hour, b.host, b.gpu, b.metric))
        << i;
  }
  EXPECT_EQ(rows[0].hour, 3600);
  EXPECT_EQ(rows[0].host, "a");
  EXPECT_EQ(rows[2].host, "b");
  EXPECT_EQ(rows[2].samples, 2);
  EXPECT_DOUBLE_EQ(rows[2].mean(), rows[2].metric == ledger::GpuMetric::kSmActive ? 0.25 : 1.0);
  EXPECT_EQ(rows[4].hour, 7200);
}

}  // namespace
}  // namespace aicost::store

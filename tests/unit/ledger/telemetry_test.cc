// dcgm-exporter metric names: the current DCGM field names and the 1.x-compatibility names, checked
// against the counter sets shipped with dcgm-exporter
// (../shared/data/billing-samples/nvidia-dcgm-exporter/).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "aicost/ledger/telemetry.h"
#include "ledger_test_support.h"

namespace aicost::ledger {
namespace {

constexpr GpuMetric kAll[] = {
    GpuMetric::kGpuUtil,      GpuMetric::kSmActive,   GpuMetric::kGrEngineActive,
    GpuMetric::kTensorActive, GpuMetric::kDramActive, GpuMetric::kFbUsed,
    GpuMetric::kFbFree,       GpuMetric::kPower,      GpuMetric::kEnergy};

// The field names of a dcgm-exporter counter CSV ("NAME, type, help"), commented-out ones too.
std::vector<std::string> counter_names(const std::string& file) {
  std::ifstream in(testing::samples_dir() + "nvidia-dcgm-exporter/" + file);
  EXPECT_TRUE(in) << file;
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    std::size_t i = line.find_first_not_of("# ");
    const auto comma = line.find(',');
    if (i == std::string::npos || comma == std::string::npos || comma < i) continue;
    std::string name = line.substr(i, comma - i);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    if (name.find(' ') == std::string::npos) out.push_back(name);
  }
  return out;
}

TEST(GpuMetricName, RoundTrip) {
  std::set<std::string> names;
  for (const auto m : kAll) {
    const std::string name = gpu_metric_name(m);
    EXPECT_EQ(name.rfind("DCGM_FI_", 0), 0u) << name;
    EXPECT_EQ(gpu_metric_from_name(name), m) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(kAll));
  EXPECT_STREQ(gpu_metric_name(GpuMetric::kGpuUtil), "DCGM_FI_DEV_GPU_UTIL");
  EXPECT_STREQ(gpu_metric_name(GpuMetric::kEnergy), "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
}

TEST(GpuMetricName, CurrentNames) {
  const std::map<std::string, GpuMetric> expected{
      {"DCGM_FI_DEV_GPU_UTIL", GpuMetric::kGpuUtil},
      {"DCGM_FI_PROF_SM_ACTIVE", GpuMetric::kSmActive},
      {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", GpuMetric::kGrEngineActive},
      {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", GpuMetric::kTensorActive},
      {"DCGM_FI_PROF_DRAM_ACTIVE", GpuMetric::kDramActive},
      {"DCGM_FI_DEV_FB_USED", GpuMetric::kFbUsed},
      {"DCGM_FI_DEV_FB_FREE", GpuMetric::kFbFree},
      {"DCGM_FI_DEV_POWER_USAGE", GpuMetric::kPower},
      {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", GpuMetric::kEnergy},
  };
  // Every name of the DCP counter set: the nine kept ones map, nothing else does.
  std::set<GpuMetric> seen;
  for (const auto& name : counter_names("dcp-metrics-included.csv")) {
    const auto it = expected.find(name);
    EXPECT_EQ(gpu_metric_from_name(name),
              it == expected.end() ? std::nullopt : std::optional(it->second))
        << name;
    if (it != expected.end()) seen.insert(it->second);
  }
  EXPECT_EQ(seen.size(), expected.size());
  for (const auto& name : counter_names("default-counters.csv"))
    if (!expected.count(name)) {
      EXPECT_FALSE(gpu_metric_from_name(name)) << name;
    }
}

TEST(GpuMetricName, LegacyNames) {
  const std::map<std::string, GpuMetric> expected{
      {"dcgm_gpu_utilization", GpuMetric::kGpuUtil},
      {"dcgm_fi_prof_sm_active", GpuMetric::kSmActive},
      {"dcgm_fi_prof_gr_engine_active", GpuMetric::kGrEngineActive},
      {"dcgm_fi_prof_pipe_tensor_active", GpuMetric::kTensorActive},
      {"dcgm_fi_prof_dram_active", GpuMetric::kDramActive},
      {"dcgm_fb_used", GpuMetric::kFbUsed},
      {"dcgm_fb_free", GpuMetric::kFbFree},
      {"dcgm_power_usage", GpuMetric::kPower},
      {"dcgm_total_energy_consumption", GpuMetric::kEnergy},
  };
  std::set<GpuMetric> seen;
  for (const auto& name : counter_names("1.x-compatibility-metrics.csv")) {
    const auto it = expected.find(name);
    EXPECT_EQ(gpu_metric_from_name(name),
              it == expected.end() ? std::nullopt : std::optional(it->second))
        << name;
    if (it != expected.end()) seen.insert(it->second);
  }
  EXPECT_EQ(seen.size(), expected.size());  // each 1.x name is in the shipped set
}

TEST(GpuMetricName, LookAlikesAreNotKept) {
  for (const char* name :
       {"", "DCGM_FI_DEV_FB_USED_PERCENT", "DCGM_FI_DEV_FB_TOTAL", "DCGM_FI_DEV_POWER_MGMT_LIMIT",
        "dcgm_fi_dev_gpu_util", "DCGM_FI_DEV_GPU_UTIL ", "dcgm_GPU_utilization",
        "DCGM_FI_PROF_SM_OCCUPANCY", "dcgm_gpu_temp"})
    EXPECT_FALSE(gpu_metric_from_name(name)) << "'" << name << "'";
}

// Two sources' rows of one hour are one row; the order is host, GPU, hour, metric.
TEST(MergeGpuHours, SortsAndSumsRowsOfOneHour) {
  std::vector<GpuHour> hours = {
      {"b", "0", 3600, GpuMetric::kSmActive, 0.5, 10},
      {"a", "1", 7200, GpuMetric::kGpuUtil, 0.25, 5},
      {"a", "1", 3600, GpuMetric::kSmActive, 1.0, 20},
      {"b", "0", 3600, GpuMetric::kSmActive, 1.5, 30},
      {"a", "1", 3600, GpuMetric::kGpuUtil, 2.0, 40},
      {"a", "0", 7200, GpuMetric::kSmActive, 4.0, 60},
  };
  merge_gpu_hours(hours);
  ASSERT_EQ(hours.size(), 5u);
  auto is = [](const GpuHour& h, const char* host, const char* gpu, UnixSeconds hour, GpuMetric m) {
    return h.host == host && h.gpu == gpu && h.hour == hour && h.metric == m;
  };
  EXPECT_TRUE(is(hours[0], "a", "0", 7200, GpuMetric::kSmActive));
  EXPECT_TRUE(is(hours[1], "a", "1", 3600, GpuMetric::kGpuUtil));
  EXPECT_TRUE(is(hours[2], "a", "1", 3600, GpuMetric::kSmActive));
  EXPECT_TRUE(is(hours[3], "a", "1", 7200, GpuMetric::kGpuUtil));
  EXPECT_TRUE(is(hours[4], "b", "0", 3600, GpuMetric::kSmActive));
  EXPECT_DOUBLE_EQ(hours[4].sum, 2.0);
  EXPECT_EQ(hours[4].samples, 40);
  EXPECT_DOUBLE_EQ(hours[4].mean(), 0.05);
  EXPECT_EQ(hours[0].samples, 60);
}

}  // namespace
}  // namespace aicost::ledger

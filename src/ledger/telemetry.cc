// Names of the dcgm-exporter fields the ledger keeps (../shared/reference/finops.md §9). The
// 1.x names are those of dcgm-exporter etc/1.x-compatibility-metrics.csv.
#include "aicost/ledger/telemetry.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace aicost::ledger {
namespace {

struct MetricNames {
  GpuMetric metric;
  std::string_view current;  // DCGM field name, as dcgm-exporter 2.x+ exports it
  std::string_view legacy;   // the 1.x-compatibility name
};

constexpr std::array kNames{
    MetricNames{GpuMetric::kGpuUtil, "DCGM_FI_DEV_GPU_UTIL", "dcgm_gpu_utilization"},
    MetricNames{GpuMetric::kSmActive, "DCGM_FI_PROF_SM_ACTIVE", "dcgm_fi_prof_sm_active"},
    MetricNames{GpuMetric::kGrEngineActive, "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                "dcgm_fi_prof_gr_engine_active"},
    MetricNames{GpuMetric::kTensorActive, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                "dcgm_fi_prof_pipe_tensor_active"},
    MetricNames{GpuMetric::kDramActive, "DCGM_FI_PROF_DRAM_ACTIVE", "dcgm_fi_prof_dram_active"},
    MetricNames{GpuMetric::kFbUsed, "DCGM_FI_DEV_FB_USED", "dcgm_fb_used"},
    MetricNames{GpuMetric::kFbFree, "DCGM_FI_DEV_FB_FREE", "dcgm_fb_free"},
    MetricNames{GpuMetric::kPower, "DCGM_FI_DEV_POWER_USAGE", "dcgm_power_usage"},
    MetricNames{GpuMetric::kEnergy, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                "dcgm_total_energy_consumption"},
};

}  // namespace

// Exact, case-sensitive: Prometheus metric names are, and DCGM_FI_DEV_FB_USED_PERCENT or
// dcgm_fb_used_bytes style look-alikes must not match.
std::optional<GpuMetric> gpu_metric_from_name(std::string_view name) {
  for (const auto& n : kNames)
    if (name == n.current || name == n.legacy) return n.metric;
  return std::nullopt;
}

const char* gpu_metric_name(GpuMetric m) {
  for (const auto& n : kNames)
    if (n.metric == m) return n.current.data();
  return "?";
}

void merge_gpu_hours(std::vector<GpuHour>& hours) {
  auto key = [](const GpuHour& h) { return std::tie(h.host, h.gpu, h.hour, h.metric); };
  // Stable: the rows of one hour are summed in the order read, so that a read of a window gives
  // the same sums as a longer read cut to that window (the SQL reads rows of one hour by rowid).
  std::stable_sort(hours.begin(), hours.end(),
                   [&](const GpuHour& a, const GpuHour& b) { return key(a) < key(b); });
  std::size_t out = 0;
  for (std::size_t i = 0; i < hours.size(); ++i) {
    if (out > 0 && key(hours[out - 1]) == key(hours[i])) {
      hours[out - 1].sum += hours[i].sum;
      hours[out - 1].samples += hours[i].samples;
    } else {
      if (out != i) hours[out] = std::move(hours[i]);
      ++out;
    }
  }
  hours.resize(out);
}

}  // namespace aicost::ledger

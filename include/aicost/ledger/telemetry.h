// GPU telemetry as dcgm-exporter reports it, one sample per metric, GPU and instant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/ledger/charge.h"

namespace aicost::ledger {

enum class GpuMetric {
  kGpuUtil,         // DCGM_FI_DEV_GPU_UTIL, stored as a fraction 0..1 (exported in %)
  kSmActive,        // DCGM_FI_PROF_SM_ACTIVE, fraction
  kGrEngineActive,  // DCGM_FI_PROF_GR_ENGINE_ACTIVE, fraction
  kTensorActive,    // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, fraction
  kDramActive,      // DCGM_FI_PROF_DRAM_ACTIVE, fraction
  kFbUsed,          // DCGM_FI_DEV_FB_USED, stored in bytes (exported in MiB)
  kFbFree,          // DCGM_FI_DEV_FB_FREE, bytes
  kPower,           // DCGM_FI_DEV_POWER_USAGE, watts
  kEnergy,          // DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION, joules (exported in mJ)
};

// The metric for a dcgm-exporter name (current "DCGM_FI_..." or the 1.x lower-case names such as
// "dcgm_gpu_utilization"); nullopt for metrics the ledger does not keep.
std::optional<GpuMetric> gpu_metric_from_name(std::string_view name);
const char* gpu_metric_name(GpuMetric m);  // "DCGM_FI_DEV_GPU_UTIL", ...

// One GPU's samples of one metric within one hour (the ledger's `gpu_hourly`, kept at ingest).
struct GpuHour {
  std::string host, gpu;
  UnixSeconds hour = 0;  // the hour's first second
  GpuMetric metric = GpuMetric::kGpuUtil;
  double sum = 0;  // of the samples' values
  std::int64_t samples = 0;
  double mean() const { return samples > 0 ? sum / static_cast<double>(samples) : 0.0; }
};

// `hours` sorted by host, GPU, hour and metric, with the rows of one (several sources) summed in
// the order they came.
void merge_gpu_hours(std::vector<GpuHour>& hours);

struct GpuSample {
  std::int64_t line = 0;  // where it was read
  UnixSeconds time = 0;
  GpuMetric metric = GpuMetric::kGpuUtil;
  double value = 0;  // in the unit the enum states (converted on reading)
  std::string host, gpu, uuid, model_name, ns, pod, container, job;
};

}  // namespace aicost::ledger

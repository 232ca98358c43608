// dcgm-exporter telemetry, what its Prometheus text (dcgm_text.cc) and CSV (dcgm_csv.cc) readers
// share: labels, numbers and unit conversion (../shared/reference/finops.md §9 for the fields and
// units).
#include "dcgm.h"

#include <array>
#include <charconv>
#include <cmath>

#include "cells.h"
#include "dcgm_common.h"

namespace aicost::billing {
namespace {

using dcgm::Field;

constexpr double kMiB = 1024.0 * 1024.0;
// DCGM_INT32_BLANK (dcgm_structs.h): at and above it a field holds no reading; NVML's UINT32_MAX
// (4294967295, go-dcgm #75) is one of these. Energy in mJ legitimately grows past it.
constexpr double kInt32Blank = 2147483632.0;
constexpr double kInt64Blank = 9223372036854775792.0;  // DCGM_INT64_BLANK

struct LabelRule {
  std::string_view name;
  Field field;
  int rank;  // the higher rank wins when a line has several labels for one field
};

// exported_* are dcgm-exporter's own labels when Prometheus scraped it through a Service: the plain
// names then hold the exporter's pod, so exported_* rank first. pod_name, pod_namespace and
// container_name are dcgm-exporter's --use-old-namespace (1.x) spellings.
constexpr std::array kLabels{
    LabelRule{"Hostname", Field::kHost, 1},
    LabelRule{"hostname", Field::kHost, 0},
    LabelRule{"gpu", Field::kGpu, 0},
    LabelRule{"UUID", Field::kUuid, 1},
    LabelRule{"uuid", Field::kUuid, 0},
    LabelRule{"modelName", Field::kModel, 0},
    LabelRule{"exported_namespace", Field::kNs, 2},
    LabelRule{"namespace", Field::kNs, 1},
    LabelRule{"pod_namespace", Field::kNs, 0},
    LabelRule{"exported_pod", Field::kPod, 2},
    LabelRule{"pod", Field::kPod, 1},
    LabelRule{"pod_name", Field::kPod, 0},
    LabelRule{"exported_container", Field::kContainer, 2},
    LabelRule{"container", Field::kContainer, 1},
    LabelRule{"container_name", Field::kContainer, 0},
    LabelRule{"exported_job", Field::kJob, 1},
    LabelRule{"job", Field::kJob, 0},
};

const char* exported_range(ledger::GpuMetric m) {
  switch (m) {
    case ledger::GpuMetric::kGpuUtil: return "a percentage 0-100";
    case ledger::GpuMetric::kSmActive:
    case ledger::GpuMetric::kGrEngineActive:
    case ledger::GpuMetric::kTensorActive:
    case ledger::GpuMetric::kDramActive: return "a ratio >= 0";
    case ledger::GpuMetric::kFbUsed:
    case ledger::GpuMetric::kFbFree: return "MiB >= 0";
    case ledger::GpuMetric::kPower: return "watts >= 0";
    case ledger::GpuMetric::kEnergy: return "millijoules >= 0";
  }
  return "";
}

}  // namespace

namespace dcgm {

std::string& field_of(ledger::GpuSample& g, Field f) {
  switch (f) {
    case Field::kHost: return g.host;
    case Field::kGpu: return g.gpu;
    case Field::kUuid: return g.uuid;
    case Field::kModel: return g.model_name;
    case Field::kNs: return g.ns;
    case Field::kPod: return g.pod;
    case Field::kContainer: return g.container;
    case Field::kJob: return g.job;
  }
  return g.job;
}

void Labels::set(std::string_view name, std::string_view value) {
  if (value.empty()) return;
  for (const auto& r : kLabels) {
    if (r.name != name) continue;
    auto& rank = rank_[static_cast<std::size_t>(r.field)];
    if (r.rank > rank) {
      rank = r.rank;
      field_of(g_, r.field).assign(value);
    }
    return;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (blank(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<double> parse_number(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

void warn_garbage(IssueLog& log, std::int64_t line, ledger::GpuMetric m, std::string_view text) {
  log.warn_repeated(
      line, "value", std::string("garbage ") + ledger::gpu_metric_name(m),
      quote_cell(text) + " is not a reading of " + ledger::gpu_metric_name(m) + " (" +
          exported_range(m) +
          "; dcgm-exporter reports garbage such as 4294967295 when the driver has no value); "
          "the sample is skipped");
}

void warn_no_gpu(IssueLog& log, const ledger::GpuSample& g) {
  if (g.gpu.empty() && g.uuid.empty())
    log.warn_repeated(
        g.line, "gpu", "no gpu",
        "the sample has no gpu or UUID label; loaded, but it cannot be told apart from other GPUs");
}

}  // namespace dcgm

std::optional<double> convert_dcgm_value(ledger::GpuMetric m, double v) {
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  switch (m) {
    case ledger::GpuMetric::kGpuUtil:
      if (v > 100) return std::nullopt;
      return v / 100;
    case ledger::GpuMetric::kSmActive:
    case ledger::GpuMetric::kGrEngineActive:
    case ledger::GpuMetric::kTensorActive:
    case ledger::GpuMetric::kDramActive:
      // Kept above 1: SM_ACTIVE reads > 1.0 on MIG (DCGM #152); a blank is far above.
      if (v >= kInt32Blank) return std::nullopt;
      return v;
    case ledger::GpuMetric::kFbUsed:
    case ledger::GpuMetric::kFbFree:
      if (v >= kInt32Blank) return std::nullopt;
      return v * kMiB;
    case ledger::GpuMetric::kPower:
      if (v >= kInt32Blank) return std::nullopt;
      return v;
    case ledger::GpuMetric::kEnergy:
      if (v >= kInt64Blank) return std::nullopt;
      return v / 1000;
  }
  return std::nullopt;
}

}  // namespace aicost::billing

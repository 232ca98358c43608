// GPU telemetry by hour, as an ingest writes `gpu_hourly` beside the raw samples: per host, GPU,
// metric and hour, the sum and count of the samples. Reports and detectors read these (30 days of
// per-minute samples for 1,024 GPUs is 44M rows per metric; their hours are 0.7M).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "aicost/ledger/telemetry.h"

namespace aicost::store {

class SampleRollup {
 public:
  void add(std::span<const ledger::GpuSample> samples);
  std::vector<ledger::GpuHour> rows() const;  // sorted by host, GPU, hour, metric
  void clear() { hours_.clear(); }

 private:
  using Key = std::tuple<std::string, std::string, ledger::UnixSeconds, int>;  // host, gpu, hour, metric
  std::map<Key, std::pair<double, std::int64_t>> hours_;                      // sum, samples
};

}  // namespace aicost::store

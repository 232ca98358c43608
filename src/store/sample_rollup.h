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
  // Sorted by hour, host, GPU and metric: written in this order, a window of hours is one run of
  // the table, so reading it through the index on hour does not seek all over the file (7 of 30
  // days for 1,024 GPUs: 0.50 s with the rows by host, against 0.10 s for a scan of them all).
  std::vector<ledger::GpuHour> rows() const;
  void clear() { hours_.clear(); }

 private:
  using Key =
      std::tuple<ledger::UnixSeconds, std::string, std::string, int>;  // hour, host, gpu, metric
  std::map<Key, std::pair<double, std::int64_t>> hours_;               // sum, samples
};

}  // namespace aicost::store

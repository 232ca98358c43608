// dcgm-exporter telemetry: the Prometheus text a scrape of :9400/metrics returns, and the same
// samples as CSV (one row per sample: metric, labels, value). The readers are in dcgm_text.cc and
// dcgm_csv.cc; what they share (dcgm_common.h) and convert_dcgm_value in dcgm.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/billing/reader.h"
#include "aicost/core/csv.h"
#include "cells.h"
#include "text_reader.h"

namespace aicost::billing {

// Prometheus text exposition format 0.0.4, fed in chunks of any size. Samples of metrics the
// ledger keeps (ledger::gpu_metric_from_name) go to the sink with units converted; other metrics
// are counted and skipped; malformed lines become error issues and are skipped.
class DcgmTextReader final : public TextReader {
 public:
  // `scrape_time`: the time of samples that carry no timestamp of their own.
  DcgmTextReader(const Sink& sink, IssueLog& log, ledger::UnixSeconds scrape_time);
  core::Status feed(std::string_view bytes) override;
  core::Status finish() override;
  std::int64_t records() const override { return records_; }    // sample lines read
  std::int64_t loaded() const override { return loaded_; }      // handed to the sink
  std::int64_t rejected() const override { return rejected_; }  // malformed

 private:
  core::Status line(std::string_view text);
  const Sink& sink_;
  IssueLog& log_;
  ledger::UnixSeconds scrape_time_;
  std::string partial_, repaired_;
  std::int64_t line_no_ = 0, records_ = 0, loaded_ = 0, rejected_ = 0;
};

// The CSV form: a header naming `metric` and `value` columns, label columns by name (Hostname,
// gpu, UUID, modelName, namespace, pod, container, job), optionally `timestamp` (RFC 3339 or
// Unix seconds/milliseconds) and `labels_json` with every label.
class DcgmCsvReader {
 public:
  DcgmCsvReader(ledger::UnixSeconds default_time) : default_time_(default_time) {}
  core::Status header(const std::vector<std::string_view>& names, IssueLog& log);
  // false: not loaded (an issue says why, or the metric is not one the ledger keeps: `skipped`).
  bool row(const CsvRecord& rec, ledger::GpuSample& out, IssueLog& log, bool& skipped);

 private:
  ledger::UnixSeconds default_time_;
  int metric_ = -1, value_ = -1, time_ = -1, host_ = -1, gpu_ = -1, uuid_ = -1, model_ = -1,
      ns_ = -1, pod_ = -1, container_ = -1, job_ = -1, labels_ = -1;
};

// Converts an exported value to the unit ledger::GpuMetric states (percent -> fraction,
// MiB -> bytes, mJ -> J). nullopt for values the exporter reports as garbage (GPU_UTIL
// 4294967295, negative fractions).
std::optional<double> convert_dcgm_value(ledger::GpuMetric m, double exported);

}  // namespace aicost::billing

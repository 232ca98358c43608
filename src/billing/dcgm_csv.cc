// dcgm-exporter samples as CSV: one row per sample (metric, labels, value), as Datadog and other
// collectors export them.
#include <array>
#include <cmath>
#include <utility>

#include "cells.h"
#include "dcgm.h"
#include "dcgm_common.h"
#include "dialect.h"

namespace aicost::billing {
namespace {

using dcgm::Field;
using dcgm::field_of;
using dcgm::Labels;
using dcgm::parse_number;
using dcgm::trim;
using dcgm::warn_garbage;
using dcgm::warn_no_gpu;

}  // namespace

core::Status DcgmCsvReader::header(const std::vector<std::string_view>& names, IssueLog& log) {
  Columns cols(names);
  metric_ = cols.find({"metric", "__name__"});
  value_ = cols.find({"value"});
  if (metric_ < 0 || value_ < 0)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            std::string("not a dcgm-exporter CSV: no '") +
                                (metric_ < 0 ? "metric" : "value") + "' column");
  time_ = cols.find({"timestamp", "time"});
  // Where both a plain and an exported_* column exist, the exported one is the workload's.
  host_ = cols.find({"Hostname", "hostname"});
  gpu_ = cols.find({"gpu"});
  uuid_ = cols.find({"UUID", "uuid"});
  model_ = cols.find({"modelName"});
  ns_ = cols.find({"exported_namespace", "namespace", "pod_namespace"});
  pod_ = cols.find({"exported_pod", "pod", "pod_name"});
  container_ = cols.find({"exported_container", "container", "container_name"});
  job_ = cols.find({"exported_job", "job"});
  labels_ = cols.find({"labels_json", "labels"});
  return cols.check_duplicates(log);
}

bool DcgmCsvReader::row(const CsvRecord& rec, ledger::GpuSample& out, IssueLog& log,
                        bool& skipped) {
  skipped = false;
  const auto name = trim(cell(rec, metric_));
  if (name.empty()) {
    log.error(rec.line, "metric", "no metric name");
    return false;
  }
  const auto metric = ledger::gpu_metric_from_name(name);
  if (!metric) {
    skipped = true;
    return false;
  }
  const auto text = trim(cell(rec, value_));
  const auto exported = parse_number(text);
  if (!exported) {
    log.error(rec.line, "value", quote_cell(text) + " is not a number");
    return false;
  }
  const auto value = convert_dcgm_value(*metric, *exported);
  if (!value) {
    warn_garbage(log, rec.line, *metric, text);
    skipped = true;
    return false;
  }
  out = ledger::GpuSample{};
  out.line = rec.line;
  out.metric = *metric;
  out.value = *value;
  out.time = default_time_;
  const auto when = trim(cell(rec, time_));
  bool out_of_range = false;
  if (!is_null(when)) {
    if (const auto n = parse_number(when); n && std::isfinite(*n)) {
      // Unix seconds, or milliseconds as Prometheus writes them (1e11 s is the year 5138).
      const double seconds = std::floor(std::abs(*n) >= 1e11 ? *n / 1000 : *n);
      if (!time_in_range(seconds)) {
        log.error(rec.line, "timestamp",
                  quote_cell(when) + " is " + time_out_of_range(seconds > 0));
        return false;
      }
      out.time = static_cast<ledger::UnixSeconds>(seconds);
    } else if (const auto t = parse_datetime(when, nullptr, &out_of_range)) {
      out.time = *t;
    } else {
      log.error(
          rec.line, "timestamp",
          not_a_datetime(when, out_of_range, "a time (RFC 3339, or Unix seconds or milliseconds)"));
      return false;
    }
  }
  // labels_json carries every label; the label columns, when filled, win.
  Labels labels(out);
  const auto json = trim(cell(rec, labels_));
  if (!is_null(json)) {
    if (const auto tags = parse_tag_object(json)) {
      for (const auto& t : tags->tags) labels.set(t.key, t.value);
    } else {
      log.warn_repeated(rec.line, "labels_json", "not json",
                        "not a JSON object of labels; the label columns are used");
    }
  }
  const std::array columns{std::pair{host_, Field::kHost},
                           std::pair{gpu_, Field::kGpu},
                           std::pair{uuid_, Field::kUuid},
                           std::pair{model_, Field::kModel},
                           std::pair{ns_, Field::kNs},
                           std::pair{pod_, Field::kPod},
                           std::pair{container_, Field::kContainer},
                           std::pair{job_, Field::kJob}};
  for (const auto& [index, field] : columns) {
    const auto v = trim(cell(rec, index));
    if (!v.empty()) field_of(out, field).assign(v);
  }
  warn_no_gpu(log, out);
  return true;
}

}  // namespace aicost::billing

// Readers of billing exports and GPU telemetry. Each streams its file in bounded memory and hands
// rows to a sink one at a time; what it cannot read unambiguously becomes a RowIssue with the line
// and column, never a silent drop (docs/LEDGER.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"
#include "aicost/ledger/telemetry.h"

namespace aicost::billing {

enum class Format {
  kAuto,
  kFocus,           // FOCUS 1.0 / 1.1 / 1.2 cost and usage CSV
  kAwsCur,          // AWS Cost and Usage Report, legacy slash-named columns
  kAzure,           // Azure cost details (EA, MCA, pay-as-you-go; actual or amortised)
  kGcp,             // GCP BigQuery billing export flattened to CSV
  kOci,             // Oracle Cloud cost report
  kDcgmPrometheus,  // dcgm-exporter /metrics scrape (Prometheus text format)
  kDcgmCsv,         // dcgm-exporter samples as CSV (metric, labels, value)
  kSlurm,           // Slurm accounting: `sacct --parsable2` (GPU-hours from AllocTRES, unpriced)
  kOpenCost,        // OpenCost allocation CSV export (one row per day and container)
};
const char* format_name(Format f);  // "focus", "aws-cur", ... (kAuto: "auto")
core::Result<Format> parse_format(std::string_view name);

struct Sink {
  std::function<core::Status(ledger::Charge&&)> charge;
  std::function<core::Status(ledger::GpuSample&&)> sample;
  std::function<void(ledger::RowIssue&&)> issue;
};

struct ReadSummary {
  Format format = Format::kAuto;
  std::string version;          // "focus-1.2", "aws-cur", ... as stored in the ledger
  std::int64_t records = 0;     // data rows or samples read
  std::int64_t loaded = 0;      // handed to the sink (a Slurm job line: a row per day, node and GPU type)
  std::int64_t rejected = 0;    // not handed over (each has an error issue)
  std::int64_t rounded = 0;     // amounts with digits below 1e-9, rounded half to even
};

// Guesses the format from the first bytes of a file (header row or exposition text).
Format detect_format(std::string_view head);

// Reads one file. `on_bytes` sees every byte (for hashing). An error is returned only when the
// file as a whole cannot be read (I/O, not CSV, a required column missing); bad rows are issues.
core::Result<ReadSummary> read_file(const std::string& path, Format format, const Sink& sink,
                                    const std::function<void(std::string_view)>& on_bytes = {});
// The same on text in memory (tests, fuzzing).
core::Result<ReadSummary> read_text(std::string_view text, const std::string& origin, Format format,
                                    const Sink& sink);

}  // namespace aicost::billing

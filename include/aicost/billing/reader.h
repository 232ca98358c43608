// Readers of billing exports and GPU telemetry. Each streams its file in bounded memory and hands
// rows to a sink one at a time; what it cannot read unambiguously becomes a RowIssue with the line
// and column, never a silent drop (docs/LEDGER.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/billing/source.h"
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
  std::int64_t loaded = 0;      // handed to the sink
  std::int64_t rejected = 0;    // not handed over (each has an error issue)
  std::int64_t rounded = 0;     // amounts with digits below 1e-9, rounded half to even
};

// Guesses the format from the first bytes of a file (header row or exposition text).
Format detect_format(std::string_view head);

// Reads one file ("-" or /dev/stdin: standard input), decoding gzip, zstd and zip as its first
// bytes say (source.h); the members of a zip are read in turn, each with its own header, all as
// the format of the first (or as named). `on_bytes` sees every decoded byte. An error is returned
// only when the file as a whole cannot be read (I/O, damaged compression, not CSV, a required
// column missing); bad rows are issues. Issues of a zip member carry the line in that member; the
// member's name is in the error context of a whole-file error ("export.zip[part-2.csv]:1").
core::Result<ReadSummary> read_file(const std::string& path, Format format, const Sink& sink,
                                    const std::function<void(std::string_view)>& on_bytes = {});

// read_file, telling also how the file was delivered and what members it had.
struct SourceSummary {
  ReadSummary summary;  // summed over the members; format and version those of the first
  Encoding encoding = Encoding::kPlain;
  std::int64_t delivered_bytes = 0;
  std::vector<std::string> members;  // "" for a file that is not an archive
  std::vector<std::string> member_sha256;  // with `digest`: the SHA-256 of each member's decoded bytes
};
// Issues of a zip member begin with its name ("part-2.csv: ...").
core::Result<SourceSummary> read_source(const std::string& path, Format format, const Sink& sink, bool digest = false);
// The same on text in memory (tests, fuzzing).
core::Result<ReadSummary> read_text(std::string_view text, const std::string& origin, Format format,
                                    const Sink& sink);

}  // namespace aicost::billing

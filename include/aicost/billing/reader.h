// Readers of billing exports and GPU telemetry. Each streams its file in bounded memory and hands
// rows to a sink one at a time; what it cannot read unambiguously becomes a RowIssue with the line
// and column, never a silent drop (docs/LEDGER.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/billing/source.h"
#include "aicost/core/result.h"
#include "aicost/ledger/charge.h"
#include "aicost/ledger/commitment.h"
#include "aicost/ledger/telemetry.h"

namespace aicost::billing {

enum class Format {
  kAuto,
  kFocus,            // FOCUS 1.0 / 1.1 / 1.2 / 1.3 cost and usage CSV
  kFocusCommitment,  // FOCUS 1.3 Contract Commitment dataset CSV
  kAwsCur,           // AWS Cost and Usage Report, legacy slash-named columns
  kAzure,            // Azure cost details (EA, MCA, pay-as-you-go; actual or amortised)
  kGcp,              // GCP BigQuery billing export flattened to CSV
  kOci,              // Oracle Cloud cost report
  kDcgmPrometheus,   // dcgm-exporter /metrics scrape (Prometheus text format)
  kDcgmCsv,          // dcgm-exporter samples as CSV (metric, labels, value)
  kSlurm,            // Slurm accounting: `sacct --parsable2` (GPU-hours from AllocTRES, unpriced)
  kOpenCost,         // OpenCost allocation CSV export (one row per day and container)
  kOcp,  // OpenShift usage reports (koku: pods, volumes, NVIDIA GPUs, node and namespace labels;
         // unpriced)
};
const char* format_name(
    Format f);  // "focus", "focus-contract-commitment", "aws-cur", ... (kAuto: "auto")
core::Result<Format> parse_format(std::string_view name);

// What the parts of one delivery share while they are read: an OpenShift upload's node and
// namespace labels reports tag the pod, volume and GPU rows of the reports read after them.
// Opaque; made by make_delivery_context.
struct DeliveryContext;
std::shared_ptr<DeliveryContext> make_delivery_context();

struct Sink {
  std::function<core::Status(ledger::Charge&&)> charge;
  std::function<core::Status(ledger::GpuSample&&)> sample;
  std::function<core::Status(ledger::ContractCommitment&&)>
      commitment;  // FOCUS 1.3 Contract Commitment rows
  std::function<void(ledger::RowIssue&&)> issue;
  // Shared by every file read through this sink (the ingest makes one per delivery); null: each
  // file on its own.
  std::shared_ptr<DeliveryContext> context;
};

struct ReadSummary {
  Format format = Format::kAuto;
  std::string version;  // "focus-1.2", "focus-1.3-contract-commitment", "aws-cur", ... as stored in
                        // the ledger
  std::int64_t records = 0;   // data rows or samples read
  std::int64_t loaded = 0;    // handed to the sink (a Slurm job line: a row per day, node and GPU
                              // type; an OpenShift pod line: a CPU row and a memory row)
  std::int64_t rejected = 0;  // not handed over (each has an error issue)
  std::int64_t rounded = 0;   // amounts with digits below 1e-9, rounded half to even
  // What RowIssue::line counts: false, the text's lines (the header is line 1); true, a table's
  // rows from 1 (Parquet), line 0 being the file's schema.
  bool rows_numbered = false;
};

// Guesses the format from the first bytes of a file (header row or exposition text).
Format detect_format(std::string_view head);

// Reads one file ("-" or /dev/stdin: standard input), decoding gzip, zstd and zip as its first
// bytes say (source.h); the members of a zip are read in turn, each with its own header, all as
// the format of the first (or as named). `on_bytes` sees every decoded byte. An error is returned
// only when the file as a whole cannot be read (I/O, damaged compression, not CSV, a required
// column missing); bad rows are issues. Issues of a zip member carry the line in that member; the
// member's name is in the error context of a whole-file error ("export.zip[part-2.csv]:1").
// A Parquet file (told by its first bytes, "PAR1"; a plain file, not standard input or inside an
// archive) is read with DuckDB and its rows go to the same readers as a CSV's, as the text a CSV
// export of them holds (src/billing/parquet.h); its issues count rows, not lines
// (ReadSummary::rows_numbered).
core::Result<ReadSummary> read_file(const std::string& path, Format format, const Sink& sink,
                                    const std::function<void(std::string_view)>& on_bytes = {});

// read_file, telling also how the file was delivered and what members it had.
struct SourceSummary {
  ReadSummary summary;  // summed over the members; format and version those of the first
  Encoding encoding = Encoding::kPlain;
  std::int64_t delivered_bytes = 0;
  std::vector<std::string> members;  // "" for a file that is not an archive
  std::vector<std::string>
      member_sha256;  // with `digest`: the SHA-256 of each member's decoded bytes
};
// Issues of a zip member begin with its name ("part-2.csv: ...").
core::Result<SourceSummary> read_source(const std::string& path, Format format, const Sink& sink,
                                        bool digest = false);
// The same on text in memory (tests, fuzzing).
core::Result<ReadSummary> read_text(std::string_view text, const std::string& origin, Format format,
                                    const Sink& sink);

}  // namespace aicost::billing

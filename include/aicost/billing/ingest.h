// Loading a file into the ledger: one transaction per file, idempotent by content hash.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aicost/billing/reader.h"
#include "aicost/core/result.h"
#include "aicost/ledger/rate_card.h"
#include "aicost/ledger/store.h"

namespace aicost::billing {

struct IngestOptions {
  Format format = Format::kAuto;
  bool replace = false;          // swap out earlier loads of the same path with other bytes
  std::size_t batch = 512;       // rows handed to the store at a time (small: they stay in cache)
  std::size_t keep_issues = 20;  // issues copied into the result for printing
  // Prices usage that comes without a bill (Slurm: rows with GPU-hours and no currency). Such a
  // file without a card, or with a GPU type the card does not price, is an error and loads
  // nothing (the message names every unpriced type and the card). Not owned; may be null.
  const ledger::RateCard* rate_card = nullptr;
};

struct IngestResult {
  enum class Outcome { kLoaded, kAlreadyLoaded, kReplaced };
  Outcome outcome = Outcome::kLoaded;
  ledger::SourceRecord record;  // the new source, or the one already holding these bytes
  ReadSummary summary;
  std::vector<std::int64_t> replaced;  // source ids swapped out
  std::vector<ledger::RowIssue> issues;  // the first keep_issues
  std::int64_t issue_count = 0;
};

// SHA-256 of a file's bytes, lower-case hex.
core::Result<std::string> sha256_file(const std::string& path);

core::Result<IngestResult> ingest_file(ledger::Store& store, const std::string& path, const IngestOptions& options);

// Reads a file without a store: what `aicost ledger validate` prints.
struct Validation {
  ReadSummary summary;
  std::vector<ledger::RowIssue> issues;  // all of them
};
core::Result<Validation> validate_file(const std::string& path, Format format);

}  // namespace aicost::billing

// Loading a file into the ledger: one transaction per file, idempotent by content hash.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aicost/billing/reader.h"
#include "aicost/billing/source.h"
#include "aicost/core/result.h"
#include "aicost/ledger/rate_card.h"
#include "aicost/ledger/store.h"

namespace aicost::billing {

struct IngestOptions {
  Format format = Format::kAuto;
  bool replace = false;  // swap out earlier loads of the same path with other bytes
  // Take each file as the whole delivery of the billing periods it holds: it replaces earlier
  // deliveries of those periods of the same export (Store::restate). Folders and manifests always
  // are; a single file only with this (default false: two files of one period add up).
  bool restate = false;
  std::string
      export_name;  // the export a restated file belongs to (default: the manifest's, else none)
  std::size_t batch = 512;  // rows handed to the store at a time (small: they stay in cache)
  // With two usable cores or more, the store writes each batch on a thread of its own while the
  // next is read (default true; with one core, or false, reading waits for each write). What is
  // loaded, reported and refused is the same either way.
  bool write_behind = true;
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
  std::vector<std::int64_t> replaced;    // source ids swapped out (by path, or restated)
  std::vector<std::int64_t> restated;    // of those, the earlier deliveries of the same periods
  std::vector<std::string> periods;      // billing periods of a restating delivery (YYYY-MM-DD)
  std::size_t parts = 1;                 // files read (a folder's or a manifest's parts)
  Encoding encoding = Encoding::kPlain;  // of the first part
  std::vector<ledger::RowIssue> issues;  // the first keep_issues
  std::int64_t issue_count = 0;
};

// SHA-256 of a file's bytes as delivered (not decoded), lower-case hex.
core::Result<std::string> sha256_file(const std::string& path);

// Loads `path`: a file (plain, gzip, zstd or zip), "-" (standard input, read once), a folder or a
// manifest (billing/delivery.h), as one source in one transaction. Its identity is the SHA-256 of
// its decoded bytes (source.h, delivery_identity): the same export delivered again, gzipped or
// not, is "already loaded". A file is first read once to hash it, before any transaction; standard
// input is hashed while it loads, and a load that turns out to hold loaded bytes is rolled back.
core::Result<IngestResult> ingest_file(ledger::Store& store, const std::string& path,
                                       const IngestOptions& options);

// Reads a file without a store: what `aicost ledger validate` prints.
struct Validation {
  ReadSummary summary;
  std::vector<ledger::RowIssue> issues;  // all of them
};
core::Result<Validation> validate_file(const std::string& path, Format format);

}  // namespace aicost::billing

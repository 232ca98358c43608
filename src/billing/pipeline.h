// The pipeline of one read: the first bytes (or a table's column names) pick the reader, which
// then takes the rest as it streams; issues go through one IssueLog.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/billing/reader.h"
#include "dcgm.h"
#include "dialect.h"
#include "focus_commitment.h"
#include "guard.h"
#include "text_reader.h"

namespace aicost::billing {

// Streams bytes into the reader the format needs; one per read.
class Pipeline {
 public:
  Pipeline(Format format, std::string origin, const Sink& sink, ledger::UnixSeconds scrape_time)
      : format_(format), origin_(std::move(origin)), sink_(sink), scrape_time_(scrape_time) {}

  core::Status feed(std::string_view bytes);

  // Records already split (Parquet, parquet.h): the first is the header, whose names decide the
  // format as a CSV header's do. Line 0 is the file's schema, rows are numbered from 1.
  core::Status table_record(const CsvRecord& r);

  core::Result<ReadSummary> finish();

 private:
  core::Status start();
  core::Status start_table(const std::vector<std::string_view>& names);
  core::Status push(std::string_view bytes) {
    return text_ ? text_->feed(bytes) : csv_->feed(bytes);
  }
  core::Status record(const CsvRecord& raw);

  static constexpr std::size_t kHead = 4096;

  Format format_;
  std::string origin_;
  const Sink& sink_;
  ledger::UnixSeconds scrape_time_;
  IssueLog log_;
  CellGuard guard_;
  std::string pending_;  // the first kHead bytes, until the reader starts
  bool started_ = false, header_seen_ = false;
  std::size_t header_size_ = 0;
  std::unique_ptr<CsvStream> csv_;
  std::unique_ptr<CsvDialect> dialect_;
  std::unique_ptr<DcgmCsvReader> dcgm_csv_;
  std::unique_ptr<CommitmentReader> commitments_;
  std::unique_ptr<TextReader> text_;
  ledger::Charge charge_;
  ReadSummary summary_;
};

}  // namespace aicost::billing

#include "pipeline.h"

#include <utility>

#include "signatures.h"
#include "slurm.h"

namespace aicost::billing {
namespace {

// The formats a table (Parquet) may hold.
constexpr const char* kTableFormats =
    "focus, focus-contract-commitment, aws-cur, azure, gcp, oci, dcgm-csv, opencost, ocp";

std::unique_ptr<CsvDialect> make_dialect(Format f, DeliveryContext* context) {
  switch (f) {
    case Format::kFocus: return make_focus_dialect();
    case Format::kAwsCur: return make_aws_cur_dialect();
    case Format::kAzure: return make_azure_dialect();
    case Format::kGcp: return make_gcp_dialect();
    case Format::kOci: return make_oci_dialect();
    case Format::kOpenCost: return make_opencost_dialect();
    case Format::kOcp: return make_ocp_dialect(context);
    default: return nullptr;
  }
}

}  // namespace

core::Status Pipeline::feed(std::string_view bytes) {
  if (started_) return push(bytes);
  // The first bytes decide what kind of file this is (and, for kAuto, its format).
  pending_.append(bytes);
  if (pending_.size() < kHead) return {};
  if (auto s = start(); !s) return s;
  std::string buffered = std::move(pending_);
  return push(buffered);
}

core::Status Pipeline::table_record(const CsvRecord& r) {
  if (!started_) {
    started_ = true;
    summary_.rows_numbered = true;
    log_.set_header_line(0);
    if (auto s = start_table(r.fields); !s) return s;
  }
  return record(r);
}

core::Result<ReadSummary> Pipeline::finish() {
  if (!started_) {
    if (auto s = start(); !s) return s.error();
    std::string buffered = std::move(pending_);
    if (auto s = push(buffered); !s) return s.error();
  }
  core::Status s = text_ ? text_->finish() : csv_ ? csv_->finish() : core::Status{};
  if (!s) return s.error();
  if (!header_seen_ && !text_)
    return core::make_error(core::ErrorCode::kInvalidInput, "the file is empty", origin_);
  summary_.format = format_;
  if (text_) {
    summary_.version = format_name(format_);
    summary_.records = text_->records();
    summary_.loaded = text_->loaded();
    summary_.rejected = text_->rejected();
  } else if (dialect_) {
    summary_.version = dialect_->version();
  } else if (commitments_) {
    summary_.version = "focus-1.3-contract-commitment";
  } else {
    summary_.version = format_name(format_);
  }
  log_.flush(sink_);
  return summary_;
}

core::Status Pipeline::start() {
  started_ = true;
  const std::string_view head = std::string_view(pending_).substr(0, kHead);
  if (auto refusal = not_text(head, origin_))
    return core::make_error(core::ErrorCode::kInvalidInput, std::move(*refusal), origin_);
  if (format_ == Format::kAuto) format_ = detect_format(head);
  if (format_ == Format::kAuto)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "cannot tell the format from the first line; name it with --format "
                            "(focus, focus-contract-commitment, aws-cur, azure, gcp, oci, "
                            "dcgm-prometheus, dcgm-csv, slurm, opencost, ocp)",
                            origin_);
  if (format_ == Format::kDcgmPrometheus) {
    text_ = std::make_unique<DcgmTextReader>(sink_, log_, scrape_time_);
    return {};
  }
  if (format_ == Format::kSlurm) {
    text_ = std::make_unique<SlurmReader>(sink_, log_);
    return {};
  }
  if (format_ == Format::kDcgmCsv)
    dcgm_csv_ = std::make_unique<DcgmCsvReader>(scrape_time_);
  else if (format_ == Format::kFocusCommitment)
    commitments_ = std::make_unique<CommitmentReader>();
  else
    dialect_ = make_dialect(format_, sink_.context.get());
  csv_ = std::make_unique<CsvStream>(origin_, [this](const CsvRecord& r) { return record(r); });
  return {};
}

core::Status Pipeline::start_table(const std::vector<std::string_view>& names) {
  std::string head;
  for (auto n : names) head.append(head.empty() ? "" : ",").append(n);
  if (format_ == Format::kAuto) format_ = detect_format(head);
  if (format_ == Format::kAuto)
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        std::string("cannot tell the format from the column names; name it with --format (") +
            kTableFormats + ")",
        origin_);
  if (format_ == Format::kDcgmPrometheus || format_ == Format::kSlurm)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            std::string("a Parquet file holds a table, not ") +
                                (format_ == Format::kSlurm ? "sacct text" : "Prometheus text") +
                                "; name a table format with --format (" + kTableFormats + ")",
                            origin_);
  if (format_ == Format::kDcgmCsv)
    dcgm_csv_ = std::make_unique<DcgmCsvReader>(scrape_time_);
  else if (format_ == Format::kFocusCommitment)
    commitments_ = std::make_unique<CommitmentReader>();
  else
    dialect_ = make_dialect(format_, sink_.context.get());
  return {};
}

core::Status Pipeline::record(const CsvRecord& raw) {
  if (!header_seen_) {
    header_seen_ = true;
    const CsvRecord& r = guard_.header(raw, log_);
    header_size_ = r.fields.size();
    auto s = dcgm_csv_      ? dcgm_csv_->header(r.fields, log_)
             : commitments_ ? commitments_->header(r.fields, log_)
                            : dialect_->header(r.fields, log_);
    if (!s)
      return s.error().with_context(r.line > 0 ? origin_ + ":" + std::to_string(r.line) : origin_);
    return {};
  }
  if (raw.fields.size() == 1 && raw.fields[0].empty()) return {};  // a blank line
  ++summary_.records;
  if (raw.fields.size() != header_size_) {
    log_.warn(raw.line, "",
              "the row has " + std::to_string(raw.fields.size()) + " fields, the header " +
                  std::to_string(header_size_) + "; read by position");
  }
  const CsvRecord* r = guard_.row(raw, log_);
  if (!r) {
    ++summary_.rejected;
    return {};
  }
  if (dcgm_csv_) {
    ledger::GpuSample g;
    bool skipped = false;
    if (!dcgm_csv_->row(*r, g, log_, skipped)) {
      if (!skipped) ++summary_.rejected;
      return {};
    }
    ++summary_.loaded;
    return sink_.sample ? sink_.sample(std::move(g)) : core::Status{};
  }
  if (commitments_) {
    ledger::ContractCommitment c;
    if (!commitments_->row(*r, c, log_, summary_.rounded)) {
      ++summary_.rejected;
      return {};
    }
    ++summary_.loaded;
    return sink_.commitment ? sink_.commitment(std::move(c)) : core::Status{};
  }
  ledger::clear(charge_);
  if (!dialect_->row(*r, charge_, log_, summary_.rounded)) {
    if (!dialect_->absorbed()) ++summary_.rejected;
    return {};
  }
  if (!tags_within_caps(charge_.tags, r->line, dialect_->tags_column(), log_)) {
    ++summary_.rejected;
    return {};
  }
  do {
    ++summary_.loaded;
    if (sink_.charge) AICOST_TRY_STATUS(sink_.charge(std::move(charge_)));
    ledger::clear(charge_);
  } while (dialect_->next(charge_));
  return {};
}

}  // namespace aicost::billing

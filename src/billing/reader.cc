#include "aicost/billing/reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>

#include "dcgm.h"
#include "values.h"

namespace aicost::billing {
namespace {

struct FormatName {
  Format format;
  const char* name;
};
constexpr std::array kFormats{
    FormatName{Format::kAuto, "auto"},          FormatName{Format::kFocus, "focus"},
    FormatName{Format::kAwsCur, "aws-cur"},     FormatName{Format::kAzure, "azure"},
    FormatName{Format::kGcp, "gcp"},            FormatName{Format::kOci, "oci"},
    FormatName{Format::kDcgmPrometheus, "dcgm-prometheus"}, FormatName{Format::kDcgmCsv, "dcgm-csv"},
};

bool contains(std::string_view head, std::string_view what) { return head.find(what) != std::string_view::npos; }

std::unique_ptr<CsvDialect> make_dialect(Format f) {
  switch (f) {
    case Format::kFocus: return make_focus_dialect();
    case Format::kAwsCur: return make_aws_cur_dialect();
    case Format::kAzure: return make_azure_dialect();
    case Format::kGcp: return make_gcp_dialect();
    case Format::kOci: return make_oci_dialect();
    default: return nullptr;
  }
}

// Streams bytes into the reader the format needs; one per read.
class Pipeline {
 public:
  Pipeline(Format format, std::string origin, const Sink& sink, ledger::UnixSeconds scrape_time)
      : format_(format), origin_(std::move(origin)), sink_(sink), scrape_time_(scrape_time) {}

  core::Status feed(std::string_view bytes) {
    if (format_ == Format::kAuto) {
      head_.append(bytes.substr(0, 4096 - std::min<std::size_t>(head_.size(), 4096)));
      pending_.append(bytes);
      if (head_.size() < 4096) return {};
      if (auto s = start(); !s) return s;
      std::string buffered = std::move(pending_);
      return push(buffered);
    }
    if (!started_)
      if (auto s = start(); !s) return s;
    return push(bytes);
  }

  core::Result<ReadSummary> finish() {
    if (!started_) {
      if (auto s = start(); !s) return s.error();
      std::string buffered = std::move(pending_);
      if (auto s = push(buffered); !s) return s.error();
    }
    core::Status s = text_ ? text_->finish() : csv_->finish();
    if (!s) return s.error();
    if (!header_seen_ && csv_) return core::make_error(core::ErrorCode::kInvalidInput, "the file is empty", origin_);
    summary_.format = format_;
    if (text_) {
      summary_.version = format_name(format_);
      summary_.records = text_->records();
      summary_.loaded = text_->loaded();
      summary_.rejected = text_->rejected();
    } else if (dialect_) {
      summary_.version = dialect_->version();
    } else {
      summary_.version = format_name(format_);
    }
    log_.flush(sink_);
    return summary_;
  }

 private:
  core::Status start() {
    started_ = true;
    if (format_ == Format::kAuto) format_ = detect_format(head_);
    if (format_ == Format::kAuto)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "cannot tell the format from the first line; name it with --format "
                              "(focus, aws-cur, azure, gcp, oci, dcgm-prometheus, dcgm-csv)",
                              origin_);
    if (format_ == Format::kDcgmPrometheus) {
      text_ = std::make_unique<DcgmTextReader>(sink_, log_, scrape_time_);
      return {};
    }
    if (format_ == Format::kDcgmCsv) dcgm_csv_ = std::make_unique<DcgmCsvReader>(scrape_time_);
    else dialect_ = make_dialect(format_);
    csv_ = std::make_unique<CsvStream>(origin_, [this](const CsvRecord& r) { return record(r); });
    return {};
  }

  core::Status push(std::string_view bytes) { return text_ ? text_->feed(bytes) : csv_->feed(bytes); }

  core::Status record(const CsvRecord& r) {
    if (!header_seen_) {
      header_seen_ = true;
      header_size_ = r.fields.size();
      auto s = dcgm_csv_ ? dcgm_csv_->header(r.fields, log_) : dialect_->header(r.fields, log_);
      if (!s) return s.error().with_context(origin_ + ":" + std::to_string(r.line));
      return {};
    }
    if (r.fields.size() == 1 && r.fields[0].empty()) return {};  // a blank line
    ++summary_.records;
    if (r.fields.size() != header_size_) {
      log_.warn(r.line, "", "the row has " + std::to_string(r.fields.size()) + " fields, the header " +
                                std::to_string(header_size_) + "; read by position");
    }
    if (dcgm_csv_) {
      ledger::GpuSample g;
      bool skipped = false;
      if (!dcgm_csv_->row(r, g, log_, skipped)) {
        if (!skipped) ++summary_.rejected;
        return {};
      }
      ++summary_.loaded;
      return sink_.sample ? sink_.sample(std::move(g)) : core::Status{};
    }
    ledger::clear(charge_);
    if (!dialect_->row(r, charge_, log_, summary_.rounded)) {
      ++summary_.rejected;
      return {};
    }
    ++summary_.loaded;
    return sink_.charge ? sink_.charge(std::move(charge_)) : core::Status{};
  }

  Format format_;
  std::string origin_;
  const Sink& sink_;
  ledger::UnixSeconds scrape_time_;
  IssueLog log_;
  std::string head_, pending_;
  bool started_ = false, header_seen_ = false;
  std::size_t header_size_ = 0;
  std::unique_ptr<CsvStream> csv_;
  std::unique_ptr<CsvDialect> dialect_;
  std::unique_ptr<DcgmCsvReader> dcgm_csv_;
  std::unique_ptr<DcgmTextReader> text_;
  ledger::Charge charge_;
  ReadSummary summary_;
};

}  // namespace

const char* format_name(Format f) {
  for (const auto& n : kFormats)
    if (n.format == f) return n.name;
  return "?";
}

core::Result<Format> parse_format(std::string_view name) {
  for (const auto& n : kFormats)
    if (name == n.name) return n.format;
  return core::make_error(core::ErrorCode::kInvalidInput,
                          "unknown format '" + std::string(name) +
                              "'; use auto, focus, aws-cur, azure, gcp, oci, dcgm-prometheus or dcgm-csv");
}

Format detect_format(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  const auto first_line = head.substr(0, head.find('\n'));
  if (head.rfind("# HELP DCGM", 0) == 0 || head.rfind("# TYPE DCGM", 0) == 0 || head.rfind("DCGM_FI_", 0) == 0 ||
      head.rfind("# HELP dcgm_", 0) == 0 || head.rfind("dcgm_", 0) == 0)
    return Format::kDcgmPrometheus;
  if (contains(first_line, "BilledCost") && contains(first_line, "ChargePeriodStart")) return Format::kFocus;
  if (contains(first_line, "lineItem/UnblendedCost") || contains(first_line, "lineItem/LineItemType"))
    return Format::kAwsCur;
  if (contains(first_line, "cost/myCost")) return Format::kOci;
  if (contains(first_line, "usage_start_time") && contains(first_line, "service.description")) return Format::kGcp;
  if (contains(first_line, "metric") && contains(first_line, "value") &&
      (contains(first_line, "Hostname") || contains(first_line, "gpu")))
    return Format::kDcgmCsv;
  for (const char* azure : {"CostInBillingCurrency", "costInBillingCurrency", "PreTaxCost", "MeterCategory",
                            "meterCategory", "ConsumedService"})
    if (contains(first_line, azure)) return Format::kAzure;
  return Format::kAuto;
}

core::Result<ReadSummary> read_file(const std::string& path, Format format, const Sink& sink,
                                    const std::function<void(std::string_view)>& on_bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return core::make_error(core::ErrorCode::kIo, "cannot open the file", path);
  struct stat st {};
  const ledger::UnixSeconds mtime = ::stat(path.c_str(), &st) == 0 ? st.st_mtime : 0;
  Pipeline pipeline(format, path, sink, mtime);
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), f.get());
    if (n > 0) {
      const std::string_view chunk(buffer.data(), n);
      if (on_bytes) on_bytes(chunk);
      if (auto s = pipeline.feed(chunk); !s) return s.error();
    }
    if (n < buffer.size()) {
      if (std::ferror(f.get())) return core::make_error(core::ErrorCode::kIo, "read error", path);
      break;
    }
  }
  return pipeline.finish();
}

core::Result<ReadSummary> read_text(std::string_view text, const std::string& origin, Format format,
                                    const Sink& sink) {
  Pipeline pipeline(format, origin, sink, 0);
  if (auto s = pipeline.feed(text); !s) return s.error();
  return pipeline.finish();
}

}  // namespace aicost::billing

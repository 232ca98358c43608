#include "aicost/billing/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "aicost/billing/source.h"
#include "dcgm.h"
#include "focus_commitment.h"
#include "guard.h"
#include "parquet.h"
#include "slurm.h"
#include "values.h"

namespace aicost::billing {
namespace {

struct FormatName {
  Format format;
  const char* name;
};
constexpr std::array kFormats{
    FormatName{Format::kAuto, "auto"},          FormatName{Format::kFocus, "focus"},
    FormatName{Format::kFocusCommitment, "focus-contract-commitment"},
    FormatName{Format::kAwsCur, "aws-cur"},     FormatName{Format::kAzure, "azure"},
    FormatName{Format::kGcp, "gcp"},            FormatName{Format::kOci, "oci"},
    FormatName{Format::kDcgmPrometheus, "dcgm-prometheus"}, FormatName{Format::kDcgmCsv, "dcgm-csv"},
    FormatName{Format::kSlurm, "slurm"},        FormatName{Format::kOpenCost, "opencost"},
    FormatName{Format::kOcp, "ocp"},
};

// The formats a table (Parquet) may hold.
constexpr const char* kTableFormats = "focus, focus-contract-commitment, aws-cur, azure, gcp, oci, dcgm-csv, opencost, ocp";

bool contains(std::string_view head, std::string_view what) { return head.find(what) != std::string_view::npos; }

// Files no reader reads, told by their first bytes (each format's magic number), and what to do
// instead. Reading them is planned (issue 11); until then a clear refusal beats "name the format".
struct Signature {
  std::string_view magic;
  const char* what;
  const char* todo;     // FILE stands for the path
  const char* planned;  // what reading them would be
};
constexpr std::array kSignatures{
    // A plain file never starts so (source.cc decodes these); a member of a zip or the content
    // of a gzip file may.
    Signature{"\x1F\x8B", "a gzip-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"\x28\xB5\x2F\xFD", "a zstd-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"BZh", "a bzip2-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"\xFD" "7zXZ", "an xz-compressed file inside a compressed file",
              "unpack the outer file and load the inner one", ""},
    Signature{"PK\x03\x04", "a zip archive inside a compressed file", "unpack the outer file and load the zip",
              ""},
    Signature{"PK\x05\x06", "an empty zip archive", "export the data again", ""},
    // A Parquet file is read from a plain file (read_file); this is one met in a stream, in memory
    // or inside an archive.
    Signature{"PAR1", "a Parquet file",
              "save it to a file and load that (Parquet is read from a file, which can be seeked in)",
              "Parquet from a stream"},
    Signature{std::string_view("\xFF\xFE\0\0", 4), "UTF-32 (little-endian) text",
              "convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8 FILE > FILE.utf8.csv)", "UTF-32"},
    Signature{"\xFF\xFE", "UTF-16 (little-endian) text",
              "convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.csv)", "UTF-16"},
    Signature{"\xFE\xFF", "UTF-16 (big-endian) text",
              "convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.csv)", "UTF-16"},
};

// UTF-16 without a byte-order mark: ASCII text with a NUL after (LE) or before (BE) every byte.
const char* utf16_without_bom(std::string_view head) {
  const std::size_t n = std::min<std::size_t>(head.size(), 256) & ~std::size_t{1};
  if (n < 4) return nullptr;
  std::size_t even = 0, odd = 0;
  for (std::size_t i = 0; i < n; ++i) (i % 2 ? odd : even) += head[i] == '\0';
  const std::size_t pairs = n / 2;
  if (odd * 10 >= pairs * 9 && even * 10 <= pairs) return "LE";
  if (even * 10 >= pairs * 9 && odd * 10 <= pairs) return "BE";
  return nullptr;
}

std::string replace_file(std::string text, const std::string& path) {
  for (std::size_t at = text.find("FILE"); at != std::string::npos; at = text.find("FILE", at + path.size()))
    text.replace(at, 4, path);
  return text;
}

// The refusal for a file that is no text any reader reads; nullopt for text.
std::optional<std::string> not_text(std::string_view head, const std::string& path) {
  for (const auto& sig : kSignatures) {
    if (head.substr(0, sig.magic.size()) != sig.magic) continue;
    if (sig.magic == "BZh" && (head.size() < 4 || head[3] < '1' || head[3] > '9')) continue;
    std::string out = std::string("this is ") + sig.what + "; " + replace_file(sig.todo, path);
    if (*sig.planned) out += std::string("; reading ") + sig.planned + " is planned";
    return out;
  }
  if (const char* order = utf16_without_bom(head))
    return std::string("this is UTF-16 (") + (order[0] == 'L' ? "little" : "big") +
           "-endian) text without a byte-order mark; convert it to UTF-8 first (iconv -f UTF-16" + order +
           " -t UTF-8 " + path + " > " + path + ".utf8.csv); reading UTF-16 is planned";
  return std::nullopt;
}

std::unique_ptr<CsvDialect> make_dialect(Format f) {
  switch (f) {
    case Format::kFocus: return make_focus_dialect();
    case Format::kAwsCur: return make_aws_cur_dialect();
    case Format::kAzure: return make_azure_dialect();
    case Format::kGcp: return make_gcp_dialect();
    case Format::kOci: return make_oci_dialect();
    case Format::kOpenCost: return make_opencost_dialect();
    case Format::kOcp: return make_ocp_dialect();
    default: return nullptr;
  }
}

// Streams bytes into the reader the format needs; one per read.
class Pipeline {
 public:
  Pipeline(Format format, std::string origin, const Sink& sink, ledger::UnixSeconds scrape_time)
      : format_(format), origin_(std::move(origin)), sink_(sink), scrape_time_(scrape_time) {}

  core::Status feed(std::string_view bytes) {
    if (started_) return push(bytes);
    // The first bytes decide what kind of file this is (and, for kAuto, its format).
    pending_.append(bytes);
    if (pending_.size() < kHead) return {};
    if (auto s = start(); !s) return s;
    std::string buffered = std::move(pending_);
    return push(buffered);
  }

  // Records already split (Parquet, parquet.h): the first is the header, whose names decide the
  // format as a CSV header's do. Line 0 is the file's schema, rows are numbered from 1.
  core::Status table_record(const CsvRecord& r) {
    if (!started_) {
      started_ = true;
      summary_.rows_numbered = true;
      log_.set_header_line(0);
      if (auto s = start_table(r.fields); !s) return s;
    }
    return record(r);
  }

  core::Result<ReadSummary> finish() {
    if (!started_) {
      if (auto s = start(); !s) return s.error();
      std::string buffered = std::move(pending_);
      if (auto s = push(buffered); !s) return s.error();
    }
    core::Status s = text_ ? text_->finish() : csv_ ? csv_->finish() : core::Status{};
    if (!s) return s.error();
    if (!header_seen_ && !text_) return core::make_error(core::ErrorCode::kInvalidInput, "the file is empty", origin_);
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

 private:
  core::Status start() {
    started_ = true;
    const std::string_view head = std::string_view(pending_).substr(0, kHead);
    if (auto refusal = not_text(head, origin_))
      return core::make_error(core::ErrorCode::kInvalidInput, std::move(*refusal), origin_);
    if (format_ == Format::kAuto) format_ = detect_format(head);
    if (format_ == Format::kAuto)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "cannot tell the format from the first line; name it with --format "
                              "(focus, focus-contract-commitment, aws-cur, azure, gcp, oci, dcgm-prometheus, dcgm-csv, slurm, opencost, ocp)",
                              origin_);
    if (format_ == Format::kDcgmPrometheus) {
      text_ = std::make_unique<DcgmTextReader>(sink_, log_, scrape_time_);
      return {};
    }
    if (format_ == Format::kSlurm) {
      text_ = std::make_unique<SlurmReader>(sink_, log_);
      return {};
    }
    if (format_ == Format::kDcgmCsv) dcgm_csv_ = std::make_unique<DcgmCsvReader>(scrape_time_);
    else if (format_ == Format::kFocusCommitment) commitments_ = std::make_unique<CommitmentReader>();
    else dialect_ = make_dialect(format_);
    csv_ = std::make_unique<CsvStream>(origin_, [this](const CsvRecord& r) { return record(r); });
    return {};
  }

  core::Status start_table(const std::vector<std::string_view>& names) {
    std::string head;
    for (auto n : names) head.append(head.empty() ? "" : ",").append(n);
    if (format_ == Format::kAuto) format_ = detect_format(head);
    if (format_ == Format::kAuto)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              std::string("cannot tell the format from the column names; name it with --format (") +
                                  kTableFormats + ")",
                              origin_);
    if (format_ == Format::kDcgmPrometheus || format_ == Format::kSlurm)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              std::string("a Parquet file holds a table, not ") +
                                  (format_ == Format::kSlurm ? "sacct text" : "Prometheus text") +
                                  "; name a table format with --format (" + kTableFormats + ")",
                              origin_);
    if (format_ == Format::kDcgmCsv) dcgm_csv_ = std::make_unique<DcgmCsvReader>(scrape_time_);
    else if (format_ == Format::kFocusCommitment) commitments_ = std::make_unique<CommitmentReader>();
    else dialect_ = make_dialect(format_);
    return {};
  }

  core::Status push(std::string_view bytes) { return text_ ? text_->feed(bytes) : csv_->feed(bytes); }

  core::Status record(const CsvRecord& raw) {
    if (!header_seen_) {
      header_seen_ = true;
      const CsvRecord& r = guard_.header(raw, log_);
      header_size_ = r.fields.size();
      auto s = dcgm_csv_       ? dcgm_csv_->header(r.fields, log_)
               : commitments_ ? commitments_->header(r.fields, log_)
                              : dialect_->header(r.fields, log_);
      if (!s) return s.error().with_context(r.line > 0 ? origin_ + ":" + std::to_string(r.line) : origin_);
      return {};
    }
    if (raw.fields.size() == 1 && raw.fields[0].empty()) return {};  // a blank line
    ++summary_.records;
    if (raw.fields.size() != header_size_) {
      log_.warn(raw.line, "", "the row has " + std::to_string(raw.fields.size()) + " fields, the header " +
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
    if (!dialect_->row(*r, charge_, log_, summary_.rounded) ||
        !tags_within_caps(charge_.tags, r->line, dialect_->tags_column(), log_)) {
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
                              "'; use auto, focus, focus-contract-commitment, aws-cur, azure, gcp, oci, dcgm-prometheus, dcgm-csv, slurm, opencost or ocp");
}

Format detect_format(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  const auto first_line = head.substr(0, head.find('\n'));
  if (head.rfind("# HELP DCGM", 0) == 0 || head.rfind("# TYPE DCGM", 0) == 0 || head.rfind("DCGM_FI_", 0) == 0 ||
      head.rfind("# HELP dcgm_", 0) == 0 || head.rfind("dcgm_", 0) == 0)
    return Format::kDcgmPrometheus;
  if (contains(first_line, "BilledCost") && contains(first_line, "ChargePeriodStart")) return Format::kFocus;
  if (contains(first_line, "ContractCommitmentId") && contains(first_line, "ContractCommitmentCategory"))
    return Format::kFocusCommitment;
  if (contains(first_line, "lineItem/UnblendedCost") || contains(first_line, "lineItem/LineItemType") ||
      contains(first_line, "line_item_unblended_cost") || contains(first_line, "line_item_line_item_type"))
    return Format::kAwsCur;
  if (contains(first_line, "cost/myCost")) return Format::kOci;
  if (contains(first_line, "usage_start_time") && contains(first_line, "service.description")) return Format::kGcp;
  if (contains(first_line, "metric") && contains(first_line, "value") &&
      (contains(first_line, "Hostname") || contains(first_line, "gpu")))
    return Format::kDcgmCsv;
  if (is_slurm_header(first_line)) return Format::kSlurm;
  if (contains(first_line, "GPUCost") && contains(first_line, "Namespace") && contains(first_line, "Date"))
    return Format::kOpenCost;
  if (contains(first_line, "pod_usage_cpu_core_seconds") ||
      contains(first_line, "persistentvolumeclaim_capacity_byte_seconds"))
    return Format::kOcp;
  for (const char* azure : {"CostInBillingCurrency", "costInBillingCurrency", "PreTaxCost", "MeterCategory",
                            "meterCategory", "ConsumedService"})
    if (contains(first_line, azure)) return Format::kAzure;
  return Format::kAuto;
}

namespace {

// A Parquet file met where it cannot be seeked in (standard input, a member of an archive, the
// content of a compressed file) is copied to a private temporary file first: opened with O_TMPFILE
// in $TMPDIR (else /tmp), so it has no name and the system frees it when the descriptor closes,
// even when the process is killed; where O_TMPFILE is not supported, mkstemp and an unlink at once.
class Spool {
 public:
  static core::Result<Spool> open() {
    const char* env = std::getenv("TMPDIR");
    const std::string dir = env && *env ? env : "/tmp";
    Spool s;
    s.fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (s.fd_ < 0) {
      std::string name = dir + "/aicost-parquet.XXXXXX";
      s.fd_ = ::mkostemp(name.data(), O_CLOEXEC);
      if (s.fd_ >= 0) ::unlink(name.c_str());
    }
    if (s.fd_ < 0)
      return core::make_error(core::ErrorCode::kIo,
                              "cannot make a temporary file in " + dir + " to read the Parquet data from (" +
                                  std::strerror(errno) + "); set TMPDIR to a folder with room");
    s.dir_ = dir;
    return s;
  }
  Spool() = default;
  Spool(Spool&& o) noexcept : fd_(std::exchange(o.fd_, -1)), dir_(std::move(o.dir_)) {}
  Spool& operator=(Spool&& o) noexcept {
    std::swap(fd_, o.fd_);
    dir_ = std::move(o.dir_);
    return *this;
  }
  ~Spool() {
    if (fd_ >= 0) ::close(fd_);
  }
  core::Status write(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        return core::make_error(core::ErrorCode::kIo, "cannot write the Parquet data to a temporary file in " + dir_ +
                                                          " (" + std::strerror(errno) +
                                                          "); set TMPDIR to a folder with room");
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string dir_;
};

core::Result<SourceSummary> read_impl(const std::string& path, Format format, const Sink& sink,
                                      const std::function<void(std::string_view)>& tap, bool digest) {
  const std::string name = is_stdin(path) ? kStdinName : path;
  SourceSummary out;
  std::unique_ptr<Pipeline> pipeline;
  std::string member;
  Sha256 sha;
  ledger::UnixSeconds mtime = 0;
  {
    struct stat st {};
    if (is_stdin(path) ? ::fstat(0, &st) == 0 : ::stat(path.c_str(), &st) == 0) mtime = st.st_mtime;
  }
  // Issues of a zip member name it: their lines are the member's.
  Sink member_sink = sink;
  if (sink.issue)
    member_sink.issue = [&](ledger::RowIssue&& i) {
      if (!member.empty()) i.message = member + ": " + i.message;
      sink.issue(std::move(i));
    };
  DecodedSink decoded;
  // A member's first bytes, until there are 4 to tell Parquet (spooled, then read by DuckDB) from
  // text (fed to the pipeline as it streams).
  std::string head;
  bool decided = false;
  std::optional<Spool> spool;
  std::string member_name;
  decoded.begin = [&](const std::string& m) -> core::Status {
    member = m;
    member_name = m.empty() ? name : name + "[" + m + "]";
    head.clear();
    decided = false;
    spool.reset();
    // Every member of one source is read as the format of the first (or as named).
    const Format f = out.members.empty() ? format : out.summary.format;
    pipeline = std::make_unique<Pipeline>(f, member_name, member_sink, mtime);
    return {};
  };
  auto decide = [&]() -> core::Status {
    decided = true;
    if (is_parquet(head)) {
      auto opened = Spool::open();
      if (!opened) return opened.error().with_context(member_name);
      spool = std::move(*opened);
      return spool->write(head);
    }
    return pipeline->feed(head);
  };
  decoded.bytes = [&](std::string_view b) -> core::Status {
    if (tap) tap(b);
    if (digest) sha.update(b);
    if (!decided) {
      head.append(b);
      return head.size() < 4 ? core::Status{} : decide();
    }
    return spool ? spool->write(b) : pipeline->feed(b);
  };
  decoded.end = [&]() -> core::Status {
    if (!decided && !head.empty())  // a member of under 4 bytes (a plain Parquet file hands none)
      if (auto s = decide(); !s) return s;
    if (spool) {
      auto s = read_parquet_records(spool->fd(), member_name,
                                    [&](const CsvRecord& r) { return pipeline->table_record(r); });
      spool.reset();
      if (!s) return s;
    }
    auto s = pipeline->finish();
    pipeline.reset();
    if (!s) return s.error();
    if (out.members.empty()) {
      out.summary = *s;
    } else {
      out.summary.records += s->records;
      out.summary.loaded += s->loaded;
      out.summary.rejected += s->rejected;
      out.summary.rounded += s->rounded;
    }
    out.members.push_back(member);
    if (digest) out.member_sha256.push_back(sha.hex());
    return {};
  };
  // A Parquet file must be seeked in: DuckDB reads a plain file from the open file (parquet.h), and
  // the bytes are streamed here only to be hashed. Parquet from standard input, inside an archive
  // or compressed is spooled to a temporary file first (Spool, above).
  if (!is_stdin(path)) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) return core::make_error(core::ErrorCode::kIo, "cannot open the file", path);
    char magic[4];
    if (::pread(::fileno(f.get()), magic, sizeof magic, 0) == sizeof magic &&
        is_parquet(std::string_view(magic, sizeof magic))) {
      if (auto s = decoded.begin(""); !s) return s.error();
      if (tap || digest) {
        std::vector<char> buffer(1 << 20);
        for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), f.get())) > 0;) {
          const std::string_view chunk(buffer.data(), n);
          if (tap) tap(chunk);
          if (digest) sha.update(chunk);
          out.delivered_bytes += static_cast<std::int64_t>(n);
        }
        if (std::ferror(f.get())) return core::make_error(core::ErrorCode::kIo, "read error", path);
      } else {
        struct stat st {};
        if (::fstat(::fileno(f.get()), &st) == 0) out.delivered_bytes = st.st_size;
      }
      if (auto s = read_parquet_records(::fileno(f.get()), path,
                                        [&](const CsvRecord& r) { return pipeline->table_record(r); });
          !s)
        return s.error();
      if (auto s = decoded.end(); !s) return s.error();
      return out;
    }
  }
  auto info = decode_source(path, decoded);
  if (!info) return info.error();
  if (out.members.empty()) return core::make_error(core::ErrorCode::kInvalidInput, "the file is empty", name);
  out.encoding = info->encoding;
  out.delivered_bytes = info->delivered_bytes;
  return out;
}

}  // namespace

core::Result<ReadSummary> read_file(const std::string& path, Format format, const Sink& sink,
                                    const std::function<void(std::string_view)>& on_bytes) {
  auto r = read_impl(path, format, sink, on_bytes, false);
  if (!r) return r.error();
  return std::move(r->summary);
}

core::Result<SourceSummary> read_source(const std::string& path, Format format, const Sink& sink, bool digest) {
  return read_impl(path, format, sink, {}, digest);
}

core::Result<ReadSummary> read_text(std::string_view text, const std::string& origin, Format format,
                                    const Sink& sink) {
  Pipeline pipeline(format, origin, sink, 0);
  if (auto s = pipeline.feed(text); !s) return s.error();
  return pipeline.finish();
}

}  // namespace aicost::billing

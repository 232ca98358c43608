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
#include "parquet.h"
#include "pipeline.h"
#include "slurm.h"
#include "spool.h"

namespace aicost::billing {
namespace {

struct FormatName {
  Format format;
  const char* name;
};
constexpr std::array kFormats{
    FormatName{Format::kAuto, "auto"},
    FormatName{Format::kFocus, "focus"},
    FormatName{Format::kFocusCommitment, "focus-contract-commitment"},
    FormatName{Format::kAwsCur, "aws-cur"},
    FormatName{Format::kAzure, "azure"},
    FormatName{Format::kGcp, "gcp"},
    FormatName{Format::kOci, "oci"},
    FormatName{Format::kDcgmPrometheus, "dcgm-prometheus"},
    FormatName{Format::kDcgmCsv, "dcgm-csv"},
    FormatName{Format::kSlurm, "slurm"},
    FormatName{Format::kOpenCost, "opencost"},
    FormatName{Format::kOcp, "ocp"},
};

bool contains(std::string_view head, std::string_view what) {
  return head.find(what) != std::string_view::npos;
}

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
                              "'; use auto, focus, focus-contract-commitment, aws-cur, azure, gcp, "
                              "oci, dcgm-prometheus, dcgm-csv, slurm, opencost or ocp");
}

Format detect_format(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  const auto first_line = head.substr(0, head.find('\n'));
  if (head.rfind("# HELP DCGM", 0) == 0 || head.rfind("# TYPE DCGM", 0) == 0 ||
      head.rfind("DCGM_FI_", 0) == 0 || head.rfind("# HELP dcgm_", 0) == 0 ||
      head.rfind("dcgm_", 0) == 0)
    return Format::kDcgmPrometheus;
  if (contains(first_line, "BilledCost") && contains(first_line, "ChargePeriodStart"))
    return Format::kFocus;
  if (contains(first_line, "ContractCommitmentId") &&
      contains(first_line, "ContractCommitmentCategory"))
    return Format::kFocusCommitment;
  if (contains(first_line, "lineItem/UnblendedCost") ||
      contains(first_line, "lineItem/LineItemType") ||
      contains(first_line, "line_item_unblended_cost") ||
      contains(first_line, "line_item_line_item_type"))
    return Format::kAwsCur;
  if (contains(first_line, "cost/myCost")) return Format::kOci;
  if (contains(first_line, "usage_start_time") && contains(first_line, "service.description"))
    return Format::kGcp;
  if (contains(first_line, "metric") && contains(first_line, "value") &&
      (contains(first_line, "Hostname") || contains(first_line, "gpu")))
    return Format::kDcgmCsv;
  if (is_slurm_header(first_line)) return Format::kSlurm;
  if (contains(first_line, "GPUCost") && contains(first_line, "Namespace") &&
      contains(first_line, "Date"))
    return Format::kOpenCost;
  if (contains(first_line, "pod_usage_cpu_core_seconds") ||
      contains(first_line, "persistentvolumeclaim_capacity_byte_seconds") ||
      (contains(first_line, "interval_start") &&
       (contains(first_line, "gpu_pod_uptime") || contains(first_line, "vm_uptime_total_seconds") ||
        contains(first_line, "node_labels") || contains(first_line, "namespace_labels"))))
    return Format::kOcp;
  for (const char* azure : {"CostInBillingCurrency", "costInBillingCurrency", "PreTaxCost",
                            "MeterCategory", "meterCategory", "ConsumedService"})
    if (contains(first_line, azure)) return Format::kAzure;
  return Format::kAuto;
}

namespace {

core::Result<SourceSummary> read_impl(const std::string& path, Format format, const Sink& sink,
                                      const std::function<void(std::string_view)>& tap,
                                      bool digest) {
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
      if (auto s =
              read_parquet_records(::fileno(f.get()), path,
                                   [&](const CsvRecord& r) { return pipeline->table_record(r); });
          !s)
        return s.error();
      if (auto s = decoded.end(); !s) return s.error();
      return out;
    }
  }
  auto info = decode_source(path, decoded);
  if (!info) return info.error();
  if (out.members.empty())
    return core::make_error(core::ErrorCode::kInvalidInput, "the file is empty", name);
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

core::Result<SourceSummary> read_source(const std::string& path, Format format, const Sink& sink,
                                        bool digest) {
  return read_impl(path, format, sink, {}, digest);
}

core::Result<ReadSummary> read_text(std::string_view text, const std::string& origin, Format format,
                                    const Sink& sink) {
  Pipeline pipeline(format, origin, sink, 0);
  if (auto s = pipeline.feed(text); !s) return s.error();
  return pipeline.finish();
}

}  // namespace aicost::billing
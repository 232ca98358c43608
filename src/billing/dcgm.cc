// dcgm-exporter telemetry: Prometheus text exposition 0.0.4 and its CSV form
// (../shared/reference/finops.md §9 for the fields and units; ../shared/reference/ecosystem.md (iv)
// for the text format).
#include "dcgm.h"

#include <array>
#include <charconv>
#include <cmath>

#include "aicost/core/text.h"
#include "dialect.h"
#include "guard.h"

namespace aicost::billing {
namespace {

// A scrape line is a few hundred bytes; a megabyte without a newline is not a scrape.
constexpr std::size_t kMaxLine = std::size_t{1} << 20;
constexpr double kMiB = 1024.0 * 1024.0;
// DCGM_INT32_BLANK (dcgm_structs.h): at and above it a field holds no reading; NVML's UINT32_MAX
// (4294967295, go-dcgm #75) is one of these. Energy in mJ legitimately grows past it.
constexpr double kInt32Blank = 2147483632.0;
constexpr double kInt64Blank = 9223372036854775792.0;  // DCGM_INT64_BLANK

enum class Field { kHost, kGpu, kUuid, kModel, kNs, kPod, kContainer, kJob };

struct LabelRule {
  std::string_view name;
  Field field;
  int rank;  // the higher rank wins when a line has several labels for one field
};

// exported_* are dcgm-exporter's own labels when Prometheus scraped it through a Service: the plain
// names then hold the exporter's pod, so exported_* rank first. pod_name, pod_namespace and
// container_name are dcgm-exporter's --use-old-namespace (1.x) spellings.
constexpr std::array kLabels{
    LabelRule{"Hostname", Field::kHost, 1},
    LabelRule{"hostname", Field::kHost, 0},
    LabelRule{"gpu", Field::kGpu, 0},
    LabelRule{"UUID", Field::kUuid, 1},
    LabelRule{"uuid", Field::kUuid, 0},
    LabelRule{"modelName", Field::kModel, 0},
    LabelRule{"exported_namespace", Field::kNs, 2},
    LabelRule{"namespace", Field::kNs, 1},
    LabelRule{"pod_namespace", Field::kNs, 0},
    LabelRule{"exported_pod", Field::kPod, 2},
    LabelRule{"pod", Field::kPod, 1},
    LabelRule{"pod_name", Field::kPod, 0},
    LabelRule{"exported_container", Field::kContainer, 2},
    LabelRule{"container", Field::kContainer, 1},
    LabelRule{"container_name", Field::kContainer, 0},
    LabelRule{"exported_job", Field::kJob, 1},
    LabelRule{"job", Field::kJob, 0},
};

std::string& field_of(ledger::GpuSample& g, Field f) {
  switch (f) {
    case Field::kHost: return g.host;
    case Field::kGpu: return g.gpu;
    case Field::kUuid: return g.uuid;
    case Field::kModel: return g.model_name;
    case Field::kNs: return g.ns;
    case Field::kPod: return g.pod;
    case Field::kContainer: return g.container;
    case Field::kJob: return g.job;
  }
  return g.job;
}

// Fills the label fields of one sample, keeping the highest-ranked label of each field.
class Labels {
 public:
  explicit Labels(ledger::GpuSample& g) : g_(g) { rank_.fill(-1); }
  // An empty value is the same as no label (Prometheus data model).
  void set(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    for (const auto& r : kLabels) {
      if (r.name != name) continue;
      auto& rank = rank_[static_cast<std::size_t>(r.field)];
      if (r.rank > rank) {
        rank = r.rank;
        field_of(g_, r.field).assign(value);
      }
      return;
    }
  }

 private:
  ledger::GpuSample& g_;
  std::array<int, 8> rank_{};
};

bool blank(char c) { return c == ' ' || c == '\t'; }
std::string_view trim(std::string_view s) {
  while (!s.empty() && (blank(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A Prometheus float: decimal, NaN, +Inf, -Inf (any case, as the Go parser accepts).
std::optional<double> parse_number(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty() || s.front() == '+') return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

ledger::UnixSeconds seconds_of_ms(std::int64_t ms) { return ms / 1000 - (ms % 1000 < 0 ? 1 : 0); }

const char* exported_range(ledger::GpuMetric m) {
  switch (m) {
    case ledger::GpuMetric::kGpuUtil: return "a percentage 0-100";
    case ledger::GpuMetric::kSmActive:
    case ledger::GpuMetric::kGrEngineActive:
    case ledger::GpuMetric::kTensorActive:
    case ledger::GpuMetric::kDramActive: return "a ratio >= 0";
    case ledger::GpuMetric::kFbUsed:
    case ledger::GpuMetric::kFbFree: return "MiB >= 0";
    case ledger::GpuMetric::kPower: return "watts >= 0";
    case ledger::GpuMetric::kEnergy: return "millijoules >= 0";
  }
  return "";
}

void warn_garbage(IssueLog& log, std::int64_t line, ledger::GpuMetric m, std::string_view text) {
  log.warn_repeated(line, "value", std::string("garbage ") + ledger::gpu_metric_name(m),
                    quote_cell(text) + " is not a reading of " + ledger::gpu_metric_name(m) +
                        " (" + exported_range(m) +
                        "; dcgm-exporter reports garbage such as 4294967295 when the driver has no value); "
                        "the sample is skipped");
}

void warn_no_gpu(IssueLog& log, const ledger::GpuSample& g) {
  if (g.gpu.empty() && g.uuid.empty())
    log.warn_repeated(g.line, "gpu", "no gpu",
                      "the sample has no gpu or UUID label; loaded, but it cannot be told apart from other GPUs");
}

std::string excerpt(std::string_view line) {
  return line.size() <= 80 ? std::string(line) : std::string(core::utf8_prefix(line, 77)) + "...";
}

// One sample line: name{labels} value [timestamp_ms]. On failure `error` says what was expected
// and `column` (1-based) where.
struct ParsedLine {
  std::string_view name;
  double value = 0;
  std::string_view value_text;
  std::optional<std::int64_t> timestamp_ms;
  std::string error;
  std::size_t column = 0;
};

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

bool parse_sample(std::string_view s, Labels& labels, ParsedLine& out) {
  std::size_t i = 0;
  auto fail = [&](std::string what) {
    out.error = std::move(what);
    out.column = i + 1;
    return false;
  };
  auto skip_blanks = [&] {
    while (i < s.size() && blank(s[i])) ++i;
  };
  if (i >= s.size() || !name_start(s[i])) return fail("expected a metric name");
  while (i < s.size() && name_char(s[i])) ++i;
  out.name = s.substr(0, i);
  skip_blanks();
  std::string value;
  if (i < s.size() && s[i] == '{') {
    ++i;
    for (;;) {
      skip_blanks();
      if (i < s.size() && s[i] == '}') break;
      const std::size_t start = i;
      if (i >= s.size() || !name_start(s[i]) || s[i] == ':') return fail("expected a label name or '}'");
      while (i < s.size() && name_char(s[i]) && s[i] != ':') ++i;
      const std::string_view label = s.substr(start, i - start);
      skip_blanks();
      if (i >= s.size() || s[i] != '=') return fail("expected '=' after label " + std::string(label));
      ++i;
      skip_blanks();
      if (i >= s.size() || s[i] != '"') return fail("expected '\"' to open the value of label " + std::string(label));
      ++i;
      value.clear();
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < s.size()) {
          const char e = s[i + 1];
          // \\, \" and \n are the escapes; others stay as written, as Prometheus keeps them.
          if (e == 'n') value += '\n';
          else if (e == '\\' || e == '"') value += e;
          else value.append(s.substr(i, 2));
          i += 2;
        } else {
          value += s[i++];
        }
      }
      if (i >= s.size()) return fail("the value of label " + std::string(label) + " has no closing '\"'");
      ++i;
      labels.set(label, value);
      skip_blanks();
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      if (i < s.size() && s[i] == '}') break;
      return fail("expected ',' or '}' after label " + std::string(label));
    }
    ++i;
  }
  if (i == out.name.size() && (i >= s.size() || !blank(s[i])))
    return fail(i >= s.size() ? "expected a value after the metric name" : "unexpected character in the metric name");
  skip_blanks();
  std::size_t start = i;
  while (i < s.size() && !blank(s[i])) ++i;
  out.value_text = s.substr(start, i - start);
  if (out.value_text.empty()) return fail("expected a value");
  const auto v = parse_number(out.value_text);
  if (!v) {
    i = start;
    return fail(quote_cell(out.value_text) + " is not a number");
  }
  out.value = *v;
  skip_blanks();
  if (i < s.size()) {
    start = i;
    while (i < s.size() && !blank(s[i])) ++i;
    out.timestamp_ms = parse_int(s.substr(start, i - start));
    if (!out.timestamp_ms) {
      i = start;
      return fail("the timestamp must be whole milliseconds since the epoch");
    }
    skip_blanks();
    if (i < s.size()) return fail("unexpected text after the timestamp");
  }
  return true;
}

}  // namespace

std::optional<double> convert_dcgm_value(ledger::GpuMetric m, double v) {
  if (!std::isfinite(v) || v < 0) return std::nullopt;
  switch (m) {
    case ledger::GpuMetric::kGpuUtil:
      if (v > 100) return std::nullopt;
      return v / 100;
    case ledger::GpuMetric::kSmActive:
    case ledger::GpuMetric::kGrEngineActive:
    case ledger::GpuMetric::kTensorActive:
    case ledger::GpuMetric::kDramActive:
      // Kept above 1: SM_ACTIVE reads > 1.0 on MIG (DCGM #152); a blank is far above.
      if (v >= kInt32Blank) return std::nullopt;
      return v;
    case ledger::GpuMetric::kFbUsed:
    case ledger::GpuMetric::kFbFree:
      if (v >= kInt32Blank) return std::nullopt;
      return v * kMiB;
    case ledger::GpuMetric::kPower:
      if (v >= kInt32Blank) return std::nullopt;
      return v;
    case ledger::GpuMetric::kEnergy:
      if (v >= kInt64Blank) return std::nullopt;
      return v / 1000;
  }
  return std::nullopt;
}

// --- Prometheus text ----------------------------------------------------------------------------

DcgmTextReader::DcgmTextReader(const Sink& sink, IssueLog& log, ledger::UnixSeconds scrape_time)
    : sink_(sink), log_(log), scrape_time_(scrape_time) {}

core::Status DcgmTextReader::feed(std::string_view bytes) {
  return split_lines(bytes, partial_, line_no_, "Prometheus text exposition",
                     [this](std::string_view l) { return line(l); });
}

// The format wants a final newline; a scrape cut after its last sample is still read.
core::Status DcgmTextReader::finish() {
  if (partial_.empty()) return {};
  auto s = line(partial_);
  partial_.clear();
  return s;
}

core::Status DcgmTextReader::line(std::string_view text) {
  ++line_no_;
  if (text.size() > kMaxLine)
    return core::make_error(core::ErrorCode::kParse, "a line longer than 1 MiB; this is not Prometheus text exposition",
                            "line " + std::to_string(line_no_));
  if (!core::utf8_clean(text)) {  // the byte policy (guard.h): repaired, warned once per file
    repaired_.clear();
    core::utf8_repair_append(text, repaired_);
    log_.warn_repeated(line_no_, "", "utf8", [&] { return "the line " + repair_message(text, repaired_); });
    text = repaired_;
  }
  if (line_no_ == 1 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  text = trim(text);
  if (text.empty() || text.front() == '#') return {};  // # HELP, # TYPE, # EOF, comments
  ++records_;
  ledger::GpuSample g;
  Labels labels(g);
  ParsedLine p;
  if (!parse_sample(text, labels, p)) {
    ++rejected_;
    log_.error(line_no_, "",
               "line " + std::to_string(line_no_) + ", column " + std::to_string(p.column) +
                   ": not a Prometheus sample (" + p.error + "): " + excerpt(text));
    return {};
  }
  const auto metric = ledger::gpu_metric_from_name(p.name);
  if (!metric) return {};  // a field the ledger does not keep
  const auto value = convert_dcgm_value(*metric, p.value);
  if (!value) {
    warn_garbage(log_, line_no_, *metric, p.value_text);
    return {};
  }
  g.line = line_no_;
  g.time = p.timestamp_ms ? seconds_of_ms(*p.timestamp_ms) : scrape_time_;
  if (!time_in_range(static_cast<double>(g.time))) {
    ++rejected_;
    log_.error(line_no_, "",
               "line " + std::to_string(line_no_) + ": the timestamp " + std::to_string(*p.timestamp_ms) +
                   " (milliseconds) is " + time_out_of_range(g.time > 0));
    return {};
  }
  g.metric = *metric;
  g.value = *value;
  warn_no_gpu(log_, g);
  ++loaded_;
  return sink_.sample ? sink_.sample(std::move(g)) : core::Status{};
}

// --- CSV ----------------------------------------------------------------------------------------

core::Status DcgmCsvReader::header(const std::vector<std::string_view>& names, IssueLog& log) {
  Columns cols(names);
  metric_ = cols.find({"metric", "__name__"});
  value_ = cols.find({"value"});
  if (metric_ < 0 || value_ < 0)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            std::string("not a dcgm-exporter CSV: no '") + (metric_ < 0 ? "metric" : "value") +
                                "' column");
  time_ = cols.find({"timestamp", "time"});
  // Where both a plain and an exported_* column exist, the exported one is the workload's.
  host_ = cols.find({"Hostname", "hostname"});
  gpu_ = cols.find({"gpu"});
  uuid_ = cols.find({"UUID", "uuid"});
  model_ = cols.find({"modelName"});
  ns_ = cols.find({"exported_namespace", "namespace", "pod_namespace"});
  pod_ = cols.find({"exported_pod", "pod", "pod_name"});
  container_ = cols.find({"exported_container", "container", "container_name"});
  job_ = cols.find({"exported_job", "job"});
  labels_ = cols.find({"labels_json", "labels"});
  return cols.check_duplicates(log);
}

bool DcgmCsvReader::row(const CsvRecord& rec, ledger::GpuSample& out, IssueLog& log, bool& skipped) {
  skipped = false;
  const auto name = trim(cell(rec, metric_));
  if (name.empty()) {
    log.error(rec.line, "metric", "no metric name");
    return false;
  }
  const auto metric = ledger::gpu_metric_from_name(name);
  if (!metric) {
    skipped = true;
    return false;
  }
  const auto text = trim(cell(rec, value_));
  const auto exported = parse_number(text);
  if (!exported) {
    log.error(rec.line, "value", quote_cell(text) + " is not a number");
    return false;
  }
  const auto value = convert_dcgm_value(*metric, *exported);
  if (!value) {
    warn_garbage(log, rec.line, *metric, text);
    skipped = true;
    return false;
  }
  out = ledger::GpuSample{};
  out.line = rec.line;
  out.metric = *metric;
  out.value = *value;
  out.time = default_time_;
  const auto when = trim(cell(rec, time_));
  bool out_of_range = false;
  if (!is_null(when)) {
    if (const auto n = parse_number(when); n && std::isfinite(*n)) {
      // Unix seconds, or milliseconds as Prometheus writes them (1e11 s is the year 5138).
      const double seconds = std::floor(std::abs(*n) >= 1e11 ? *n / 1000 : *n);
      if (!time_in_range(seconds)) {
        log.error(rec.line, "timestamp", quote_cell(when) + " is " + time_out_of_range(seconds > 0));
        return false;
      }
      out.time = static_cast<ledger::UnixSeconds>(seconds);
    } else if (const auto t = parse_datetime(when, nullptr, &out_of_range)) {
      out.time = *t;
    } else {
      log.error(rec.line, "timestamp",
                not_a_datetime(when, out_of_range, "a time (RFC 3339, or Unix seconds or milliseconds)"));
      return false;
    }
  }
  // labels_json carries every label; the label columns, when filled, win.
  Labels labels(out);
  const auto json = trim(cell(rec, labels_));
  if (!is_null(json)) {
    if (const auto tags = parse_tag_object(json)) {
      for (const auto& t : tags->tags) labels.set(t.key, t.value);
    } else {
      log.warn_repeated(rec.line, "labels_json", "not json", "not a JSON object of labels; the label columns are used");
    }
  }
  const std::array columns{std::pair{host_, Field::kHost},   std::pair{gpu_, Field::kGpu},
                           std::pair{uuid_, Field::kUuid},   std::pair{model_, Field::kModel},
                           std::pair{ns_, Field::kNs},       std::pair{pod_, Field::kPod},
                           std::pair{container_, Field::kContainer}, std::pair{job_, Field::kJob}};
  for (const auto& [index, field] : columns) {
    const auto v = trim(cell(rec, index));
    if (!v.empty()) field_of(out, field).assign(v);
  }
  warn_no_gpu(log, out);
  return true;
}

}  // namespace aicost::billing

// dcgm-exporter's Prometheus text, as a scrape of :9400/metrics returns it (text exposition
// 0.0.4: ../shared/reference/ecosystem.md (iv)).
#include <charconv>
#include <cmath>

#include "aicost/core/text.h"
#include "cells.h"
#include "dcgm.h"
#include "dcgm_common.h"
#include "guard.h"

namespace aicost::billing {
namespace {

using dcgm::blank;
using dcgm::Labels;
using dcgm::parse_number;
using dcgm::trim;
using dcgm::warn_garbage;
using dcgm::warn_no_gpu;

// A scrape line is a few hundred bytes; a megabyte without a newline is not a scrape.
constexpr std::size_t kMaxLine = std::size_t{1} << 20;

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

ledger::UnixSeconds seconds_of_ms(std::int64_t ms) { return ms / 1000 - (ms % 1000 < 0 ? 1 : 0); }

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

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
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
      if (i >= s.size() || !name_start(s[i]) || s[i] == ':')
        return fail("expected a label name or '}'");
      while (i < s.size() && name_char(s[i]) && s[i] != ':') ++i;
      const std::string_view label = s.substr(start, i - start);
      skip_blanks();
      if (i >= s.size() || s[i] != '=')
        return fail("expected '=' after label " + std::string(label));
      ++i;
      skip_blanks();
      if (i >= s.size() || s[i] != '"')
        return fail("expected '\"' to open the value of label " + std::string(label));
      ++i;
      value.clear();
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < s.size()) {
          const char e = s[i + 1];
          // \\, \" and \n are the escapes; others stay as written, as Prometheus keeps them.
          if (e == 'n')
            value += '\n';
          else if (e == '\\' || e == '"')
            value += e;
          else
            value.append(s.substr(i, 2));
          i += 2;
        } else {
          value += s[i++];
        }
      }
      if (i >= s.size())
        return fail("the value of label " + std::string(label) + " has no closing '\"'");
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
    return fail(i >= s.size() ? "expected a value after the metric name"
                              : "unexpected character in the metric name");
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
    return core::make_error(core::ErrorCode::kParse,
                            "a line longer than 1 MiB; this is not Prometheus text exposition",
                            "line " + std::to_string(line_no_));
  if (!core::utf8_clean(text)) {  // the byte policy (guard.h): repaired, warned once per file
    repaired_.clear();
    core::utf8_repair_append(text, repaired_);
    log_.warn_repeated(line_no_, "", "utf8",
                       [&] { return "the line " + repair_message(text, repaired_); });
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
               "line " + std::to_string(line_no_) + ": the timestamp " +
                   std::to_string(*p.timestamp_ms) + " (milliseconds) is " +
                   time_out_of_range(g.time > 0));
    return {};
  }
  g.metric = *metric;
  g.value = *value;
  warn_no_gpu(log_, g);
  ++loaded_;
  return sink_.sample ? sink_.sample(std::move(g)) : core::Status{};
}

}  // namespace aicost::billing

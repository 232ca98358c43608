#include "values.h"

#include <nlohmann/json.hpp>

#include "aicost/core/amount.h"

#include <algorithm>
#include <cctype>

namespace aicost::billing {
namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

bool valid_date(int y, int m, int d) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

ledger::UnixSeconds to_seconds(int y, int m, int d, int hh, int mm, int ss) {
  return static_cast<ledger::UnixSeconds>(
             ledger::days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d))) *
             86400 +
         hh * 3600 + mm * 60 + ss;
}

// "HH:MM[:SS[.fff]]" at pos; advances pos.
bool parse_time(std::string_view s, std::size_t& pos, int& hh, int& mm, int& ss) {
  if (!digits(s, pos, 2, hh) || pos + 2 >= s.size() || s[pos + 2] != ':' ||
      !digits(s, pos + 3, 2, mm))
    return false;
  pos += 5;
  ss = 0;
  if (pos < s.size() && s[pos] == ':') {
    if (!digits(s, pos + 1, 2, ss)) return false;
    pos += 3;
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
    }
  }
  return hh < 24 && mm < 60 && ss < 61;
}

}  // namespace

bool is_null(std::string_view v) {
  return v.empty() || ((v.size() == 4) && (v == "NULL" || v == "null" || v == "Null"));
}

std::optional<ledger::UnixSeconds> parse_datetime(std::string_view s, DateForm* form) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  int y = 0, m = 0, d = 0, hh = 0, mm = 0, ss = 0;
  if (s.size() >= 10 && s[4] == '-' && s[7] == '-') {
    if (!digits(s, 0, 4, y) || !digits(s, 5, 2, m) || !digits(s, 8, 2, d) || !valid_date(y, m, d))
      return std::nullopt;
    if (s.size() == 10) {
      if (form) *form = DateForm::kDateOnly;
      return to_seconds(y, m, d, 0, 0, 0);
    }
    const char sep = s[10];
    if (sep != 'T' && sep != ' ') return std::nullopt;
    std::size_t pos = 11;
    if (!parse_time(s, pos, hh, mm, ss)) return std::nullopt;
    auto t = to_seconds(y, m, d, hh, mm, ss);
    if (pos == s.size()) {
      if (form) *form = DateForm::kNoZone;
      return t;
    }
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      if (form) *form = sep == 'T' ? DateForm::kIso : DateForm::kNoZone;
      return t;
    }
    if (s[pos] == '+' || s[pos] == '-') {
      const int sign = s[pos] == '+' ? 1 : -1;
      int oh = 0, om = 0;
      if (!digits(s, pos + 1, 2, oh)) return std::nullopt;
      std::size_t p = pos + 3;
      if (p < s.size() && s[p] == ':') ++p;
      if (!digits(s, p, 2, om) || p + 2 != s.size() || oh > 14 || om > 59) return std::nullopt;
      if (form) *form = (oh == 0 && om == 0 && sep == 'T') ? DateForm::kIso : DateForm::kOffset;
      return t - sign * (oh * 3600 + om * 60);
    }
    return std::nullopt;
  }
  // M/D/YYYY [HH:MM[:SS]]
  const auto slash1 = s.find('/');
  if (slash1 == 1 || slash1 == 2) {
    const auto slash2 = s.find('/', slash1 + 1);
    if (slash2 == std::string_view::npos || slash2 - slash1 - 1 < 1 || slash2 - slash1 - 1 > 2)
      return std::nullopt;
    // Four-digit years, or two-digit ones read as 20YY (the FOCUS SaaS examples write "4/1/25").
    std::size_t year_digits = 0;
    while (slash2 + 1 + year_digits < s.size() &&
           std::isdigit(static_cast<unsigned char>(s[slash2 + 1 + year_digits])))
      ++year_digits;
    if ((year_digits != 4 && year_digits != 2) || !digits(s, 0, slash1, m) ||
        !digits(s, slash1 + 1, slash2 - slash1 - 1, d) || !digits(s, slash2 + 1, year_digits, y))
      return std::nullopt;
    if (year_digits == 2) y += 2000;
    if (!valid_date(y, m, d)) return std::nullopt;
    std::size_t pos = slash2 + 1 + year_digits;
    if (pos < s.size()) {
      if (s[pos] != ' ') return std::nullopt;
      ++pos;
      if (pos < s.size() && pos + 1 < s.size() && s[pos + 1] == ':') {
        // H:MM
        std::string padded = "0" + std::string(s.substr(pos));
        std::size_t p = 0;
        if (!parse_time(padded, p, hh, mm, ss) || p != padded.size()) return std::nullopt;
      } else if (!parse_time(s, pos, hh, mm, ss) || pos != s.size()) {
        return std::nullopt;
      }
    }
    if (form) *form = DateForm::kUsDate;
    return to_seconds(y, m, d, hh, mm, ss);
  }
  return std::nullopt;
}

std::optional<ParsedTags> parse_tag_object(std::string_view v) {
  ParsedTags out;
  nlohmann::json j = nlohmann::json::parse(v, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    std::string wrapped = "{" + std::string(v) + "}";
    j = nlohmann::json::parse(wrapped, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    out.braceless = true;
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_string())
      out.tags.push_back({it.key(), it->get<std::string>()});
    else if (it->is_primitive() && !it->is_null())
      out.tags.push_back({it.key(), it->dump()});
    else if (it->is_null())
      out.tags.push_back({it.key(), ""});
    else
      out.skipped.push_back(it.key());
  }
  return out;
}

void TagReader::read(const CsvRecord& r, int i, std::string_view column,
                     std::vector<ledger::Tag>& tags, IssueLog& log) {
  const auto t = cell(r, i);
  if (is_null(t)) {
    tags.clear();
    return;
  }
  constexpr std::size_t kMaxCached = 4096;
  auto it = cache_.find(t);
  if (it == cache_.end()) {
    if (cache_.size() >= kMaxCached) cache_.clear();
    it = cache_.emplace(std::string(t), parse_tag_object(t)).first;
  }
  const auto& parsed = it->second;
  if (!parsed) {
    tags.clear();
    log.warn(r.line, column,
             std::string(column) + " is not a JSON object ('" + std::string(t.substr(0, 40)) +
                 "'); the row is loaded untagged");
    return;
  }
  tags = parsed->tags;
  if (parsed->braceless)
    log.warn_repeated(
        r.line, column, "braceless",
        std::string(column) + " is a JSON object without its outer braces; read with them");
  for (const auto& k : parsed->skipped)
    log.warn(r.line, column,
             "tag '" + k + "' has a nested value (FOCUS allows scalars only); skipped");
}

void IssueLog::error(std::int64_t line, std::string_view column, std::string message) {
  ++errors_;
  pending_.push_back(
      {line, std::string(column), ledger::RowIssue::Severity::kError, std::move(message)});
}

void IssueLog::warn(std::int64_t line, std::string_view column, std::string message) {
  pending_.push_back(
      {line, std::string(column), ledger::RowIssue::Severity::kWarning, std::move(message)});
}

void IssueLog::flush(const Sink& sink) {
  for (auto& [key, r] : repeated_) {
    std::string msg = r.message;
    if (r.count > 1) msg += " (" + std::to_string(r.count) + " rows, the first here)";
    pending_.push_back(
        {r.first_line, r.column, ledger::RowIssue::Severity::kWarning, std::move(msg)});
  }
  repeated_.clear();
  std::stable_sort(
      pending_.begin(), pending_.end(),
      [](const ledger::RowIssue& a, const ledger::RowIssue& b) { return a.line < b.line; });
  if (sink.issue)
    for (auto& i : pending_) sink.issue(std::move(i));
  pending_.clear();
}

Columns::Columns(const std::vector<std::string_view>& names) {
  for (auto n : names) {
    while (!n.empty() && (n.back() == ' ' || n.back() == '\r')) n.remove_suffix(1);
    while (!n.empty() && n.front() == ' ') n.remove_prefix(1);
    names_.emplace_back(n);
  }
}

int Columns::find(std::initializer_list<std::string_view> wanted) const {
  for (auto w : wanted)
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == w) return static_cast<int>(i);
  auto iequal = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) ==
                    std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (auto w : wanted)
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (iequal(names_[i], w)) return static_cast<int>(i);
  return -1;
}

std::optional<ledger::UnixSeconds> required_time(const CsvRecord& r, int i, std::string_view column,
                                                 IssueLog& log, DateForm* form) {
  const auto text = cell(r, i);
  const auto t = parse_datetime(text, form);
  if (!t)
    log.error(r.line, column,
              is_null(text) ? std::string(column) + " is null; the row has no time"
                            : "'" + std::string(text.substr(0, 40)) + "' is not a date-time");
  return t;
}

AmountCell amount_cell(const CsvRecord& r, int i, std::string_view column, IssueLog& log,
                       std::int64_t& rounded) {
  AmountCell out;
  auto v = cell(r, i);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  out.text = std::string(v.substr(0, 40));
  if (is_null(v)) {
    out.null = true;
    return out;
  }
  const auto a = core::parse_amount(v);
  if (!a) {
    out.bad = true;
    return out;
  }
  if (a->rounded) {
    ++rounded;
    log.warn_repeated(r.line, column, "rounded", [&] {
      return "'" + out.text + "' has digits below 1e-9; rounded half to even";
    });
  }
  out.value = a->nanos;
  return out;
}

std::optional<double> quantity_cell(const CsvRecord& r, int i, std::string_view column,
                                    IssueLog& log) {
  const auto v = cell(r, i);
  if (is_null(v)) return std::nullopt;
  const std::string s(v);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') {
    log.warn(r.line, column, "'" + s.substr(0, 40) + "' is not a number; left empty");
    return std::nullopt;
  }
  return d;
}

std::string text_cell(const CsvRecord& r, int i) {
  const auto v = cell(r, i);
  return is_null(v) ? std::string() : std::string(v);
}

std::optional<std::int64_t> required_cost(const CsvRecord& r, int i, std::string_view column,
                                          IssueLog& log, std::int64_t& rounded) {
  auto v = amount_cell(r, i, column, log, rounded);
  if (!v.value)
    log.error(r.line, column,
              v.null ? std::string(column) + " is null; the row has no cost"
                     : "'" + v.text + "' is not a decimal number");
  return v.value;
}

std::int64_t cost_or(const CsvRecord& r, int i, std::string_view column, std::int64_t fallback,
                     std::string_view fallback_name, IssueLog& log, std::int64_t& rounded) {
  if (i < 0) return fallback;
  auto v = amount_cell(r, i, column, log, rounded);
  if (v.value) return *v.value;
  if (v.null) return fallback;
  log.warn(r.line, column,
           "'" + v.text + "' is not a decimal number; taken as " + std::string(fallback_name));
  return fallback;
}

std::string currency_cell(const CsvRecord& r, int i, std::string_view column, IssueLog& log) {
  auto c = text_cell(r, i);
  if (!c.empty()) return c;
  if (i >= 0)
    log.warn_repeated(r.line, column, "null", std::string(column) + " is null; stored under XXX");
  return "XXX";
}

std::vector<std::pair<int, std::string>> tag_columns(const Columns& cols, std::string_view prefix) {
  std::vector<std::pair<int, std::string>> out;
  for (std::size_t i = 0; i < cols.names().size(); ++i) {
    const auto& n = cols.names()[i];
    if (n.size() > prefix.size() && n.compare(0, prefix.size(), prefix) == 0)
      out.emplace_back(static_cast<int>(i), n.substr(prefix.size()));
  }
  return out;
}

void add_tag_cells(const CsvRecord& r, const std::vector<std::pair<int, std::string>>& tag_cols,
                   std::vector<ledger::Tag>& tags) {
  for (const auto& [i, key] : tag_cols)
    if (auto v = text_cell(r, i); !v.empty()) tags.push_back({key, std::move(v)});
}

ledger::UnixSeconds month_start(ledger::UnixSeconds t) {
  return parse_datetime(ledger::day_text(ledger::day_of(t)).substr(0, 8) + "01").value_or(t);
}

}  // namespace aicost::billing

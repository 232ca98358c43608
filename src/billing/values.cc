#include "values.h"

#include <nlohmann/json.hpp>

#include "aicost/core/amount.h"
#include "aicost/core/currency.h"
#include "aicost/core/text.h"

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

// A calendar date, of any four-digit year (parse_datetime checks the range).
bool valid_date(int y, int m, int d) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
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

namespace {

// parse_datetime without the range check; `y` is the year written.
std::optional<ledger::UnixSeconds> parse_any(std::string_view s, DateForm* form, int& y) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  int m = 0, d = 0, hh = 0, mm = 0, ss = 0;
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
    // Go's time.Time.String(), as koku's OpenShift reports write it: "2019-02-01 00:00:00 +0000 UTC"
    // (a space before the offset, the zone's abbreviation after it).
    std::string_view zone;
    if (s[pos] == ' ' && pos + 1 < s.size() && (s[pos + 1] == '+' || s[pos + 1] == '-')) {
      ++pos;
      if (const auto space = s.find(' ', pos); space != std::string_view::npos) {
        zone = s.substr(space + 1);
        s = s.substr(0, space);
        if (zone.empty() || zone.size() > 6 ||
            !std::all_of(zone.begin(), zone.end(), [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); }))
          return std::nullopt;
      }
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

}  // namespace

std::optional<ledger::UnixSeconds> parse_datetime(std::string_view s, DateForm* form, bool* out_of_range) {
  if (out_of_range) *out_of_range = false;
  int year = 0;
  const auto t = parse_any(s, form, year);
  if (t && (year < kMinYear || year > kMaxYear)) {
    if (out_of_range) *out_of_range = true;
    return std::nullopt;
  }
  return t;
}

bool time_in_range(double seconds) {
  const double min = static_cast<double>(ledger::days_from_civil(kMinYear, 1, 1)) * 86400;
  const double max = static_cast<double>(ledger::days_from_civil(kMaxYear + 1, 1, 1)) * 86400;
  return seconds >= min && seconds < max;
}

std::string time_out_of_range(bool above) {
  return above ? "out of range (max " + std::to_string(kMaxYear) + "-12-31T23:59:59Z)"
               : "out of range (min " + std::to_string(kMinYear) + "-01-01T00:00:00Z)";
}

std::string not_a_datetime(std::string_view v, bool out_of_range, std::string_view what) {
  if (!out_of_range) return quote_cell(v) + " is not " + std::string(what);
  int year = 0;
  parse_any(v, nullptr, year);
  return quote_cell(v) + " is " + time_out_of_range(year > kMaxYear);
}

std::string quote_cell(std::string_view v) {
  const auto head = core::utf8_prefix(v, 40);
  return "'" + std::string(head) + (head.size() < v.size() ? "...'" : "'");
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
  // The cell was valid UTF-8 (the reader repaired it), and the JSON parser refuses ill-formed
  // escapes, but "\u0000" is a NUL in a key or value: repaired like a NUL byte.
  for (auto& t : out.tags)
    for (std::string* s : {&t.key, &t.value})
      if (!core::utf8_clean(*s)) {
        *s = core::utf8_repair(*s);
        out.repaired = true;
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
  // Bounded in entries and in bytes: cells may be up to 1 MiB (guard.h).
  constexpr std::size_t kMaxCached = 4096, kMaxCachedBytes = std::size_t{16} << 20;
  auto it = cache_.find(t);
  if (it == cache_.end()) {
    if (cache_.size() >= kMaxCached || cached_bytes_ + t.size() > kMaxCachedBytes) {
      cache_.clear();
      cached_bytes_ = 0;
    }
    it = cache_.emplace(std::string(t), parse_tag_object(t)).first;
    cached_bytes_ += t.size();
  }
  const auto& parsed = it->second;
  if (!parsed) {
    tags.clear();
    log.warn(r.line, column,
             std::string(column) + " is not a JSON object (" + quote_cell(t) + "); the row is loaded untagged");
    return;
  }
  tags = parsed->tags;
  if (parsed->braceless)
    log.warn_repeated(
        r.line, column, "braceless",
        std::string(column) + " is a JSON object without its outer braces; read with them");
  if (parsed->repaired)
    log.warn_repeated(r.line, column, "nul", [&] {
      return std::string(column) + " has a key or value with \\u0000 (a NUL); replaced by U+FFFD";
    });
  // Once per column, not per key and row: a row of thousands of nested keys is one finding.
  if (!parsed->skipped.empty())
    log.warn_repeated(r.line, column, "nested", [&] {
      const auto n = parsed->skipped.size();
      return n == 1 ? "tag " + quote_cell(parsed->skipped.front()) +
                          " has a nested value (FOCUS allows scalars only); skipped"
                    : "tags " + quote_cell(parsed->skipped.front()) + " and " + std::to_string(n - 1) +
                          " more have nested values (FOCUS allows scalars only); skipped";
    });
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

namespace {

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

int Columns::index_of(std::string_view w) const {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == w) return static_cast<int>(i);
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (iequal(names_[i], w)) return static_cast<int>(i);
  return -1;
}

int Columns::find(std::initializer_list<std::string_view> wanted) const {
  int found = -1;
  for (auto w : wanted)
    for (std::size_t i = 0; i < names_.size() && found < 0; ++i)
      if (names_[i] == w) found = static_cast<int>(i);
  for (auto w : wanted)
    for (std::size_t i = 0; i < names_.size() && found < 0; ++i)
      if (iequal(names_[i], w)) found = static_cast<int>(i);
  mark_read(found);
  return found;
}

bool Columns::has(std::string_view name) const { return index_of(name) >= 0; }

void Columns::mark_read(int i) const {
  if (i < 0) return;
  if (read_.size() < names_.size()) read_.resize(names_.size());
  read_[static_cast<std::size_t>(i)] = true;
}

core::Status Columns::check_duplicates(IssueLog& log) const {
  std::unordered_map<std::string, std::vector<std::size_t>> by_name;
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (!names_[i].empty()) by_name[lower(names_[i])].push_back(i);
  std::vector<const std::vector<std::size_t>*> repeated;
  for (const auto& [name, at] : by_name)
    if (at.size() > 1) repeated.push_back(&at);
  std::sort(repeated.begin(), repeated.end(), [](auto* a, auto* b) { return a->front() < b->front(); });
  for (const auto* at : repeated) {
    std::string positions;
    bool read = false;
    for (std::size_t k = 0; k < at->size(); ++k) {
      positions += (k == 0 ? "" : k + 1 == at->size() ? " and " : ", ") + std::to_string((*at)[k] + 1);
      read = read || ((*at)[k] < read_.size() && read_[(*at)[k]]);
    }
    const std::string& name = names_[at->front()];
    const std::string what = "column " + quote_cell(name) + " appears " + std::to_string(at->size()) +
                             " times (columns " + positions + ")";
    if (read)
      return core::make_error(core::ErrorCode::kInvalidInput,
                              what + "; it is read, and which one holds the data is ambiguous: "
                                     "remove or rename all but one");
    log.note(name, what + "; it is not read, so this changes nothing");
  }
  return {};
}

std::optional<ledger::UnixSeconds> required_time(const CsvRecord& r, int i, std::string_view column,
                                                 IssueLog& log, DateForm* form) {
  const auto text = cell(r, i);
  bool out_of_range = false;
  const auto t = parse_datetime(text, form, &out_of_range);
  if (!t)
    log.error(r.line, column,
              is_null(text) ? std::string(column) + " is null; the row has no time"
                            : not_a_datetime(text, out_of_range));
  return t;
}

AmountCell amount_cell(const CsvRecord& r, int i, std::string_view column, IssueLog& log,
                       std::int64_t& rounded) {
  AmountCell out;
  auto v = cell(r, i);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  out.cell = v;
  if (is_null(v)) {
    out.null = true;
    return out;
  }
  const auto a = core::parse_amount(v, &out.out_of_range);
  if (!a) {
    out.bad = true;
    return out;
  }
  if (a->rounded) {
    ++rounded;
    log.warn_repeated(r.line, column, "rounded",
                      [&] { return quote_cell(v) + " has digits below 1e-9; rounded half to even"; });
  }
  out.value = a->nanos;
  return out;
}

std::string AmountCell::why_not() const {
  const std::string text = quote_cell(cell);
  if (out_of_range)
    return text + " is out of range (max ±" + std::string(core::kMaxAmountText) + ", what one amount holds exactly)";
  return text + " is not a decimal number";
}

std::optional<double> quantity_cell(const CsvRecord& r, int i, std::string_view column,
                                    IssueLog& log) {
  const auto v = cell(r, i);
  if (is_null(v)) return std::nullopt;
  const std::string s(v);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') {
    log.warn(r.line, column, quote_cell(s) + " is not a number; left empty");
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
              v.null ? std::string(column) + " is null; the row has no cost" : v.why_not());
  return v.value;
}

std::int64_t cost_or(const CsvRecord& r, int i, std::string_view column, std::int64_t fallback,
                     std::string_view fallback_name, IssueLog& log, std::int64_t& rounded) {
  if (i < 0) return fallback;
  auto v = amount_cell(r, i, column, log, rounded);
  if (v.value) return *v.value;
  if (v.null) return fallback;
  log.warn(r.line, column, v.why_not() + "; taken as " + std::string(fallback_name));
  return fallback;
}

std::string currency_cell(const CsvRecord& r, int i, std::string_view column, IssueLog& log) {
  const auto v = cell(r, i);
  std::string c = is_null(v) ? std::string() : core::normalise_currency(v);
  if (c.empty()) {
    if (i >= 0)
      log.warn_repeated(r.line, column, "null", std::string(column) + " is null; stored under XXX");
    return "XXX";
  }
  if (!core::is_iso4217(c))
    log.warn_repeated(r.line, column, "value:" + c, [&] {
      return quote_cell(c) + " is not an ISO 4217 currency code; stored as written" +
             (c.size() == 3 ? "" : " (codes are three letters, as USD)");
    });
  else if (c != v)
    log.warn_repeated(r.line, column, "case", [&] {
      return quote_cell(v) + " is not written as ISO 4217 writes it; stored as " + c;
    });
  return c;
}

std::vector<std::pair<int, std::string>> tag_columns(const Columns& cols, std::string_view prefix) {
  std::vector<std::pair<int, std::string>> out;
  for (std::size_t i = 0; i < cols.names().size(); ++i) {
    const auto& n = cols.names()[i];
    if (n.size() > prefix.size() && n.compare(0, prefix.size(), prefix) == 0) {
      out.emplace_back(static_cast<int>(i), n.substr(prefix.size()));
      cols.mark_read(static_cast<int>(i));
    }
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

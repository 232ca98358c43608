#include "cells.h"

#include <nlohmann/json.hpp>

#include "aicost/core/amount.h"
#include "aicost/core/currency.h"
#include "aicost/core/text.h"

namespace aicost::billing {

bool is_null(std::string_view v) {
  return v.empty() || ((v.size() == 4) && (v == "NULL" || v == "null" || v == "Null"));
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
             std::string(column) + " is not a JSON object (" + quote_cell(t) +
                 "); the row is loaded untagged");
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
      return n == 1
                 ? "tag " + quote_cell(parsed->skipped.front()) +
                       " has a nested value (FOCUS allows scalars only); skipped"
                 : "tags " + quote_cell(parsed->skipped.front()) + " and " + std::to_string(n - 1) +
                       " more have nested values (FOCUS allows scalars only); skipped";
    });
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
    log.warn_repeated(r.line, column, "rounded", [&] {
      return quote_cell(v) + " has digits below 1e-9; rounded half to even";
    });
  }
  out.value = a->nanos;
  return out;
}

std::string AmountCell::why_not() const {
  const std::string text = quote_cell(cell);
  if (out_of_range)
    return text + " is out of range (max ±" + std::string(core::kMaxAmountText) +
           ", what one amount holds exactly)";
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

void add_tag_cells(const CsvRecord& r, const std::vector<std::pair<int, std::string>>& tag_cols,
                   std::vector<ledger::Tag>& tags) {
  for (const auto& [i, key] : tag_cols)
    if (auto v = text_cell(r, i); !v.empty()) tags.push_back({key, std::move(v)});
}

ledger::UnixSeconds month_start(ledger::UnixSeconds t) {
  return parse_datetime(ledger::day_text(ledger::day_of(t)).substr(0, 8) + "01").value_or(t);
}

}  // namespace aicost::billing

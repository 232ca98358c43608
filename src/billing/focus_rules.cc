#include "focus_rules.h"

#include <algorithm>
#include <charconv>

namespace aicost::billing::focus_rules {
namespace {

#include "focus_rules.inc"

bool is_decimal(std::string_view v) {
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  double d = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  return !v.empty() && ec == std::errc() && end == v.data() + v.size();
}

std::string with_rule(std::string message, std::string_view rule) {
  message.append(" (FOCUS rule ").append(rule).append(")");
  return message;
}

}  // namespace

bool is_json_object(std::string_view v) {
  const auto first = v.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || v[first] != '{') return false;
  const auto parsed = parse_tag_object(v);
  return parsed && !parsed->braceless;
}

std::span<const ColumnRule> column_rules() { return kColumnRules; }
std::span<const DeprecatedColumn> deprecated_columns() { return kDeprecated; }

std::vector<std::string_view> missing_mandatory(Dataset dataset, std::string_view version,
                                                const Columns& cols) {
  std::vector<std::string_view> out;
  for (const auto& r : kColumnRules)
    if (r.dataset == dataset && !r.mandatory_rule.empty() && r.since <= version &&
        !cols.has(r.column))
      out.push_back(r.column);
  return out;
}

void RowChecker::bind(Dataset dataset, const Columns& cols, Scope scope,
                      std::span<const std::string_view> skip,
                      std::span<const std::string_view> only) {
  bound_.clear();
  for (const auto& r : kColumnRules) {
    if (r.dataset != dataset || !cols.has(r.column)) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), r.column) == only.end()) continue;
    const bool skipped = std::find(skip.begin(), skip.end(), r.column) != skip.end();
    Bound b{-1, &r, false, false};
    if (scope == Scope::kAll && !skipped) {
      b.check_null = !r.not_null_rule.empty();
      b.check_kind = r.kind != Kind::kAny;
    }
    // The reader's own enumeration checks go on through here for every version (same messages).
    if (!b.check_null && !b.check_kind && r.allowed.empty()) continue;
    for (std::size_t i = 0; i < cols.names().size(); ++i)
      if (cols.names()[i] == r.column) {
        b.index = static_cast<int>(i);
        break;
      }
    if (b.index < 0) continue;  // present only in another case: the reader notes it
    bound_.push_back(b);
  }
}

void RowChecker::check(const CsvRecord& r, IssueLog& log) const {
  for (const auto& b : bound_) {
    const auto v = cell(r, b.index);
    const auto& rule = *b.rule;
    if (is_null(v)) {
      if (b.check_null)
        log.warn_repeated(r.line, rule.column, "rule:null", [&] {
          return with_rule(std::string(rule.column) + " is null; FOCUS requires a value",
                           rule.not_null_rule);
        });
      continue;
    }
    if (b.check_kind) {
      bool ok = true;
      const char* what = "";
      switch (rule.kind) {
        case Kind::kDecimal: ok = is_decimal(v), what = "a decimal number"; break;
        case Kind::kDateTime: ok = parse_datetime(v).has_value(), what = "a date-time"; break;
        case Kind::kJsonObject: ok = is_json_object(v), what = "a JSON object"; break;
        case Kind::kAny: break;
      }
      if (!ok)
        log.warn_repeated(r.line, rule.column, "rule:kind", [&] {
          return with_rule(quote_cell(v) + " is not " + what, rule.kind_rule);
        });
    }
    if (!rule.allowed.empty() &&
        std::find(rule.allowed.begin(), rule.allowed.end(), v) == rule.allowed.end()) {
      const std::string value(v);
      log.warn_repeated(r.line, rule.column, "value:" + value, [&] {
        return "'" + value + "' is not a FOCUS " + std::string(rule.column) + " value";
      });
    }
  }
}

}  // namespace aicost::billing::focus_rules

#include "aicost/ledger/charge.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

namespace aicost::ledger {

Day day_of(UnixSeconds t) {
  // Floor division, so instants before 1970 fall on the right day too.
  return static_cast<Day>(t >= 0 ? t / 86400 : (t - 86399) / 86400);
}

// Howard Hinnant's civil-date algorithms (public domain, "chrono-Compatible Low-Level Date
// Algorithms").
Day days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<Day>(era * 146097 + static_cast<int>(doe) - 719468);
}

std::string day_text(Day z) {
  z += 719468;
  const int era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int y = static_cast<int>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", y, m, d);
  return buf;
}

unsigned days_in_month(int y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12) return 0;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

core::Result<Day> parse_day(std::string_view text, DayForm form) {
  auto number = [&](std::size_t at, std::size_t n, unsigned& out) {
    out = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (i >= text.size() || text[i] < '0' || text[i] > '9') return false;
      out = out * 10 + static_cast<unsigned>(text[i] - '0');
    }
    return true;
  };
  const bool month_only = form == DayForm::kDayOrMonth && text.size() == 7;
  unsigned y = 0, m = 0, d = 1;
  if ((text.size() != 10 && !month_only) || !number(0, 4, y) || text[4] != '-' ||
      !number(5, 2, m) || (!month_only && (text[7] != '-' || !number(8, 2, d))))
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "'" + std::string(text) + "' is not a date; write YYYY-MM-DD" +
                                (form == DayForm::kDayOrMonth ? " (or YYYY-MM for the 1st)" : ""));
  static constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};
  const std::string where(text);
  if (m < 1 || m > 12)
    return core::make_error(
        core::ErrorCode::kInvalidInput,
        where + ": there is no month " + std::string(text.substr(5, 2)) + "; write 01 to 12");
  const int year = static_cast<int>(y);
  const unsigned last = days_in_month(year, m);
  if (d < 1)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            where + ": there is no day 00; days start at 01");
  if (d > last)
    return core::make_error(core::ErrorCode::kInvalidInput,
                            where + ": " + kMonths[m - 1] + " " + std::string(text.substr(0, 4)) +
                                " has " + std::to_string(last) + " days");
  return days_from_civil(year, m, d);
}

std::size_t TagsHash::operator()(const std::vector<Tag>& tags) const {
  std::size_t h = tags.size();
  for (const auto& t : tags) {
    h = h * 1000003u ^ std::hash<std::string_view>{}(t.key);
    h = h * 1000003u ^ std::hash<std::string_view>{}(t.value);
  }
  return h;
}

void clear(Charge& c) {
  c.line = 0;
  c.period_start = c.period_end = c.billing_period_start = 0;
  c.billed = c.effective = c.list = 0;
  c.contracted.reset();
  for (std::string* s : text_fields(c)) s->clear();
  c.pricing_quantity.reset();
  c.consumed_quantity.reset();
  c.gpu_hours = 0;
  c.tags.clear();
}

std::string canonical_tag_key(std::string_view key) {
  std::string out;
  out.reserve(key.size() + 4);
  char prev = 0;
  for (char c : key) {
    const bool upper = c >= 'A' && c <= 'Z';
    if (c == '-' || c == ' ' || c == '_' || c == '.' || c == '\t') {
      if (!out.empty() && out.back() != '_') out.push_back('_');
    } else {
      // camelCase boundary: "CostCenter" -> "cost_center" (but "GPU" stays "gpu").
      if (upper && ((prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9')) && !out.empty() &&
          out.back() != '_')
        out.push_back('_');
      out.push_back(upper ? static_cast<char>(c - 'A' + 'a') : c);
    }
    prev = c;
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

namespace {

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace

std::string tagset_text(const std::vector<Tag>& tags) {
  if (tags.empty()) return {};
  std::vector<std::pair<std::string, std::string_view>> sorted;
  sorted.reserve(tags.size());
  for (const auto& t : tags) sorted.emplace_back(canonical_tag_key(t.key), t.value);
  std::sort(sorted.begin(), sorted.end());
  std::string out = "{";
  for (const auto& [k, v] : sorted) {
    if (out.size() > 1) out.push_back(',');
    append_json_string(out, k);
    out.push_back(':');
    append_json_string(out, v);
  }
  out.push_back('}');
  return out;
}

}  // namespace aicost::ledger

#include "datetime.h"

#include <algorithm>
#include <cctype>

#include "cells.h"

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
  return m >= 1 && d >= 1 &&
         static_cast<unsigned>(d) <= ledger::days_in_month(y, static_cast<unsigned>(m));
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
    // Go's time.Time.String(), as koku's OpenShift reports write it: "2019-02-01 00:00:00 +0000
    // UTC" (a space before the offset, the zone's abbreviation after it).
    std::string_view zone;
    if (s[pos] == ' ' && pos + 1 < s.size() && (s[pos + 1] == '+' || s[pos + 1] == '-')) {
      ++pos;
      if (const auto space = s.find(' ', pos); space != std::string_view::npos) {
        zone = s.substr(space + 1);
        s = s.substr(0, space);
        if (zone.empty() || zone.size() > 6 || !std::all_of(zone.begin(), zone.end(), [](char ch) {
              return std::isalpha(static_cast<unsigned char>(ch));
            }))
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

std::optional<ledger::UnixSeconds> parse_datetime(std::string_view s, DateForm* form,
                                                  bool* out_of_range) {
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

}  // namespace aicost::billing

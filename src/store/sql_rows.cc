#include "sql_rows.h"

#include <charconv>

namespace aicost::store {

// Exact parse of an integer NUMERIC ("-123456789012345678901") into 128 bits; false on anything
// else.
bool parse_wide(std::string_view s, core::WideNanos& out) {
  constexpr core::WideNanos kMax = ((core::WideNanos{1} << 126) - 1) + (core::WideNanos{1} << 126);
  constexpr core::WideNanos kMin = -kMax - 1;
  std::size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) ++i;
  if (i == s.size()) return false;
  core::WideNanos v = 0;  // accumulated as a negative number so that kMin itself parses
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const int d = s[i] - '0';
    if (v < kMin / 10) return false;
    v *= 10;
    if (v < kMin + d) return false;
    v -= d;
  }
  if (!negative && v == kMin) return false;
  out = negative ? v : -v;
  return true;
}

std::int64_t SqlRows::i64(std::size_t r, int c) const {
  const auto& v = rows[r][c];
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* s = std::get_if<std::string>(&v)) {
    std::int64_t out = 0;
    const auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), out);
    if (ec == std::errc() && p == s->data() + s->size()) return out;
  }
  if (!null(r, c)) ok_ = false;
  return 0;
}

double SqlRows::real(std::size_t r, int c) const {
  const auto& v = rows[r][c];
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v)) {
    double out = 0;
    const auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), out);
    if (ec == std::errc() && p == s->data() + s->size()) return out;
  }
  if (!null(r, c)) ok_ = false;
  return 0;
}

std::string SqlRows::text(std::size_t r, int c) const {
  const auto& v = rows[r][c];
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (!null(r, c)) ok_ = false;
  return {};
}

std::string_view SqlRows::view(std::size_t r, int c) const {
  if (const auto* s = std::get_if<std::string>(&rows[r][c])) return *s;
  if (!null(r, c)) ok_ = false;
  return {};
}

core::WideNanos SqlRows::wide(std::size_t r, int c) const {
  const auto& v = rows[r][c];
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  core::WideNanos out = 0;
  if (const auto* s = std::get_if<std::string>(&v); s && parse_wide(*s, out)) return out;
  if (!null(r, c)) ok_ = false;
  return 0;
}

}  // namespace aicost::store

#include "aicost/core/amount.h"

#include <algorithm>
#include <cstdlib>

namespace aicost::core {
namespace {

constexpr WideNanos kMaxNanos = static_cast<WideNanos>(INT64_MAX);

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<ParsedAmount> out_of_range_result(bool& range) {
  range = true;
  return std::nullopt;
}

}  // namespace

std::optional<ParsedAmount> parse_amount(std::string_view s, bool* out_of_range) {
  bool ignored = false;
  bool& range = out_of_range ? *out_of_range : ignored;
  range = false;
  if (s.empty()) return std::nullopt;
  bool negative = false;
  std::size_t i = 0;
  if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
  // Digits of the mantissa without the point, and where the point sits.
  std::string digits;
  int point = -1;
  for (; i < s.size(); ++i) {
    if (is_digit(s[i])) {
      if (!digits.empty() || s[i] != '0' || point >= 0) digits.push_back(s[i]);  // no leading zeros
    } else if (s[i] == '.' && point < 0) {
      point = static_cast<int>(digits.size());
    } else {
      break;
    }
  }
  const std::size_t mantissa_end = i;
  const bool had_digit = std::any_of(s.begin() + (s[0] == '+' || s[0] == '-' ? 1 : 0),
                                     s.begin() + mantissa_end, is_digit);
  if (!had_digit) return std::nullopt;
  int exponent = 0;
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return std::nullopt;
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    if (i == s.size()) return std::nullopt;
    for (; i < s.size(); ++i) {
      if (!is_digit(s[i])) return std::nullopt;
      if (exponent <= 1000) exponent = exponent * 10 + (s[i] - '0');
    }
    if (exponent > 1000) {  // beyond any amount (or a long way of writing 0)
      range = !exp_negative &&
              std::any_of(digits.begin(), digits.end(), [](char c) { return c != '0'; });
      return std::nullopt;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (point < 0) point = static_cast<int>(digits.size());
  // value = 0.digits * 10^(point + exponent); nanos = digits * 10^(point + exponent + 9 - n).
  const int shift = point + exponent + 9 - static_cast<int>(digits.size());
  WideNanos value = 0;
  bool rounded = false;
  const int keep = static_cast<int>(digits.size()) + std::min(shift, 0);
  for (int k = 0; k < keep; ++k) {
    value = value * 10 + (digits[k] - '0');
    if (value > kMaxNanos) return out_of_range_result(range);
  }
  for (int k = 0; k < shift; ++k) {
    value *= 10;
    if (value > kMaxNanos) return out_of_range_result(range);
  }
  if (keep < static_cast<int>(digits.size())) {
    // Round half to even on the dropped digits.
    const int first = keep < 0 ? -1 : digits[keep] - '0';
    bool rest_nonzero = false;
    for (int k = std::max(keep + 1, 0); k < static_cast<int>(digits.size()); ++k)
      rest_nonzero |= digits[k] != '0';
    if (keep < 0) {  // every digit is below 1e-9 and at least one position lower
      rest_nonzero = std::any_of(digits.begin(), digits.end(), [](char c) { return c != '0'; });
    }
    rounded = first > 0 || rest_nonzero;
    if (first > 5 || (first == 5 && (rest_nonzero || value % 2 == 1))) ++value;
    if (value > kMaxNanos) return out_of_range_result(range);
  }
  return ParsedAmount{static_cast<std::int64_t>(negative ? -value : value), rounded};
}

std::string format_amount(WideNanos nanos, int decimals) {
  decimals = std::clamp(decimals, 0, 9);
  const bool negative = nanos < 0;
  WideNanos v = negative ? -nanos : nanos;
  WideNanos scale = 1;
  for (int k = 0; k < 9 - decimals; ++k) scale *= 10;
  v = (v + scale / 2) / scale;  // half away from zero
  WideNanos unit = 1;
  for (int k = 0; k < decimals; ++k) unit *= 10;
  WideNanos whole = v / unit, frac = v % unit;
  std::string w;
  do {
    w.insert(w.begin(), static_cast<char>('0' + static_cast<int>(whole % 10)));
    whole /= 10;
  } while (whole > 0);
  std::string out;
  if (negative && v != 0) out.push_back('-');
  out.append(w);
  if (decimals > 0) {
    std::string f(static_cast<std::size_t>(decimals), '0');
    for (int k = decimals - 1; k >= 0; --k, frac /= 10)
      f[k] = static_cast<char>('0' + static_cast<int>(frac % 10));
    out += "." + f;
  }
  return out;
}

std::string format_amount_exact(WideNanos nanos) {
  std::string s = format_amount(nanos, 9);
  const auto dot = s.find('.');
  while (s.back() == '0') s.pop_back();
  if (s.size() == dot + 1) s.pop_back();
  return s;
}

}  // namespace aicost::core

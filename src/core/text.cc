#include "aicost/core/text.h"

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace aicost::core {

std::string sprintf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, args);
  va_end(args);
  return out;
}

std::string group_digits(double value, int decimals) {
  std::string s = sprintf("%.*f", decimals, std::fabs(value));
  const size_t dot = s.find('.');
  const size_t int_end = dot == std::string::npos ? s.size() : dot;
  std::string out;
  for (size_t i = 0; i < int_end; ++i) {
    if (i > 0 && (int_end - i) % 3 == 0) out.push_back(',');
    out.push_back(s[i]);
  }
  out += s.substr(int_end);
  // "-0" is not a useful thing to print.
  const bool zero = std::round(std::fabs(value) * std::pow(10.0, decimals)) == 0;
  return (value < 0 && !zero ? "-" : "") + out;
}

std::string format_bytes(double bytes) {
  static const char* kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  int i = 0;
  while (bytes >= 1000 && i < 6) {
    bytes /= 1000;
    ++i;
  }
  return sprintf(i == 0 ? "%.0f %s" : "%.3g %s", bytes, kUnits[i]);
}

std::string utc_now_iso() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace aicost::core

// Small text helpers for messages and drivers (printf-style; the report module uses fmt).
#pragma once

#include <string>

namespace aicost::core {

// printf into a std::string.
std::string sprintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// 1234567.8 -> "1,234,568" (digits grouped, rounded to `decimals`).
std::string group_digits(double value, int decimals = 0);

// Bytes with an SI unit: 2.45e12 -> "2.45 TB".
std::string format_bytes(double bytes);

// The system clock's time now as ISO 8601 UTC to the second: "2026-11-30T01:23:45Z".
std::string utc_now_iso();

}  // namespace aicost::core

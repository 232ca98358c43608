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

}  // namespace aicost::core

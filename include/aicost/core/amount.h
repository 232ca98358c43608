// Exact money for the ledger: a signed count of nano-units (1e-9) of one currency, never a double.
//
// Nano rather than micro: real exports price sub-micro charges (AWS S3 requests at 4e-7 USD, FOCUS
// sample costs with 11 decimals), and a ledger that rounds them to 1e-6 loses real money in sums.
// int64 nano-units hold ±9.2e9 per value; sums are taken in __int128 (docs/LEDGER.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aicost::core {

inline constexpr std::int64_t kNanosPerUnit = 1'000'000'000;
// Sums of nano-amounts: 128 bits, so a ledger total never overflows.
__extension__ typedef __int128 WideNanos;

struct ParsedAmount {
  std::int64_t nanos = 0;
  bool rounded = false;  // the text had digits below 1e-9, rounded half to even
};

// The largest value one amount may hold: INT64_MAX nano-units, 9,223,372,036.854775807.
inline constexpr std::string_view kMaxAmountText = "9223372036.854775807";

// Parses a plain or scientific decimal ("12.5", "-0.000000040", "1.2E-06", "+3", ".5", "1e3")
// exactly, without going through floating point. Returns nullopt for anything else (empty text,
// "1,5", "NaN", "12 USD") or a value beyond ±kMaxAmountText; `out_of_range` (when given) tells
// the second case from the first.
std::optional<ParsedAmount> parse_amount(std::string_view text, bool* out_of_range = nullptr);

// The amount with `decimals` digits after the point, rounded half away from zero ("-1.50").
std::string format_amount(WideNanos nanos, int decimals);
// The amount with every significant digit, no trailing zeros ("0.00000004", "12", "-3.5").
std::string format_amount_exact(WideNanos nanos);

}  // namespace aicost::core

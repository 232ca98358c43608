#include "aicost/core/currency.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace aicost::core {
namespace {

// Sorted, for a binary search (a static_assert keeps it so). Source: see currency.h.
constexpr std::array<std::string_view, 183> kCodes{
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD",
    "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUC", "CUP",
    "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP",
    "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HRK", "HTG", "HUF", "IDR",
    "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW",
    "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA",
    "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD",
    "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG",
    "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE",
    "SLL", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP",
    "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED",
    "VES", "VND", "VUV", "WST", "XAF", "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XCD", "XCG",
    "XDR", "XOF", "XPD", "XPF", "XPT", "XSU", "XTS", "XUA", "XXX", "YER", "ZAR", "ZMW", "ZWG",
    "ZWL",
};
static_assert(std::is_sorted(kCodes.begin(), kCodes.end()));

// The codes as one bit each of the 26^3 three-letter words: a lookup per charge row costs a few
// instructions, not a binary search of string compares.
constexpr std::size_t kWords = 26 * 26 * 26;
constexpr int word_index(std::string_view c) {
  return ((c[0] - 'A') * 26 + (c[1] - 'A')) * 26 + (c[2] - 'A');
}
constexpr std::array<std::uint64_t, (kWords + 63) / 64> make_bits() {
  std::array<std::uint64_t, (kWords + 63) / 64> bits{};
  for (auto c : kCodes)
    bits[static_cast<std::size_t>(word_index(c)) / 64] |= std::uint64_t{1} << (word_index(c) % 64);
  return bits;
}
constexpr auto kBits = make_bits();

}  // namespace

bool is_iso4217(std::string_view code) {
  if (code.size() != 3) return false;
  for (char c : code)
    if (c < 'A' || c > 'Z') return false;
  const auto i = static_cast<std::size_t>(word_index(code));
  return (kBits[i / 64] >> (i % 64)) & 1;
}

std::string normalise_currency(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  std::string out(text);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

}  // namespace aicost::core

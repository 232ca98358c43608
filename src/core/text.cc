#include "aicost/core/text.h"

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#if defined(__SSE2__)
#include <emmintrin.h>  // x86-64 always has SSE2
#endif

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

namespace {
char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower_ascii(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower_ascii(a[i]) != lower_ascii(b[i])) return false;
  return true;
}

std::string utc_now_iso() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

constexpr std::uint64_t kHighBits = 0x8080808080808080ull;
constexpr std::uint64_t kLowBits = 0x0101010101010101ull;

// The length of the well-formed UTF-8 sequence at s[i] (Unicode 15, Table 3-7), or 0 when the
// bytes there are ill-formed; `maximal` is then the length of the maximal subpart (>= 1) that one
// U+FFFD replaces. NUL counts as ill-formed (length 0, maximal 1).
std::size_t sequence_at(std::string_view s, std::size_t i, std::size_t& maximal) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  maximal = 1;
  if (c != 0 && c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c == 0xE0)
    n = 3, lo = 0xA0;  // no overlongs
  else if (c == 0xED)
    n = 3, hi = 0x9F;  // no surrogates
  else if (c >= 0xE1 && c <= 0xEF)
    n = 3;
  else if (c == 0xF0)
    n = 4, lo = 0x90;  // no overlongs
  else if (c == 0xF4)
    n = 4, hi = 0x8F;  // nothing above U+10FFFF
  else if (c >= 0xF1 && c <= 0xF3)
    n = 4;
  else
    return 0;  // NUL, a continuation byte, C0, C1, F5..FF
  for (std::size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) return 0;
    const unsigned char x = b(i + k);
    if (x < (k == 1 ? lo : 0x80) || x > (k == 1 ? hi : 0xBF)) return 0;
    maximal = k + 1;
  }
  return n;
}

// Whether any of the 8 bytes is 0x00 or >= 0x80 (the classic has-zero-byte test, Hacker's
// Delight 6-1, plus the high bits).
bool word_needs_look(std::uint64_t v) { return ((v | ((v - kLowBits) & ~v)) & kHighBits) != 0; }

// From p[i], skips whole blocks of ASCII without NUL: returns the offset of the first byte that
// may need a look (SSE2: exactly that byte), or of the tail too short for a block.
std::size_t skip_ascii(const unsigned char* p, std::size_t i, std::size_t n) {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // High bit of each byte: set for bytes >= 0x80, and (through the compare) for NULs.
    const int mask = _mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, zero)));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  while (i + 8 <= n) {
    std::uint64_t v;
    std::memcpy(&v, p + i, sizeof v);
    if (word_needs_look(v)) return i;
    i += 8;
  }
  return i;
}

}  // namespace

std::size_t utf8_first_bad(std::string_view s) {
  const std::size_t n = s.size();
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0;
  while (i < n) {
    i = skip_ascii(p, i, n);
    if (i >= n) break;
    if (p[i] - 1u < 0x7Fu) {  // ASCII other than NUL: in the tail, or before a byte to look at
      ++i;
      continue;
    }
    std::size_t maximal = 0;
    const std::size_t len = sequence_at(s, i, maximal);
    if (len == 0) return i;
    i += len;
  }
  return n;
}

void utf8_repair_append(std::string_view s, std::string& out) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t bad = i + utf8_first_bad(s.substr(i));
    out.append(s.substr(i, bad - i));
    if (bad >= s.size()) break;
    std::size_t maximal = 0;
    sequence_at(s, bad, maximal);
    out.append(kReplacement);
    i = bad + maximal;
  }
}

std::string utf8_repair(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  utf8_repair_append(s, out);
  return out;
}

std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t end = max_bytes;
  // Step back over continuation bytes (at most 3) to the lead byte, and drop that sequence if it
  // does not fit whole.
  std::size_t lead = end;
  while (lead > 0 && end - lead < 4 && (static_cast<unsigned char>(s[lead]) & 0xC0) == 0x80) --lead;
  if (lead < end) {
    std::size_t maximal = 0;
    const std::size_t len = sequence_at(s, lead, maximal);
    if (len > 0 && lead + len > end) end = lead;
  }
  return s.substr(0, end);
}

}  // namespace aicost::core

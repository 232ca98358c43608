// Small text helpers for messages and drivers (printf-style; the report module uses fmt).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace aicost::core {

// printf into a std::string.
std::string sprintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// 1234567.8 -> "1,234,568" (digits grouped, rounded to `decimals`).
std::string group_digits(double value, int decimals = 0);

// Bytes with an SI unit: 2.45e12 -> "2.45 TB".
std::string format_bytes(double bytes);

// s with ASCII A-Z lowered (other bytes, UTF-8 included, kept), and a comparison that ignores
// ASCII case: for names, headers, schemes and enum words, never for prose.
std::string ascii_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);

// --- UTF-8 (the ledger's byte policy, docs/LEDGER.md "Bad input") ------------------------------
//
// Text that is "clean" is well-formed UTF-8 (Unicode 15, Table 3-7: no overlong forms, no
// surrogates U+D800..U+DFFF, nothing above U+10FFFF) and holds no NUL byte, which PostgreSQL
// refuses in text and C strings cut at.

// The offset of the first byte that is not part of clean text; s.size() when s is clean. ASCII
// is checked eight bytes at a time, so clean ASCII costs about one instruction per byte.
std::size_t utf8_first_bad(std::string_view s);
inline bool utf8_clean(std::string_view s) { return utf8_first_bad(s) == s.size(); }

// s with every NUL and every ill-formed sequence replaced by U+FFFD (EF BF BD), one per maximal
// subpart as Unicode 15 §3.9 "U+FFFD Substitution of Maximal Subparts" (and the WHATWG Encoding
// standard) recommend: "\xE2\x82" (a truncated euro sign) is one U+FFFD, "\xFC" one, "\xED\xA0\x80"
// (a surrogate) three. Clean text is returned as it is. Appends to `out` (the second form).
std::string utf8_repair(std::string_view s);
void utf8_repair_append(std::string_view s, std::string& out);

// The longest prefix of s of at most max_bytes that does not end inside a multi-byte UTF-8
// sequence (for excerpts in messages: a cut in the middle of "ü" would make the message itself
// invalid). Bytes of s that are ill-formed anyway are kept as they are.
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

// The system clock's time now as ISO 8601 UTC to the second: "2026-11-30T01:23:45Z".
std::string utc_now_iso();

}  // namespace aicost::core

// Independent checks for the ledger tests: a CSV splitter and an exact decimal sum that share no
// code with the readers, so "the ledger's total equals the file's total" is a real comparison.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace aicost::testing {

__extension__ typedef __int128 Int128;

inline std::string samples_dir() {
  return std::string(AICOST_SOURCE_DIR) + "/../shared/data/billing-samples/";
}

// RFC 4180 records of a whole file (quotes, doubled quotes, newlines in quotes; BOM skipped).
inline std::vector<std::vector<std::string>> naive_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty()) rows.back().push_back(field), rows.emplace_back();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// A plain or scientific decimal as an integer count of 1e-18, exactly (test-only, no rounding
// below 1e-18 is needed by the samples).
inline Int128 atto(const std::string& s) {
  std::size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  Int128 mant = 0;
  int scale = 0;
  bool point = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.')
      point = true;
    else
      mant = mant * 10 + (s[i] - '0'), scale += point;
  }
  int exp = i < s.size() ? std::stoi(s.substr(i + 1)) : 0;
  int shift = 18 - scale + exp;
  for (; shift > 0; --shift) mant *= 10;
  for (; shift < 0; ++shift) mant /= 10;
  return neg ? -mant : mant;
}

// Sum of `column` per value of `currency_column` ("" = one bucket), in 1e-18; NULL/empty skipped.
inline std::map<std::string, Int128> independent_sum(const std::string& path,
                                                     const std::string& column,
                                                     const std::string& currency_column) {
  const auto rows = naive_csv(path);
  std::map<std::string, Int128> out;
  if (rows.empty()) return out;
  int col = -1, cur = -1;
  for (std::size_t i = 0; i < rows[0].size(); ++i) {
    if (rows[0][i] == column) col = static_cast<int>(i);
    if (rows[0][i] == currency_column) cur = static_cast<int>(i);
  }
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    if (col < 0 || static_cast<std::size_t>(col) >= row.size()) continue;
    const auto& v = row[static_cast<std::size_t>(col)];
    if (v.empty() || v == "NULL") continue;
    const std::string currency = cur >= 0 ? row[static_cast<std::size_t>(cur)] : "";
    out[currency] += atto(v);
  }
  return out;
}

// Nano-units (the ledger's scale) of an atto amount, for comparisons with tolerance.
inline double atto_to_nanos(Int128 a) { return static_cast<double>(a) / 1e9; }

}  // namespace aicost::testing

// Private to config: helpers shared by the readers of validation CSVs (training and inference).
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/core/result.h"
#include "aicost/core/text.h"

namespace aicost::config {

using Row = std::map<std::string, std::string>;

inline std::string lower(std::string_view s) { return core::ascii_lower(s); }

// Lower-case letters and digits only, for matching model names.
inline std::string squash(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c)) out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

// The number in column `col`, or `fallback` when the cell is empty or absent. A cell that is not
// one number throws std::invalid_argument naming the column: the row is then skipped with that
// reason, never read as 0.
inline double number(const Row& r, const std::string& col, double fallback = 0) {
  auto it = r.find(col);
  if (it == r.end()) return fallback;
  const std::string& text = it->second;
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return fallback;
  const auto last = text.find_last_not_of(" \t");
  double v = 0;
  const char* end = text.data() + last + 1;
  const auto [ptr, ec] = std::from_chars(text.data() + first, end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) {
    throw std::invalid_argument("column '" + col + "' is not a number: '" + text + "'");
  }
  return v;
}

inline std::optional<double> find_number(const std::string& text, const std::string& pattern,
                                         bool ignore_case = true) {
  std::smatch m;
  const auto flags = ignore_case ? std::regex::icase : std::regex::ECMAScript;
  if (std::regex_search(text, m, std::regex(pattern, flags))) return std::stod(m[1]);
  return std::nullopt;
}

// The preset whose name or alias appears in the row name (longest match wins).
inline const catalog::ModelSpec* preset_for(const std::string& name, const catalog::Catalog& cat) {
  const std::string row = squash(name);
  const catalog::ModelSpec* best = nullptr;
  size_t best_len = 0;
  for (const auto& m : cat.models()) {
    std::vector<std::string> names = m.aliases;
    names.push_back(m.name);
    for (const auto& n : names) {
      const std::string key = squash(n);
      if (key.size() > best_len && key.size() >= 5 && row.find(key) != std::string::npos) {
        best = &m;
        best_len = key.size();
      }
    }
  }
  return best;
}

// Reads a CSV file whose first row names the columns; calls `on_row(columns, line)` per record
// (missing trailing cells are empty). Errors: kIo, kParse, kInvalidInput for a missing column.
core::Status read_table(const std::string& path, const std::vector<std::string>& required,
                        const std::function<void(const Row&, int)>& on_row);

}  // namespace aicost::config

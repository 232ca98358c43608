// Private to report: numbers as people read them in tables (digits grouped by thousands), while
// CSV and JSON keep plain digits for programs.
#pragma once

#include <string>

#include "aicost/report/format.h"

namespace aicost::report {

// "1234567.89" -> "1,234,567.89"; "-1234" -> "-1,234"; text that is not a number is returned as is.
inline std::string group_thousands(std::string s) {
  const std::size_t start = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  std::size_t end = s.find('.', start);
  if (end == std::string::npos) end = s.size();
  for (std::size_t i = start; i < end; ++i)
    if (s[i] < '0' || s[i] > '9') return s;
  for (std::size_t i = end; i > start + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

// For people (table, markdown) grouped; for programs (CSV) as written.
inline std::string for_people(std::string plain, Format f) {
  return f == Format::kTable || f == Format::kMarkdown ? group_thousands(std::move(plain)) : plain;
}

}  // namespace aicost::report

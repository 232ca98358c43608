// RFC 4180 CSV of a whole text in memory (core::CsvStream; fields may hold quoted commas and
// newlines).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "aicost/core/result.h"

namespace aicost::config {

// Calls `on_row(fields, line)` for every record, `line` being the 1-based line it starts on.
// Stops at the first error `on_row` returns. Malformed CSV (an unterminated quote) is kParse
// with `origin:line`.
core::Status read_csv(
    std::string_view text, const std::string& origin,
    const std::function<core::Status(const std::vector<std::string>&, int)>& on_row);

}  // namespace aicost::config

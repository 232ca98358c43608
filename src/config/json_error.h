// Private to config: a JSON syntax error as an Error with line:column and a caret.
#pragma once

#include <string>
#include <string_view>

#include "aicost/core/result.h"

namespace aicost::config {

// `byte` and `what` are nlohmann::json::parse_error's byte offset (of the last byte read) and
// message. Returns kParse with context "origin:line:col" and the offending line with a caret.
core::Error json_parse_error(std::string_view text, std::string_view origin, size_t byte,
                             const std::string& what);

}  // namespace aicost::config

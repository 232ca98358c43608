#include "json_error.h"

#include <algorithm>
#include <cctype>

namespace aicost::config {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
bool in_literal(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

}  // namespace

// nlohmann reports the byte offset of the last byte read; users want line:column and the line.
core::Error json_parse_error(std::string_view text, std::string_view origin, size_t byte,
                             const std::string& what) {
  size_t at = byte == 0 ? 0 : std::min<size_t>(byte - 1, text.size());
  if (at == text.size()) {  // end of input: point past the last content, not at an empty line
    while (at > 0 && std::isspace(static_cast<unsigned char>(text[at - 1]))) --at;
  } else if (text[at] == '"') {  // the offset is a token's last byte: move to its start
    const size_t open = text.rfind('"', at == 0 ? 0 : at - 1);
    if (open != std::string_view::npos && text.find('\n', open) >= at) at = open;
  } else {
    // "invalid literal" is reported at the byte after it (often the newline).
    const bool literal = what.find("invalid literal") != std::string_view::npos;
    if (literal && at > 0 && !in_literal(text[at]) && in_literal(text[at - 1])) --at;
    while (at > 0 && in_literal(text[at]) && in_literal(text[at - 1])) --at;
  }
  const size_t nl = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  const size_t line_start = nl == std::string_view::npos ? 0 : nl + 1;
  const size_t line_no = 1 + std::count(text.begin(), text.begin() + line_start, '\n');
  std::string_view line = text.substr(line_start, text.find('\n', line_start) - line_start);
  if (line.ends_with('\r')) line.remove_suffix(1);
  const size_t col_byte = at - line_start;

  // Minified files are one long line: show a window around the column.
  constexpr size_t kShown = 120;
  size_t begin = 0;
  if (line.size() > kShown && col_byte > kShown / 2) {
    begin = col_byte - kShown / 2;
    while (begin < col_byte && is_continuation(line[begin])) ++begin;
  }
  const std::string_view shown = line.substr(begin, kShown);
  // Columns count characters, not bytes; tabs are kept so the caret lines up in a terminal.
  size_t column = 1;
  std::string pad(begin > 0 ? 3 : 0, ' ');
  for (size_t i = 0; i < col_byte && i < line.size(); ++i) {
    if (is_continuation(line[i])) continue;
    ++column;
    if (i >= begin) pad += line[i] == '\t' ? '\t' : ' ';
  }
  std::string reason = what;  // "[json.exception...] parse error at line 1, column 2: why"
  if (auto p = reason.find(": ", reason.find("column")); p != std::string::npos) {
    reason = reason.substr(p + 2);
  }
  // A value that starts where ',' or '}' was expected usually means a missing comma before it.
  size_t prev = at;
  while (prev > 0 && std::isspace(static_cast<unsigned char>(text[prev - 1]))) --prev;
  if (at < text.size() && prev > 0 && reason.find("expected '") != std::string::npos &&
      std::string_view(",{[:").find(text[prev - 1]) == std::string_view::npos) {
    reason += " (is a ',' missing before it?)";
  }
  return core::make_error_at(
      core::ErrorCode::kParse, "malformed JSON: " + reason,
      {std::string(origin), static_cast<int>(line_no), static_cast<int>(column),
       "    " + std::string(begin > 0 ? "..." : "") + std::string(shown) +
           (begin + shown.size() < line.size() ? "..." : "") + "\n    " + pad + "^"});
}

}  // namespace aicost::config

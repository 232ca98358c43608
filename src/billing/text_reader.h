// A reader of a line-oriented text format that is not RFC 4180 CSV (Prometheus text, sacct's
// pipe-separated output): fed bytes in chunks of any size, it hands rows to its sink itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "aicost/core/result.h"

namespace aicost::billing {

class TextReader {
 public:
  virtual ~TextReader() = default;
  virtual core::Status feed(std::string_view bytes) = 0;
  virtual core::Status finish() = 0;
  virtual std::int64_t records() const = 0;   // data lines read
  virtual std::int64_t loaded() const = 0;    // rows or samples handed to the sink
  virtual std::int64_t rejected() const = 0;  // not handed over (each has an error issue)
};

// Splits the bytes a TextReader is fed into lines: calls line(text) for every complete line
// (without its '\n'), keeping a line cut by the end of `bytes` in `partial` for the next call. A
// partial line over 1 MiB is a kParse error: "this is not <what>", at line `lines_read` + 1.
template <class Line>
core::Status split_lines(std::string_view bytes, std::string& partial,
                         const std::int64_t& lines_read, std::string_view what, Line&& line) {
  constexpr std::size_t kMaxLine = std::size_t{1} << 20;
  while (!bytes.empty()) {
    const auto nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      if (partial.size() + bytes.size() > kMaxLine)
        return core::make_error(core::ErrorCode::kParse,
                                "a line longer than 1 MiB; this is not " + std::string(what),
                                "line " + std::to_string(lines_read + 1));
      partial.append(bytes);
      return {};
    }
    if (partial.empty()) {
      AICOST_TRY_STATUS(line(bytes.substr(0, nl)));
    } else {
      partial.append(bytes.substr(0, nl));
      AICOST_TRY_STATUS(line(std::string_view(partial)));
      partial.clear();
    }
    bytes.remove_prefix(nl + 1);
  }
  return {};
}

}  // namespace aicost::billing

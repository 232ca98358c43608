// A reader of a line-oriented text format that is not RFC 4180 CSV (Prometheus text, sacct's
// pipe-separated output): fed bytes in chunks of any size, it hands rows to its sink itself.
#pragma once

#include <cstdint>
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

}  // namespace aicost::billing

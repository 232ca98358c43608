// Files no reader reads, told by their first bytes: compressed or archived data inside a
// compressed file, Parquet met in a stream, UTF-16 and UTF-32 text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace aicost::billing {

// The refusal for a file that is no text any reader reads, saying what to do instead (`path`
// named in the commands it suggests); nullopt for text.
std::optional<std::string> not_text(std::string_view head, const std::string& path);

}  // namespace aicost::billing

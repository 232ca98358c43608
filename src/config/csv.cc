#include "csv.h"

#include "aicost/core/csv.h"

namespace aicost::config {

core::Status read_csv(
    std::string_view text, const std::string& origin,
    const std::function<core::Status(const std::vector<std::string>&, int)>& on_row) {
  std::vector<std::string> fields;
  core::CsvStream stream(origin, [&](const core::CsvRecord& r) {
    fields.assign(r.fields.begin(), r.fields.end());
    return on_row(fields, static_cast<int>(r.line));
  });
  if (auto s = stream.feed(text); !s) return s;
  return stream.finish();
}

}  // namespace aicost::config

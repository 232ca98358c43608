#include "recheck.h"

#include <algorithm>

namespace aicost::store {

core::Result<std::optional<ledger::SourceRecord>> recheck_under_lock(
    const std::vector<ledger::SourceRecord>& same, const std::vector<ledger::SourceRecord>& at_path,
    const std::vector<std::int64_t>& replace) {
  if (!same.empty()) return std::optional<ledger::SourceRecord>(same.front());
  for (const auto& r : at_path)
    if (std::find(replace.begin(), replace.end(), r.id) == replace.end())
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          "another ingest loaded this path while this one waited for the ledger (source #" +
              std::to_string(r.id) + ", " + r.loaded_at +
              "); run this ingest again to compare it with that one",
          r.file.path);
  return std::optional<ledger::SourceRecord>{};
}

}  // namespace aicost::store

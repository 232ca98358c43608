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

std::string periods_text(std::vector<std::string> periods) {
  std::sort(periods.begin(), periods.end());
  periods.erase(std::unique(periods.begin(), periods.end()), periods.end());
  std::string out;
  for (const auto& p : periods) out += (out.empty() ? "" : ",") + p;
  return out;
}

core::Result<std::vector<std::int64_t>> restated(const std::vector<EarlierDelivery>& earlier,
                                                 const std::vector<std::string>& periods) {
  std::vector<std::int64_t> out;
  for (const auto& e : earlier) {
    std::vector<std::string> theirs;
    for (std::size_t start = 0; start <= e.periods.size();) {
      const auto comma = std::min(e.periods.find(',', start), e.periods.size());
      if (comma > start) theirs.push_back(e.periods.substr(start, comma - start));
      start = comma + 1;
    }
    std::size_t shared = 0;
    std::string other;
    for (const auto& p : theirs) {
      if (std::find(periods.begin(), periods.end(), p) != periods.end())
        ++shared;
      else if (other.empty())
        other = p;
    }
    if (shared == 0) continue;
    if (!other.empty())
      return core::make_error(
          core::ErrorCode::kInvalidInput,
          "source #" + std::to_string(e.id) +
              ", an earlier delivery of this export, covers the billing period " + other +
              " as well as some of this one's (" + periods_text(periods) +
              "); a delivery replaces whole earlier deliveries only: load one that covers " +
              e.periods + " too, nothing was changed");
    out.push_back(e.id);
  }
  return out;
}

}  // namespace aicost::store

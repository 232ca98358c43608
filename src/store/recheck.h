// What an ingest looks at again once it holds the ledger's write lock (both backends'
// begin_source): another process may have loaded the same bytes, or the same path, while this one
// waited.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"

namespace aicost::store {

// `same`: the sources holding the file's bytes now; `at_path`: those at its path. The source to
// report as already loaded (the first of `same`); an error when a source at the path is not one
// of `replace` (loading beside it would count the path twice); else nullopt: go on.
core::Result<std::optional<ledger::SourceRecord>> recheck_under_lock(
    const std::vector<ledger::SourceRecord>& same, const std::vector<ledger::SourceRecord>& at_path,
    const std::vector<std::int64_t>& replace);

// An earlier delivery of an export: its source id and billing periods ("2024-09-01,2024-10-01").
struct EarlierDelivery {
  std::int64_t id = 0;
  std::string periods;
};
// Which earlier deliveries of one export a delivery covering `periods` replaces (Store::restate):
// those whose periods all lie among `periods`; an error naming the first that shares a period but
// covers another as well. Deliveries that share no period stay.
core::Result<std::vector<std::int64_t>> restated(const std::vector<EarlierDelivery>& earlier,
                                                 const std::vector<std::string>& periods);
// The periods as stored: sorted, unique, comma-separated.
std::string periods_text(std::vector<std::string> periods);

}  // namespace aicost::store

// What an ingest looks at again once it holds the ledger's write lock (both backends'
// begin_source): another process may have loaded the same bytes, or the same path, while this one
// waited.
#pragma once

#include <cstdint>
#include <optional>
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

}  // namespace aicost::store

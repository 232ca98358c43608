#pragma once

#include <memory>
#include <string>

#include "aicost/core/result.h"
#include "aicost/ledger/store.h"
#include "aicost/store/open.h"

namespace aicost::store {

core::Result<std::unique_ptr<ledger::Store>> open_sqlite(const std::string& path,
                                                         const StoreOptions& options);
core::Result<std::unique_ptr<ledger::Store>> open_postgres(const std::string& url,
                                                           const StoreOptions& options);

}  // namespace aicost::store

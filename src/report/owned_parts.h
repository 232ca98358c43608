// Private to report: an owned price (pricing.mode owned) as tables, notes and JSON, shared by the
// estimate's text and JSON renderers (docs/JSON_OUTPUT.md, cost.owned).
#pragma once

#include <string>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/costing/owned.h"
#include "aicost/report/table.h"
#include "json.h"

namespace aicost::report {

// The summary (key/value), the parts of a busy GPU-hour, the break-evens and the inputs with
// where each came from. `wall` is the run's wall time (its share of the cluster's life).
std::vector<Table> owned_tables(const costing::OwnedPricing& owned, core::Seconds wall);
std::vector<std::string> owned_notes(const costing::OwnedPricing& owned, core::Seconds wall);
Json owned_json(const costing::OwnedPricing& owned, core::Seconds wall);

}  // namespace aicost::report

// The reference of waste_scan_test.cc: find_waste's findings worked out the way the detectors were
// fed before the scan folded resource by resource: every resource of the window read into memory
// at once, then the detectors over them.
#pragma once

#include <vector>

#include "aicost/governance/waste_scan.h"
#include "aicost/ledger/store.h"

namespace aicost::governance::reference {

std::vector<WasteFinding> materialised_waste(ledger::Store& store, const WasteOptions& o,
                                             ledger::Day as_of);

}  // namespace aicost::governance::reference

// The FOCUS 1.3 contract commitments in the ledger (`aicost ledger commitments`): one line per
// term. Money prints with two decimals for people and exactly in JSON and CSV; times are UTC.
#pragma once

#include <string>
#include <vector>

#include "aicost/ledger/commitment.h"
#include "aicost/report/format.h"

namespace aicost::report {

std::string render_commitments(const std::vector<ledger::ContractCommitment>& terms, Format f);

}  // namespace aicost::report

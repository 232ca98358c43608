// Every lever id `aicost optimize` knows, plan and ledger levers alike, for the change journal to
// check a recorded lever against (`aicost ledger change add --lever`, with "did you mean").
#pragma once

#include <string>
#include <vector>

namespace aicost::optimize {

// Training levers, serving levers, then the ledger's: commitment, idle-schedule, rightsize and
// waste-<kind> for every waste finding kind; in that order, each once.
std::vector<std::string> lever_names();

}  // namespace aicost::optimize

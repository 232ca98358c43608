// Shared by the ledger levers' sources (ledger_levers.cc, ledger_waste.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aicost/optimize/ledger_levers.h"

namespace aicost::optimize::detail {

inline constexpr double kHoursPerMonth = 730;

// Sets a lever's monthly saving, its share of the baseline and the spend after it (when in the
// baseline's currency).
void priced(LeverResult& r, double saving, const LedgerBaseline& b, const std::string& currency);

// `ledger check`'s waste findings with a saving as levers (the others counted in `warnings`); `counted` maps a subject (a host, a commitment id)
// that another lever already saves on to that lever ("idle-schedule i-dev0").
core::Status waste_levers(ledger::Store& store, const LedgerOptions& o, const LedgerBaseline& b,
                          const std::map<std::string, std::string>& counted, std::vector<LeverResult>& out,
                          std::vector<std::string>& warnings);

}  // namespace aicost::optimize::detail

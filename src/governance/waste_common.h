// Private to governance: what the waste detectors of waste.cc and waste_storage.cc share, the
// amounts as their findings write them and the order the findings come back in.
#pragma once

#include <string>
#include <vector>

#include "aicost/governance/waste.h"

namespace aicost::governance::waste {

// `v` rounded to cents with its digits grouped, then the currency: "1,234.50 USD".
std::string money(double v, const std::string& currency);
// A fraction as a percentage with one decimal: 0.125 -> "12.5 %".
std::string percent(double fraction);
// A unit price to 4 significant digits, then the currency: "2.49 USD".
std::string rate(double v, const std::string& currency);

// `out` with each finding's evidence capped at 10 lines (the last saying how many more there
// were), sorted as sort_findings sorts.
std::vector<WasteFinding> sorted(std::vector<WasteFinding> out);

}  // namespace aicost::governance::waste

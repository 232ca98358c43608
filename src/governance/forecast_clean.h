// Private to governance: the robust fit's cleaning of the daily history (forecast.h, "Robust
// fit"), apart from the fit itself (forecast.cc).
#pragma once

#include <array>
#include <vector>

#include "aicost/governance/forecast.h"

namespace aicost::governance {

// Weekday factors or levels, Monday first (series.h's weekday).
using Factors = std::array<double, 7>;

// The daily spend of [first, today) as the robust fit reads it, and what the cleaning changed.
struct Cleaned {
  std::vector<double> y;       // first .. today − 1
  std::vector<char> replaced;  // 1: the day was a one-off's, replaced by its baseline
  int shifts = 0;              // lasting changes carried back after fit_start
};

// The daily spend of [first, today) from `history`, cleaned as forecast.h's robust fit says:
// one-off anomaly episodes replaced by the detector's baseline, the days before each lasting
// change brought to the level after it; `fit_start` is the first day the fit reads (shifts before
// it are not counted).
Cleaned clean_history(const DailySeries& history, ledger::Day first, ledger::Day fit_start,
                      ledger::Day today, const ForecastOptions& o);

}  // namespace aicost::governance

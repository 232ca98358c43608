// Daily cost series: what forecasts (forecast.h) and anomaly detection (anomaly.h) read.
//
// Amounts are `double` currency units, not the ledger's exact nano-units (core/amount.h): these are
// statistics (means, trends, standard deviations). Budgets compare exact ledger sums elsewhere; a
// caller turns a WideNanos sum into units with `double(nanos) / core::kNanosPerUnit`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "aicost/ledger/charge.h"

namespace aicost::governance {

// Spend on one UTC day, in currency units of one currency.
struct DayAmount {
  ledger::Day day = 0;  // days since 1970-01-01 (ledger::days_from_civil)
  double amount = 0;    // currency units spent that day; negative for net credits
};

// Days ascending, at most one entry per day. A day that is missing means zero spend.
using DailySeries = std::vector<DayAmount>;

// Day of the week of a day number: 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday, 3).
constexpr int weekday(ledger::Day d) { return static_cast<int>(((d % 7) + 7 + 3) % 7); }

// The series on every day of [first, last] (both inclusive), in order: days missing from `series`
// get amount 0, entries outside the range are dropped, duplicate entries for one day are summed
// (so `series` need not be sorted). Empty when last < first.
inline DailySeries dense(const DailySeries& series, ledger::Day first, ledger::Day last) {
  DailySeries out;
  if (last < first) return out;
  const std::int64_t count = std::int64_t{last} - first + 1;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    out.push_back({static_cast<ledger::Day>(first + i), 0.0});
  for (const DayAmount& p : series)
    if (p.day >= first && p.day <= last)
      out[static_cast<std::size_t>(p.day - first)].amount += p.amount;
  return out;
}

}  // namespace aicost::governance

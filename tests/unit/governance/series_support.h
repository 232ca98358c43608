// Daily series for the governance tests: days from a Monday, seeded noise.
#pragma once

#include <functional>

#include "aicost/core/rng.h"
#include "aicost/governance/series.h"

namespace aicost::governance::testing {

// 2024-01-01, a Monday.
inline ledger::Day monday() { return ledger::days_from_civil(2024, 1, 1); }

// `days` days from monday(), amount f(t) on day t.
inline DailySeries make(int days, const std::function<double(int)>& f) {
  DailySeries s;
  for (int t = 0; t < days; ++t) s.push_back({monday() + t, f(t)});
  return s;
}

// Standard normal draws, the same on every platform (core::Rng).
class Gaussian {
 public:
  explicit Gaussian(std::uint64_t seed) : rng_(seed) {}
  double operator()() { return rng_.normal(); }

 private:
  core::Rng rng_;
};

}  // namespace aicost::governance::testing

// One home for the calibrated values: data/efficiency.yaml ships exactly what the fit on every row
// of a validation set gives (the "all rows" column of `aicost validate --cv`), so the profile a
// user's estimate runs on is the one whose cross-validated error docs/VALIDATION.md states.
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "aicost/catalog/catalog.h"
#include "aicost/config/cross_validation.h"

namespace aicost::testing {

// Every fitted number of `run` (a generation the rows have, or a shared value) equals the
// catalog's value for each generation of the rows. The message names the key and both values, and
// says what to do.
inline void expect_shipped_profiles_are_the_fit(const config::CrossValidationRun& run,
                                                const catalog::Catalog& catalog) {
  std::set<std::string> generations;
  for (const auto& o : run.observations) generations.insert(o.generation);
  for (size_t p = 0; p < run.parameters.size(); ++p) {
    const auto& param = run.parameters[p];
    for (const auto& g : generations) {
      auto profile = catalog.efficiency(g);
      ASSERT_TRUE(profile) << g;
      const double fitted = run.cv.all.value(p, g), shipped = param.get(**profile);
      EXPECT_NEAR(shipped, fitted, 1e-9 * std::max(1.0, std::abs(fitted)))
          << param.key << "[" << g << "]: data/efficiency.yaml ships " << shipped
          << ", the fit on every row gives " << fitted
          << "; copy the 'all rows' values of `aicost validate --cv` into data/efficiency.yaml";
    }
  }
}

}  // namespace aicost::testing

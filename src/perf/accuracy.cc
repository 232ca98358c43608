#include "aicost/perf/accuracy.h"

#include <algorithm>
#include <cmath>

namespace aicost::perf {

AccuracySummary summarize(const std::vector<AccuracyCase>& cases) {
  AccuracySummary s;
  s.count = static_cast<int>(cases.size());
  if (cases.empty()) return s;
  std::vector<double> abs_err;
  for (const auto& c : cases) {
    abs_err.push_back(std::fabs(c.error()));
    s.mean_signed += c.error();
  }
  std::sort(abs_err.begin(), abs_err.end());
  const size_t n = abs_err.size();
  s.median_abs = n % 2 ? abs_err[n / 2] : (abs_err[n / 2 - 1] + abs_err[n / 2]) / 2;
  // Nearest rank: the smallest value with at least 90 % of the cases at or below it.
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * n));
  s.p90_abs = abs_err[std::max<size_t>(rank, 1) - 1];
  for (double e : abs_err) s.mean_abs += e;
  s.mean_abs /= n;
  s.mean_signed /= n;
  s.max_abs = abs_err.back();
  return s;
}

}  // namespace aicost::perf

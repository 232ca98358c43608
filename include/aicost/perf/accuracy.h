// Accuracy of the step model against measured runs: per-case relative error and its summary.
#pragma once

#include <string>
#include <vector>

namespace aicost::perf {

struct AccuracyCase {
  std::string name;
  std::string group;  // e.g. the GPU generation
  double measured = 0;
  double predicted = 0;
  double error() const { return (predicted - measured) / measured; }  // signed, relative
};

struct AccuracySummary {
  int count = 0;
  double median_abs = 0;  // median of |error|
  double p90_abs = 0;     // 90th percentile of |error| (nearest rank)
  double mean_abs = 0;
  double max_abs = 0;
  double mean_signed = 0;  // bias: > 0 means the model is optimistic
};

AccuracySummary summarize(const std::vector<AccuracyCase>& cases);

}  // namespace aicost::perf

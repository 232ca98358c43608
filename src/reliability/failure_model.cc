#include "aicost/reliability/failure_model.h"

namespace aicost::reliability {

double FailureModel::job_rate(int gpus) const {
  double per_gpu_hour = 0;
  for (const auto& c : causes) per_gpu_hour += c.per_gpu_hour;
  return per_gpu_hour * gpus / core::kSecondsPerHour;
}

std::vector<double> FailureModel::cause_shares() const {
  double total = 0;
  for (const auto& c : causes) total += c.per_gpu_hour;
  std::vector<double> shares;
  for (const auto& c : causes) shares.push_back(total > 0 ? c.per_gpu_hour / total : 0);
  return shares;
}

}  // namespace aicost::reliability

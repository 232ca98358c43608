// What `aicost estimate` prints for a serving plan: the cheapest deployment meeting the SLA,
// every option's best, and the SLA-cost matrix.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/report/format.h"
#include "aicost/serving/capacity.h"

namespace aicost::report {

struct ServingView {
  std::string plan_name;
  const std::vector<serving::DeploymentOption>* options = nullptr;
  const serving::Traffic* traffic = nullptr;
  const serving::Sla* sla = nullptr;
  std::optional<serving::Deployment> best;
  std::vector<std::optional<serving::Deployment>> per_option;
  serving::SlaCostMatrix matrix;
  std::string unreachable;  // why nothing meets the SLA, when nothing does
  std::vector<std::string> notes;
};

std::string render_serving(const ServingView& view, Format format);

}  // namespace aicost::report

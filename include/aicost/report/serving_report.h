// What `aicost estimate` prints for a serving plan: the cheapest deployment meeting the SLA,
// every option's best, and the SLA-cost matrix.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/perf/interval.h"
#include "aicost/report/format.h"
#include "aicost/serving/capacity.h"
#include "aicost/serving/fleet.h"
#include "aicost/serving/traffic.h"

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
  // Scaling policies simulated over the traffic profile, for the cheapest deployment's replica.
  std::vector<serving::PolicyResult> policies;
  core::PerSecond replica_capacity{0};
  std::vector<std::string> notes;
  // The plan's fleet (serving/fleet.h): what the plan costs a month, run by its own policy
  // (`fleet_policy`) over the traffic profile, with the response cache's cost.
  const serving::Fleet* fleet = nullptr;
  // The 80 % interval of each option's times (parallel to *options; empty: none shown), and
  // whether the plan was sized on the pessimistic end (`--conservative`).
  std::vector<perf::Interval> option_intervals;
  bool conservative = false;
  std::string fleet_policy;
};

// minute, requests/s, then the paid replicas of each policy: a CSV for plotting.
std::string render_replicas_csv(const ServingView& view, const std::vector<double>& rps);

std::string render_serving(const ServingView& view, Format format);

}  // namespace aicost::report

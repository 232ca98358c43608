// What `aicost reliability` prints: interrupt causes, checkpoint and restart costs, the optimal
// checkpoint intervals, the expected losses, the Monte-Carlo bands, the spare-node decision and
// what each lever is worth, with the assumptions the numbers rest on.
#pragma once

#include <cstdint>
#include <string>

#include "aicost/reliability/analysis.h"
#include "aicost/reliability/simulation.h"
#include "aicost/reliability/spares.h"
#include "aicost/report/format.h"

namespace aicost::report {

struct ReliabilityView {
  std::string plan_name;
  const reliability::RunInputs* inputs = nullptr;
  const reliability::Analysis* analysis = nullptr;
  const reliability::SimulationResult* simulation = nullptr;  // may be null
  const reliability::SpareDecision* spares = nullptr;         // may be null
  int spare_nodes = -1;  // held in the simulated run; -1: replacements always available
  uint64_t seed = 0;
};

std::string render_reliability(const ReliabilityView& view, Format format);

}  // namespace aicost::report

#include "aicost/reliability/spares.h"

#include <algorithm>

namespace aicost::reliability {

SpareDecision choose_spares(const SimulationSpec& spec, const SimulationOptions& options,
                            core::UsdPerSecond per_gpu, const std::vector<int>& counts,
                            double stall_target) {
  SpareDecision d;
  for (int n : counts) {
    SimulationSpec s = spec;
    s.spare_nodes = n;
    const auto r = simulate(s, options);  // same seed for every option: common random numbers
    SpareOption o;
    o.spare_nodes = n;
    o.mean_wall_s = r.wall_s.mean;
    o.p90_wall_s = r.wall_s.p90;
    o.stall_share = r.wall_s.mean > 0 ? r.stalls / r.wall_s.mean : 0;
    o.mean_usd = r.wall_s.mean * per_gpu.value() * (spec.gpus + n * spec.gpus_per_node);
    d.options.push_back(o);
  }
  for (size_t i = 0; i < d.options.size(); ++i) {
    if (d.options[i].mean_usd < d.options[d.cheapest].mean_usd) d.cheapest = static_cast<int>(i);
    if (d.meets_target < 0 && d.options[i].stall_share <= stall_target) {
      d.meets_target = static_cast<int>(i);
    }
  }
  return d;
}

double spare_stall_share(const FailureModel& failures, int gpus, int spare_nodes) {
  if (spare_nodes < 0) return 0;
  double offered = 0;  // nodes in repair on average, were the job never to stall
  for (const auto& c : failures.causes) {
    offered += c.per_gpu_hour * gpus * c.nodes_lost * core::in_hours(c.repair_time);
  }
  if (offered <= 0) return 0;
  // Erlang B by its recursion: B(0) = 1, B(k) = m B(k-1) / (k + m B(k-1)).
  double b = 1;
  for (int k = 1; k <= spare_nodes + 1; ++k) b = offered * b / (k + offered * b);
  return b;
}

std::vector<int> spare_ladder(int nodes) {
  std::vector<int> out{0};
  const int cap = std::max(1, nodes / 10);
  for (int n = 1; n <= cap; n *= 2) out.push_back(n);
  if (out.back() != cap) out.push_back(cap);
  return out;
}

}  // namespace aicost::reliability

// The closed form of the wait for a repaired node (reliability::spare_stall_share, Erlang's B)
// against hand values and against the simulation, which models the pool node by node.
#include <gtest/gtest.h>

#include "aicost/reliability/simulation.h"
#include "aicost/reliability/spares.h"

namespace aicost::reliability {
namespace {

using core::Seconds;

FailureModel one_cause(double per_hour_per_gpu, double repair_hours, int nodes_lost = 1) {
  FailureModel m;
  FailureCause c;
  c.name = "hw";
  c.per_gpu_hour = per_hour_per_gpu;
  c.nodes_lost = nodes_lost;
  c.repair_time = Seconds(repair_hours * 3600);
  m.causes = {c};
  return m;
}

TEST(SpareStall, IsErlangBOfTheNodesInRepair) {
  // 1,000 GPUs, one node lost per 10 h, repairs of 10 h: one node in repair on average (m = 1).
  const auto f = one_cause(1.0 / (10 * 1000), 10);
  EXPECT_DOUBLE_EQ(spare_stall_share(f, 1000, -1), 0);             // replacements always available
  EXPECT_NEAR(spare_stall_share(f, 1000, 0), 0.5, 1e-12);          // B(1, 1) = 1 / 2
  EXPECT_NEAR(spare_stall_share(f, 1000, 1), 0.2, 1e-12);          // B(2, 1) = (1/2) / (2 + 1/2)
  EXPECT_NEAR(spare_stall_share(f, 1000, 2), (0.2 / 3.2), 1e-12);  // B(3, 1) = 0.2 / (3 + 0.2)
  // A software cause sends no node to repair: no wait.
  EXPECT_EQ(spare_stall_share(one_cause(1e-3, 10, 0), 1000, 0), 0);
}

// The simulation (exponential repairs, interrupts only while the job runs) measures the same
// share within 3 standard errors of its run-to-run spread (seed 5, 400 runs: 0.5990, 0.3083 and
// 0.0477 against Erlang's 0.6000, 0.3103 and 0.0480).
TEST(SpareStall, AgreesWithTheSimulation) {
  SimulationSpec s;
  s.work = Seconds(20 * 86400.0);
  s.interval = Seconds(1800);
  s.blocking = Seconds(30);
  s.restart = Seconds(600);
  s.gpus = 1024;
  s.failures = one_cause(1.0 / (8 * 1024), 12);  // a node every 8 h, 12 h repairs: m = 1.5
  s.random_repair = true;
  for (int spares : {0, 1, 3}) {
    s.spare_nodes = spares;
    SimulationOptions o;
    o.runs = 400;
    o.seed = 5;
    const auto r = simulate(s, o);
    const double share = r.stalls / r.wall_s.mean;
    const double exact = spare_stall_share(s.failures, s.gpus, spares);
    // The share's spread is at most the wall time's relative spread.
    const double tol = 3 * r.wall_s.sem(r.runs) / r.wall_s.mean + 0.002;
    EXPECT_NEAR(share, exact, tol) << spares << " spares";
  }
}

}  // namespace
}  // namespace aicost::reliability

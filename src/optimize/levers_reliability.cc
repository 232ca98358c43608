// Reliability levers: the checkpoint interval, asynchronous saves, spare nodes and automated
// restarts, each priced by re-running the reliability model inside the estimate.
#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"
#include "aicost/reliability/analysis.h"
#include "aicost/reliability/spares.h"
#include "levers.h"

namespace aicost::optimize::detail {

using core::Seconds;

Proposal checkpoint_interval(const LeverContext& ctx) {
  const auto& plan = ctx.plan;
  const auto a =
      reliability::analyze(costing::reliability_inputs(plan.job, plan.perf, plan.inputs), false);
  if (!std::isfinite(a.job_mtbf.value())) {
    return not_applicable(
        "the failure model has no interrupts: one checkpoint at the end suffices");
  }
  const Seconds now = plan.cost.failures.checkpoint_interval;
  const double target_min = std::max(1.0, std::round(a.cost_optimal.value() / 60));
  const double now_min = now.value() / 60;
  if (std::abs(target_min - now_min) < std::max(1.0, 0.02 * now_min)) {
    return nothing_to_do(
        core::sprintf("the plan checkpoints every %.0f min; the cost-optimal "
                      "interval is %.0f min",
                      now_min, target_min));
  }
  const bool longer = target_min > now_min;
  Risk risk{longer ? RiskLevel::kMedium : RiskLevel::kLow,
            {"recovery"},
            longer ? core::sprintf("saves every %.0f instead of %.0f min: each interrupt loses "
                                   "%.0f min more work on average",
                                   target_min, now_min, (target_min - now_min) / 2)
                   : core::sprintf("saves every %.0f instead of %.0f min: more save stalls and "
                                   "more checkpoint writes",
                                   target_min, now_min)};
  Rollout r{core::sprintf("set the interval to %.0f min and watch a day of saves: each must finish "
                          "before the next starts",
                          target_min),
            "checkpoint stall per save, failure overhead share of wall time (ETTR)",
            "roll back if a save overlaps the next or ETTR falls below the estimate by 1 pp"};
  auto p = change({{"storage.checkpoint_interval", core::sprintf("%.0fmin", target_min)}}, risk, r);
  p.notes.push_back(
      core::sprintf("job MTBF %.1f h, save stall %.0f s, restart %.0f min: cost-optimal "
                    "%.0f min (time-optimal, Daly's exact: %.0f min)",
                    core::in_hours(a.job_mtbf), a.blocking.value(), a.restart.value() / 60,
                    target_min, a.exact.value() / 60));
  return p;
}

Proposal checkpoint_async(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (s.async_checkpoint) return nothing_to_do("the plan already saves checkpoints asynchronously");
  const auto ck = costing::checkpoint_model(ctx.plan.job, ctx.plan.inputs);
  Risk risk{RiskLevel::kLow,
            {"recovery", "memory"},
            "the save continues in the background from a host-memory copy: it needs host RAM for "
            "the copy, and a node lost before the copy reaches storage loses that checkpoint"};
  Rollout r{
      "enable asynchronous saves (Megatron/NeMo async dist-checkpointing or PyTorch DCP "
      "async_save) on one run and time the blocking part of a save",
      "training stall per save and host memory use",
      "roll back if saves do not complete before the next one or host memory runs out"};
  auto p = change({{"storage.async_checkpoint", "true"}}, risk, r);
  p.notes.push_back(
      core::sprintf("the model blocks training for %.0f %% of the %.0f s write "
                    "(published asynchronous saves block less: ByteCheckpoint 0.59 s of "
                    "51 s, PyTorch DCP 6.3 s of 148.8 s)",
                    100 * ck.async_blocking_share, ck.write_time().value()));
  return p;
}

Proposal spares(const LeverContext& ctx) {
  const auto& plan = ctx.plan;
  const int now = plan.inputs.reliability.spare_nodes;
  if (now < 0) {
    return not_applicable(
        "the plan assumes replacement nodes are always available and unpaid "
        "(reliability.spare_nodes not set); `aicost reliability` sizes a pool");
  }
  // Each pool of the ladder (0, 1, 2, 4, ... about a tenth of the nodes, and the plan's) is
  // estimated as the whole plan: spares paid for the whole run against the time the job waits
  // for a repaired node (reliability::spare_stall_share).
  const int nodes =
      std::max(1, plan.job.cluster.gpus / std::max(1, plan.job.cluster.gpus_per_node));
  std::vector<int> counts = reliability::spare_ladder(nodes);
  if (std::find(counts.begin(), counts.end(), now) == counts.end()) counts.push_back(now);
  int best = now;
  double best_usd = plan.total_usd();
  Seconds best_stall = plan.cost.failures.spare_stall;
  for (int n : counts) {
    if (n == now) continue;
    auto e = ctx.evaluate(merge(ctx.applied, {{"reliability.spare_nodes", count(n)}}));
    if (e && e->total_usd() < best_usd) {
      best = n;
      best_usd = e->total_usd();
      best_stall = e->cost.failures.spare_stall;
    }
  }
  const auto& f = plan.cost.failures;
  if (best == now) {
    return nothing_to_do(
        core::sprintf("%d spare nodes is the cheapest pool of those tried (0 to %d): "
                      "the job waits %.1f h for repaired nodes (%.3f %% of the time)",
                      now, counts.back() > now ? counts.back() : now, core::in_hours(f.spare_stall),
                      100 * f.spare_stall_share));
  }
  const bool fewer = best < now;
  Risk risk{
      fewer ? RiskLevel::kMedium : RiskLevel::kLow,
      {fewer ? "availability" : "cost"},
      core::sprintf("%d instead of %d spare nodes: the expected wait for a repaired node goes "
                    "from %.1f h to %.1f h over the run%s",
                    best, now, core::in_hours(f.spare_stall), core::in_hours(best_stall),
                    fewer ? "; a burst of failures (several nodes in repair at once) stalls the "
                            "whole job"
                          : "")};
  Rollout r{core::sprintf("hold %d spare nodes and log, for a week, how long each failed node "
                          "takes to come back and whether the job ever waited for one",
                          best),
            "time waiting for a replacement node per week, nodes in repair",
            fewer ? "add spares back if the job waits for a node more than the estimate"
                  : "release the extra spares if none was ever needed in a month"};
  auto p = change({{"reliability.spare_nodes", count(best)}}, risk, r);
  p.notes.push_back(
      "nodes in repair as an Erlang loss system (Poisson failures, the failure "
      "model's repair times): the job waits while all spares and one more are in "
      "repair; `aicost reliability` simulates the same pools");
  return p;
}

Proposal restart_automation(const LeverContext& ctx) {
  // Targets from published automated recovery (../shared/reference/reliability-model.md §5):
  // detection by active inspection takes 2-60 s (ByteRobust), a warm standby replaces a node
  // without provisioning (ByteRobust, AIReSim), communicators start in < 30 s at > 10K GPUs after
  // optimisation (MegaScale). One minute each is taken: conservative against those figures.
  const Seconds detection(60), rescheduling(60), initialisation(60);
  const auto& rm = ctx.plan.inputs.reliability.restart;
  const auto ck = costing::checkpoint_model(ctx.plan.job, ctx.plan.inputs);
  Change c;
  if (rm.fixed_total) {
    const Seconds target = detection + rescheduling + initialisation + ck.read_time();
    if (*rm.fixed_total <= target) {
      return nothing_to_do(
          core::sprintf("the plan's restart (%.0f min) is already at or below an "
                        "automated one (%.0f min)",
                        rm.fixed_total->value() / 60, target.value() / 60));
    }
    c.push_back({"reliability.restart_time", minutes(target)});
  } else {
    if (rm.detection > detection) c.push_back({"reliability.detection", minutes(detection)});
    if (rm.rescheduling > rescheduling)
      c.push_back({"reliability.rescheduling", minutes(rescheduling)});
    if (rm.initialisation > initialisation) {
      c.push_back({"reliability.initialisation", minutes(initialisation)});
    }
    if (c.empty()) {
      return nothing_to_do(
          "detection, rescheduling and initialisation already take a minute or less");
    }
  }
  Risk risk{RiskLevel::kLow,
            {"recovery"},
            "automatic fault detection and node replacement act without a person: a false positive "
            "restarts a healthy job, and warm standbys must exist for the swap"};
  Rollout r{
      "inject a node failure (kill a rank, cordon a node) in a small run and time detection, "
      "replacement and the restart",
      "time from fault to training resumed, per interrupt",
      "roll back to manual handling if automated restarts take longer than the manual ones "
      "or restart healthy jobs"};
  auto p = change(std::move(c), risk, r);
  p.notes.push_back(
      "target restart parts are 1 min each (published automated systems do better); "
      "the engineering and any warm standby capacity are not priced");
  return p;
}

}  // namespace aicost::optimize::detail

// Storage and network levers the cost inputs can price: how many checkpoints are kept, how long
// logs are kept, incremental checkpoints of a partly frozen model, sampled verbose logs, and
// cross-region traffic brought down to one copy of the dataset.
#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"
#include "levers.h"

namespace aicost::optimize::detail {

using core::Seconds;

Proposal checkpoint_retention(const LeverContext& ctx) {
  const auto& plan = ctx.plan;
  const int kept = plan.inputs.storage.checkpoints_retained;
  // The latest checkpoint and one before it, in case the latest is corrupt; more when the
  // guardrails ask checkpoints to cover a span.
  int target = 2;
  const Seconds interval = plan.cost.failures.checkpoint_interval;
  if (auto it = ctx.guardrails.min_retention.find("checkpoints");
      it != ctx.guardrails.min_retention.end() && interval.value() > 0) {
    target = std::max(target, static_cast<int>(std::ceil(it->second / interval - 1e-9)));
  }
  if (kept <= target) {
    if (target > 2) {
      return nothing_to_do(core::sprintf(
          "the plan keeps %d checkpoints; %d are needed to cover "
          "the guardrails' %.1f h at %.0f min apart",
          kept, target, core::in_hours(ctx.guardrails.min_retention.at("checkpoints")),
          interval.value() / 60));
    }
    return nothing_to_do(
        core::sprintf("the plan keeps %d checkpoints; fewer than 2 leaves no "
                      "fallback when the latest is corrupt",
                      kept));
  }
  Risk risk{RiskLevel::kLow,
            {"recovery"},
            core::sprintf("%d instead of %d checkpoints: a rollback past a corrupt checkpoint or a "
                          "loss spike can go back %.1f h instead of %.1f h",
                          target, kept, core::in_hours(interval) * target,
                          core::in_hours(interval) * kept)};
  Rollout r{"keep " + std::to_string(target) +
                " checkpoints and check after each save that the "
                "newest one loads (a restore test on one node)",
            "checkpoint storage (ledger storage cost), restore tests passed",
            "keep more again if a restore test fails"};
  return change({{"storage.checkpoints_retained", std::to_string(target)}}, risk, r);
}

Proposal log_retention(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (s.logs_per_day.value() <= 0)
    return not_applicable("the plan writes no logs (storage.logs_per_day 0)");
  // The brief's example: 30 days to 7 (../shared/reference/optimisation.md), never below the
  // guardrails' minimum.
  Seconds target = core::days(7);
  if (auto it = ctx.guardrails.min_retention.find("logs");
      it != ctx.guardrails.min_retention.end()) {
    target = std::max(target, it->second);
  }
  const Seconds now = s.log_retention.value() > 0 ? s.log_retention : ctx.plan.cost.wall_time;
  if (now <= target) {
    return nothing_to_do(core::sprintf("logs are kept %.0f days; the target is %.0f days",
                                       core::in_days(now), core::in_days(target)));
  }
  Risk risk{RiskLevel::kLow,
            {"debuggability", "compliance"},
            core::sprintf("logs older than %.0f days are gone: an incident found later cannot be "
                          "traced, and a compliance minimum must be set in the guardrails",
                          core::in_days(target))};
  Rollout r{
      "archive a month of logs before the change and check that no dashboard or audit query "
      "reads logs older than the new retention",
      "log storage (ledger storage cost)",
      "restore the old retention if a post-mortem or an audit needs older logs"};
  return change({{"storage.log_retention", days(target)}}, risk, r);
}

Proposal incremental_checkpoint(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (s.incremental_checkpoint)
    return nothing_to_do("the plan already saves incremental checkpoints");
  if (s.trainable_share >= 1) {
    return not_applicable(
        "full training (training.trainable_share 100 %) changes every parameter "
        "each step: an incremental checkpoint writes as much as a full one");
  }
  Risk risk{
      RiskLevel::kMedium,
      {"recovery"},
      core::sprintf("saves write the trainable %.3g %% of the state; a restore needs the frozen "
                    "base and the latest increment, so a lost or corrupt base loses them all",
                    100 * s.trainable_share)};
  Rollout r{
      "save one incremental checkpoint, restore it on one node from the base and the "
      "increment, and compare the loss with a full checkpoint's",
      "save stall, checkpoint bytes stored (ledger storage cost), restore tests passed",
      "go back to full saves if a restore from base + increment fails"};
  auto p = change({{"storage.incremental_checkpoint", "true"}}, risk, r);
  p.notes.push_back(
      core::sprintf("each save writes %.3g %% of the checkpoint "
                    "(training.trainable_share); the frozen base is stored once",
                    100 * s.trainable_share));
  return p;
}

Proposal log_sampling(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (s.logs_per_day.value() <= 0)
    return not_applicable("the plan writes no logs (storage.logs_per_day 0)");
  if (s.log_levels.empty()) {
    return not_priced(
        "needs the log volume by level: give storage.log_levels (e.g. {debug: 14GB, "
        "info: 5GB, warning: 1GB} a day) instead of storage.logs_per_day");
  }
  // Only the verbose levels are sampled, to a tenth: warnings, errors and audit logs are kept
  // whole (the security floor never cuts audit logging).
  const double keep = 0.10;
  Change c;
  std::vector<std::string> names;
  for (const auto& [level, bytes] : s.log_levels) {
    const std::string l = catalog::normalize_name(level);
    if (l != "debug" && l != "trace" && l != "verbose") continue;
    const auto now = s.log_sampling.find(level);
    if (bytes.value() <= 0 || (now != s.log_sampling.end() && now->second <= keep)) continue;
    c.push_back({"storage.log_sampling." + level, percent(keep)});
    names.push_back(level);
  }
  if (c.empty()) {
    return nothing_to_do(
        "no debug, trace or verbose log level left to sample (warnings, errors and "
        "audit logs are never sampled)");
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  Risk risk{RiskLevel::kLow,
            {"debuggability"},
            "a tenth of the " + list +
                " lines is kept: an incident that needs every verbose line "
                "of a rank cannot be replayed from the logs"};
  Rollout r{"sample " + list +
                " logs to 10 % on one job and check that alerts and dashboards read "
                "only warnings and above",
            "log bytes written per day (ledger storage cost)",
            "log " + list + " in full again during an incident or when a post-mortem asks for it"};
  auto p = change(std::move(c), risk, r);
  p.notes.push_back(
      "10 % of the verbose levels is a judgement, not a measured figure; warnings, "
      "errors and audit logs stay whole");
  return p;
}

Proposal data_locality(const LeverContext& ctx) {
  const auto& n = ctx.plan.inputs.network;
  const auto& s = ctx.plan.inputs.storage;
  if (n.cross_region.value() <= 0) return not_applicable("the plan moves no data between regions");
  if (n.cross_region <= s.dataset) {
    return nothing_to_do(
        core::sprintf("cross-region traffic (%s) is no more than one copy of the "
                      "dataset (%s)",
                      core::format_bytes(n.cross_region.value()).c_str(),
                      core::format_bytes(s.dataset.value()).c_str()));
  }
  Risk risk{RiskLevel::kMedium,
            {"migration", "availability"},
            "data moved next to the GPUs once; if the cross-region traffic was replication for "
            "disaster recovery, that protection is gone"};
  Rollout r{"copy the dataset to the training region once and point one job at the copy",
            "inter-region transfer (ledger network cost) and data-loader throughput",
            "go back to the remote source if the local copy cannot keep up or diverges"};
  auto p = change({{"network.cross_region", size(s.dataset)}}, risk, r);
  p.notes.push_back("cross-region traffic cut to one copy of the dataset (storage.dataset_size)");
  return p;
}

}  // namespace aicost::optimize::detail

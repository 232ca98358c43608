// Dataset levers: a faster tier when the data loader stalls the GPUs, a cheaper tier that still
// feeds them, and a deduplicated dataset. The stall is the step model's data-loading part
// (perf::data_reads: bytes read by the first and last pipeline stages, at the tier's read rate).
#include <algorithm>

#include "aicost/core/text.h"
#include "aicost/optimize/optimize.h"
#include "aicost/perf/estimate.h"
#include "levers.h"

namespace aicost::optimize::detail {

namespace {

std::string rate(core::BytesPerSecond r) { return core::format_bytes(r.value()) + "/s"; }

// The provider whose tiers the plan can move its dataset to: its instance's, else AWS (the
// storage provider of a plain gpu_hour plan, docs/PLAN_FORMAT.md).
std::string provider(const LeverContext& ctx) {
  const auto& p = ctx.plan.inputs.compute.provider;
  return p.empty() ? "aws" : catalog::normalize_name(p);
}

// The dataset tier the plan names or defaults to (its terms' id), "" for a plan's own price.
const std::string& plan_tier(const LeverContext& ctx) {
  return ctx.plan.inputs.storage.dataset_terms.id;
}

// The edits that move the dataset to `tier`: a plan's own price and measured read rate were for
// the old place.
Change move_dataset(const std::string& tier) {
  return {{"storage.dataset_tier", tier},
          {"storage.dataset_price", std::nullopt},
          {"storage.dataset_read_bandwidth", std::nullopt}};
}

// A step's reads and what they need: "a step reads 25.2 MB (...) in 20.0 s at 100.3 GB/s from X".
std::string reads_text(const LeverContext& ctx) {
  const auto& job = ctx.plan.job;
  const auto reads = perf::data_reads(job);
  const auto& perf = ctx.plan.perf;
  const core::Seconds busy = perf.step_time - perf.step.data_loading;
  return core::sprintf(
      "a step reads %s (%.4g B per token, first and last pipeline stages, %.0f "
      "reading nodes) in %.3f s of work; the GPUs need %s, %s gives %s",
      core::format_bytes(reads.per_step.value()).c_str(), job.data.bytes_per_token,
      reads.reading_nodes, busy.value(), rate(reads.per_step / busy).c_str(),
      plan_tier(ctx).empty() ? "the plan's read rate" : plan_tier(ctx).c_str(),
      rate(reads.rate).c_str());
}

struct Candidate {
  const catalog::StoragePrice* tier = nullptr;
  Evaluation eval;
};

// The provider's readable tiers with a read figure and known terms, other than the plan's own,
// each estimated as the whole plan with the dataset moved there.
std::vector<Candidate> candidates(const LeverContext& ctx, std::vector<std::string>& skipped) {
  std::vector<Candidate> out;
  for (const auto& t : ctx.catalog.storage_prices()) {
    if (catalog::normalize_name(t.provider) != provider(ctx) || t.id == plan_tier(ctx)) continue;
    if (t.restore_time.value() > 0) continue;  // archive: restored before any read
    if (!t.read_known() || !t.min_storage_duration) {
      skipped.push_back(t.id);
      continue;
    }
    auto e = ctx.evaluate(merge(ctx.applied, move_dataset(t.id)));
    if (e) out.push_back({&t, std::move(*e)});
  }
  return out;
}

Rollout tier_rollout(const std::string& tier) {
  return {"copy the dataset to " + tier +
              " and run a few hundred steps reading from it, with "
              "the data loader's wait timed (Megatron's batch-generator timer)",
          "step time and data-loader wait per step; storage and retrieval charges of the tier",
          "go back to the old tier if the loader's wait rises above a percent of the step"};
}

}  // namespace

Proposal data_loader(const LeverContext& ctx) {
  const auto& job = ctx.plan.job;
  if (!job.data.limited()) {
    return not_priced("the dataset's read rate is not known: " +
                      (plan_tier(ctx).empty() ? std::string("the plan prices its dataset itself")
                                              : plan_tier(ctx) + " has no read figure in data/") +
                      "; give storage.dataset_read_bandwidth (a measured aggregate rate) or name a "
                      "tier that has one (storage.dataset_tier)");
  }
  const auto& perf = ctx.plan.perf;
  if (perf.step.data_loading.value() <= 0) {
    return not_applicable("the GPUs never wait for data: " + reads_text(ctx));
  }
  std::vector<std::string> skipped;
  auto cands = candidates(ctx, skipped);
  const Candidate* best = nullptr;
  for (const auto& c : cands) {
    if (c.eval.perf.step.data_loading >= perf.step.data_loading) continue;
    if (!best || c.eval.total_usd() < best->eval.total_usd()) best = &c;
  }
  if (!best) {
    return nothing_to_do(
        core::sprintf("the GPUs wait %.2f s per step for data, and no catalogued %s "
                      "tier with a read figure is faster; ",
                      perf.step.data_loading.value(), provider(ctx).c_str()) +
        reads_text(ctx) + " (a local NVMe cache is not priced: no sourced read rate)");
  }
  const auto& t = *best->tier;
  Risk risk{
      RiskLevel::kLow,
      {"migration"},
      core::sprintf("the dataset is copied once to %s; the step's data wait goes from %.2f s to "
                    "%.2f s",
                    t.id.c_str(), perf.step.data_loading.value(),
                    best->eval.perf.step.data_loading.value())};
  auto p = change(move_dataset(t.id), risk, tier_rollout(t.id));
  p.notes.push_back(reads_text(ctx));
  p.notes.push_back(t.id + " read rate: " + t.read_source);
  p.notes.push_back(
      "a local NVMe cache on each node is not priced: no sourced read rate of "
      "instance storage in data/");
  return p;
}

Proposal dataset_tier(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (s.dataset.value() <= 0)
    return not_applicable("the plan keeps no dataset (storage.dataset_size 0)");
  if (plan_tier(ctx).empty()) {
    return not_priced(
        "the plan prices its dataset itself (storage.dataset_price): name its tier "
        "(storage.dataset_tier) to compare it with cheaper ones");
  }
  const auto now = ctx.catalog.storage(plan_tier(ctx));
  std::vector<std::string> skipped;
  std::vector<Candidate> cheaper;
  for (auto& c : candidates(ctx, skipped)) {
    if (now && c.tier->price < (*now)->price) cheaper.push_back(std::move(c));
  }
  if (cheaper.empty()) {
    std::string without;
    for (const auto& id : skipped) without += (without.empty() ? " (without: " : ", ") + id;
    return not_priced("no cheaper " + provider(ctx) +
                      " tier has a read figure and a known "
                      "minimum duration in data/ to check that it still feeds the GPUs" +
                      without + (without.empty() ? "" : ")"));
  }
  // The cheapest plan whose GPUs wait no longer than the red line allows; else the cheapest one
  // that does (its stall is the scalability trap, and the red line says so).
  const double limit = ctx.guardrails.data_stall_limit();
  const Candidate* best = nullptr;
  const Candidate* cheapest = nullptr;
  for (const auto& c : cheaper) {
    if (!cheapest || c.eval.total_usd() < cheapest->eval.total_usd()) cheapest = &c;
    if (data_stall_share(c.eval) > std::max(limit, data_stall_share(ctx.plan))) continue;
    if (!best || c.eval.total_usd() < best->eval.total_usd()) best = &c;
  }
  const Candidate& pick = best ? *best : *cheapest;
  const auto& t = *pick.tier;
  const double stall = data_stall_share(pick.eval);
  Risk risk{
      RiskLevel::kLow,
      {"throughput", "availability"},
      core::sprintf("%s: %.4g USD/GB-month, %.4g USD/GB retrieved, billed at least %.0f days; the "
                    "GPUs wait for data %.1f %% of a step (now %.1f %%)",
                    t.id.c_str(), t.price.value() * core::kGB * core::kSecondsPerMonth,
                    t.retrieval_price.value() * core::kGB,
                    core::in_days(t.min_storage_duration.value_or(core::Seconds(0))), 100 * stall,
                    100 * data_stall_share(ctx.plan))};
  auto p = change(move_dataset(t.id), risk, tier_rollout(t.id));
  p.notes.push_back(reads_text(ctx));
  p.notes.push_back(t.id + " terms: " + t.terms_source);
  p.notes.push_back(t.id + " read rate: " + t.read_source);
  return p;
}

Proposal dataset_dedup(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (s.dataset.value() <= 0)
    return not_applicable("the plan keeps no dataset (storage.dataset_size 0)");
  if (!s.dataset_duplicates) {
    return not_priced(
        "needs the dataset's duplicate share: give storage.dataset_duplicates (the "
        "share of bytes an exact or near-duplicate pass, e.g. MinHash, removes)");
  }
  if (*s.dataset_duplicates <= 0)
    return nothing_to_do("the plan's dataset has no duplicates (storage.dataset_duplicates 0%)");
  const core::Bytes kept = s.dataset * (1 - *s.dataset_duplicates);
  Risk risk{
      RiskLevel::kLow,
      {"quality"},
      core::sprintf("%.1f %% of the dataset removed as duplicates (the plan's figure); the run "
                    "still trains on as many tokens, seeing the unique data more often",
                    100 * *s.dataset_duplicates)};
  Rollout r{
      "run the deduplication pass on a shard and check the removed share against the plan's "
      "figure before deleting the duplicates",
      "dataset bytes stored (ledger storage cost), eval loss against the run before",
      "keep the original dataset until the deduplicated one has trained for a few thousand steps"};
  auto p =
      change({{"storage.dataset_size", size(kept)}, {"storage.dataset_duplicates", "0%"}}, risk, r);
  p.notes.push_back("the deduplication pass itself (CPU hours) is not priced");
  return p;
}

}  // namespace aicost::optimize::detail

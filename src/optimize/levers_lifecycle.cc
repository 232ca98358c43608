// The checkpoint-tier lever: checkpoints written to a cheaper tier, or moved there by a lifecycle
// (hot -> warm -> cold) once older than the latest two. Colder tiers bill a minimum duration per
// object (30-365 days) and a fee per byte read back, and an archive tier must restore a
// checkpoint (hours) before a restart can read it: live checkpoints, rewritten every interval,
// rarely gain (docs/OPTIMIZE.md "Storage terms").
#include <algorithm>

#include "aicost/core/text.h"
#include "levers.h"

namespace aicost::optimize::detail {

namespace {

costing::TierTerms terms(const catalog::StoragePrice& t) {
  return {t.id, t.retrieval_price, t.min_storage_duration.value_or(core::Seconds(0)),
          t.restore_time};
}

struct Option {
  Change change;
  std::string text;
  double storage_usd = 0;  // checkpoints kept, and the restarts' retrieval fees
};

// The checkpoints' storage under `s`, with the retrieval fees of the expected restarts.
double checkpoint_usd(const costing::StorageInputs& s, const Evaluation& plan) {
  const auto& f = plan.cost.failures;
  const auto& latest = costing::latest_checkpoint_terms(s, f.checkpoint_interval);
  return costing::checkpoint_storage(s, f, plan.cost.wall_time).cost.value() +
         f.expected_interruptions * (f.checkpoint_size * s.checkpoint_compression.ratio).value() *
             latest.retrieval_price.value();
}

}  // namespace

Proposal checkpoint_tier(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  const auto& f = ctx.plan.cost.failures;
  if (s.checkpoint_terms.id.empty()) {
    return not_priced(
        "the plan prices its checkpoints itself (storage.checkpoint_price): name their "
        "tier (storage.checkpoint_tier) to compare it with colder ones");
  }
  if (s.checkpoint_warm || s.checkpoint_cold) {
    return nothing_to_do("the plan already moves older checkpoints to a colder tier");
  }
  const auto now = ctx.catalog.storage(s.checkpoint_terms.id);
  if (!now) return not_priced(now.error().message);
  const std::string provider = catalog::normalize_name((*now)->provider);
  std::vector<const catalog::StoragePrice*> colder;
  std::string unknown;
  for (const auto& t : ctx.catalog.storage_prices()) {
    if (catalog::normalize_name(t.provider) != provider || !(t.price < (*now)->price)) continue;
    if (t.tier != "object-infrequent" && t.tier != "archive") continue;
    if (!t.min_storage_duration) {
      unknown += (unknown.empty() ? "" : ", ") + t.id;
      continue;
    }
    colder.push_back(&t);
  }
  if (colder.empty()) {
    return not_priced("no colder " + provider +
                      " tier with a known minimum storage duration in data/" +
                      (unknown.empty() ? std::string() : " (not known for " + unknown + ")"));
  }
  // The latest two checkpoints stay where they are written (a restart and its fallback read
  // them there); older ones move. Each option's checkpoint storage is computed here, the three
  // cheapest are estimated as whole plans (restore time and retrieval on restarts included).
  const core::Seconds keep_hot = f.checkpoint_interval * 2.0;
  const core::Seconds lifetime =
      f.checkpoint_interval * static_cast<double>(s.checkpoints_retained);
  std::vector<Option> options;
  auto add = [&](Change c, std::string text, const costing::StorageInputs& changed) {
    options.push_back({std::move(c), std::move(text), checkpoint_usd(changed, ctx.plan)});
  };
  for (const auto* t : colder) {
    costing::StorageInputs all = s;
    all.checkpoint_price = t->price;
    all.checkpoint_terms = terms(*t);
    add({{"storage.checkpoint_tier", t->id}, {"storage.checkpoint_price", std::nullopt}},
        "written to " + t->id, all);
    costing::StorageInputs warm = s;
    warm.checkpoint_warm = costing::LifecycleStage{keep_hot, t->price, terms(*t)};
    add({{"storage.checkpoint_warm_tier", t->id},
         {"storage.checkpoint_warm_after", minutes(keep_hot)}},
        "moved to " + t->id + " after " + minutes(keep_hot), warm);
    for (const auto* cold : colder) {
      if (!(cold->price < t->price)) continue;
      // Cold after the warm tier's minimum: leaving it earlier is billed the minimum anyway.
      costing::StorageInputs both = warm;
      const core::Seconds cold_after = keep_hot + terms(*t).min_duration;
      both.checkpoint_cold = costing::LifecycleStage{cold_after, cold->price, terms(*cold)};
      add({{"storage.checkpoint_warm_tier", t->id},
           {"storage.checkpoint_warm_after", minutes(keep_hot)},
           {"storage.checkpoint_cold_tier", cold->id},
           {"storage.checkpoint_cold_after", minutes(cold_after)}},
          "moved to " + t->id + " after " + minutes(keep_hot) + ", to " + cold->id + " after " +
              minutes(cold_after),
          both);
    }
  }
  std::stable_sort(options.begin(), options.end(),
                   [](const Option& a, const Option& b) { return a.storage_usd < b.storage_usd; });
  const double now_usd = checkpoint_usd(s, ctx.plan);
  if (options.front().storage_usd >= now_usd) {
    const auto& o = options.front();
    return nothing_to_do(core::sprintf(
        "checkpoints live %.1f h (%d kept, one every %.0f min); the cheapest lifecycle (%s) "
        "would cost %s USD more than keeping them on %s: colder tiers bill every object at least "
        "their minimum duration (30-365 days) and charge retrieval on restarts",
        core::in_hours(lifetime), s.checkpoints_retained, f.checkpoint_interval.value() / 60,
        o.text.c_str(), core::group_digits(o.storage_usd - now_usd, 0).c_str(),
        s.checkpoint_terms.id.c_str()));
  }
  const Option* best = nullptr;
  double best_usd = 0;
  for (size_t i = 0; i < options.size() && i < 3; ++i) {
    auto e = ctx.evaluate(merge(ctx.applied, options[i].change));
    if (e && (!best || e->total_usd() < best_usd)) {
      best = &options[i];
      best_usd = e->total_usd();
    }
  }
  if (!best) return not_priced("no lifecycle option could be estimated");
  const bool restores =
      best->change.front().key == "storage.checkpoint_tier" &&
      ctx.catalog.storage(*best->change.front().value).value()->restore_time.value() > 0;
  Risk risk{restores ? RiskLevel::kHigh : RiskLevel::kLow,
            {"recovery"},
            restores
                ? "the latest checkpoint sits in an archive tier: every restart waits for its "
                  "restore (hours) before it can read it"
                : "older checkpoints (a rollback past a loss spike) are read back from a colder "
                  "tier, with its retrieval fee; the latest two stay where they are written"};
  Rollout r{
      "apply the lifecycle rule to one run's checkpoint prefix and restore an old checkpoint "
      "once to time it and see its retrieval charge",
      "checkpoint storage and retrieval charges (ledger storage cost), restore time",
      "remove the rule if a restore takes longer than the recovery target"};
  auto p = change(best->change, risk, r);
  p.notes.push_back(
      core::sprintf("checkpoints %s: %s USD of checkpoint storage and retrieval instead "
                    "of %s USD; checkpoints live %.1f h",
                    best->text.c_str(), core::group_digits(best->storage_usd, 0).c_str(),
                    core::group_digits(now_usd, 0).c_str(), core::in_hours(lifetime)));
  return p;
}

}  // namespace aicost::optimize::detail

// Serving levers that change the replica or what reaches it: precision, batch limit, prefix and
// response caches, speculative decoding, the GPU type. Each is priced by re-running the serving
// capacity search and fleet (serving/fleet.h) on the changed plan.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <variant>

#include "aicost/core/text.h"
#include "serving_levers.h"

namespace aicost::optimize {

std::string deployment_text(const ServingEvaluation& s) {
  const auto& d = s.deployment();
  const auto& r = s.option().replica;
  return core::sprintf("%d %s of %s TP%d (%d GPUs) %s, max batch %d", d.replicas,
                       d.replicas == 1 ? "replica" : "replicas", r.gpu.id.c_str(),
                       r.tensor_parallel, d.replicas * r.tensor_parallel,
                       catalog::to_string(r.weights), d.max_batch);
}

std::string replica_text(const ServingEvaluation& s) {
  const auto& r = s.option().replica;
  return core::sprintf("%s TP%d %s, max batch %d", r.gpu.id.c_str(), r.tensor_parallel,
                       catalog::to_string(r.weights), s.deployment().max_batch);
}

}  // namespace aicost::optimize

namespace aicost::optimize::detail {

using catalog::Precision;

namespace {

// Batch limits the batch-limit lever weighs besides the plan's own (vLLM's max_num_seqs and
// TensorRT-LLM's max_batch_size are set in this range; the KV-cache check bounds the top).
constexpr int kBatchLimits[] = {8, 16, 32, 64, 128, 256, 512, 1024};

std::string list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& i : items) out += (out.size() > 1 ? ", " : "") + i;
  return out + "]";
}

bool lists(const std::vector<Precision>& v, Precision p) {
  return std::find(v.begin(), v.end(), p) != v.end();
}

std::string usd(double x) { return core::group_digits(x) + " USD/month"; }

// A cache lever's hit ratio: the one serving.levers offers, or the proposal that ends the lever:
// nothing to do where the plan already caches (`now` > 0, `already` says how much), `missing`
// where the levers section offers no ratio.
std::variant<double, Proposal> offered_hit(double now, const std::optional<double>& offered,
                                           std::string already, Proposal missing) {
  if (now > 0) return nothing_to_do(std::move(already));
  if (!offered) return missing;
  return *offered;
}

}  // namespace

std::vector<Priced> price_each(const LeverContext& ctx,
                               std::vector<std::pair<Change, Risk>>&& candidates) {
  std::vector<Priced> out;
  for (auto& [c, risk] : candidates) {
    auto e = ctx.evaluate(merge(ctx.applied, c));
    if (e) out.push_back({std::move(c), std::move(*e), std::move(risk)});
  }
  return out;
}

std::optional<Priced> cheapest_within_lines(const LeverContext& ctx,
                                            const std::vector<Priced>& priced) {
  const Priced* best = nullptr;
  const Priced* best_ok = nullptr;
  for (const auto& p : priced) {
    if (!best || p.eval.total_usd() < best->eval.total_usd()) best = &p;
    const bool ok = check_red_lines(p.eval, ctx.plan, p.risk, ctx.guardrails, ctx.limits).ok;
    if (ok && (!best_ok || p.eval.total_usd() < best_ok->eval.total_usd())) best_ok = &p;
  }
  if (best_ok) return *best_ok;
  if (best) return *best;
  return std::nullopt;
}

Proposal quantization(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  const auto& r = s.option().replica;
  const Precision now = r.weights;
  // Lower precisions with tensor cores on the deployment's GPU that the plan does not weigh yet
  // (a listed one already lost to `now` in the capacity search).
  std::vector<Precision> lower, weighed;
  for (Precision p : {Precision::kFp8, Precision::kInt8, Precision::kFp4}) {
    if (catalog::bytes_per_element(p) >= catalog::bytes_per_element(now) || !r.gpu.peak(p))
      continue;
    (lists(s.plan.precisions, p) ? weighed : lower).push_back(p);
  }
  if (lower.empty() && weighed.empty()) {
    return not_applicable(
        core::sprintf("%s has no tensor cores below %s (FP8, INT8, FP4) for the "
                      "deployment to move to",
                      r.gpu.id.c_str(), catalog::to_string(now)));
  }
  if (lower.empty()) {
    return nothing_to_do(
        core::sprintf("the plan already weighs %s (serving.precision) and its "
                      "capacity search chose %s",
                      catalog::to_string(weighed.front()), catalog::to_string(now)));
  }
  std::vector<std::pair<Change, Risk>> candidates;
  for (Precision p : lower) {
    Change c = {{"serving.precision", catalog::to_string(p)}};
    // FP4 weights keep an FP8 KV cache (the usual NVFP4 serving setup); narrower KV is another bet.
    if (p == Precision::kFp4 && !s.plan.kv_cache_precision)
      c.push_back({"serving.kv_cache_precision", "fp8"});
    const bool fp4 = p == Precision::kFp4;
    const char* what = s.plan.kv_cache_precision ? "weights"
                       : fp4                     ? "weights (KV cache in fp8)"
                                                 : "weights and KV cache";
    Risk risk{
        fp4 ? RiskLevel::kHigh : RiskLevel::kMedium,
        {"quality"},
        core::sprintf("%s in %s instead of %s: answers can get worse, and only an eval set of "
                      "this service's tasks shows by how much%s",
                      what, catalog::to_string(p), catalog::to_string(now),
                      fp4 ? "; 4-bit weights lose more than 8-bit ones" : "")};
    candidates.push_back({std::move(c), std::move(risk)});
  }
  const auto priced = price_each(ctx, std::move(candidates));
  // Ties go to the first: FP8 before INT8 (FP8 keeps more range at the same bytes).
  const auto best = cheapest_within_lines(ctx, priced);
  if (!best) {
    return nothing_to_do(
        core::sprintf("no deployment in %s meets the SLA", catalog::to_string(lower.front())));
  }
  const std::string to = best->change.front().value.value();
  Rollout roll{"serve the " + to + " model on one replica next to the " + catalog::to_string(now) +
                   " one and score both on the service's eval set and a sample of real prompts",
               "eval score against " + std::string(catalog::to_string(now)) +
                   ", TTFT and TPOT at the SLA percentile, cost per 1M tokens",
               "roll back if the eval score falls by more than the quality budget set before the "
               "test, or user ratings drop"};
  auto p = change(best->change, best->risk, roll);
  p.notes.push_back("deployment with " + to + ": " + deployment_text(*best->eval.serving));
  if (!s.plan.kv_cache_precision && to != "fp4") {
    p.notes.push_back(
        "the plan sets no kv_cache_precision, so the KV cache follows the weights to " + to);
  }
  return p;
}

Proposal batch_limit(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  std::vector<int> batches = s.plan.batches;
  for (int b : kBatchLimits) batches.push_back(b);
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  std::vector<std::string> values;
  for (int b : batches) values.push_back(count(b));
  auto wide = ctx.evaluate(merge(ctx.applied, {{"serving.max_batch", list(values)}}));
  if (!wide)
    return nothing_to_do("no batch limit from 8 to 1024 makes a valid plan: " +
                         wide.error().message);
  const int best = wide->serving->deployment().max_batch;
  const int now = s.deployment().max_batch;
  if (best == now || wide->total_usd() > ctx.plan.total_usd() - 0.005) {
    return nothing_to_do(
        core::sprintf("max batch %d is already the cheapest limit from %d to %d "
                      "(serving.max_batch)",
                      now, batches.front(), batches.back()));
  }
  const auto& d = wide->serving->deployment();
  Risk risk{RiskLevel::kLow,
            {"latency", "memory"},
            core::sprintf("%d running sequences a replica instead of %d: TTFT %.0f ms and TPOT "
                          "%.1f ms at P%.0f in the model, within the SLA; the KV cache holds them",
                          best, now, d.load.ttft_tail.value() * 1000, d.load.step.value() * 1000,
                          s.plan.sla.percentile * 100)};
  Rollout roll{core::sprintf("raise the engine's limit (vLLM max_num_seqs, TensorRT-LLM "
                             "max_batch_size) to %d on one replica and load it to %.3g requests/s "
                             "with `vllm bench serve`",
                             best, d.rate_per_replica.value()),
               "TTFT and TPOT at the SLA percentile, requests/s per replica, preemptions",
               "go back if TPOT or TTFT at the percentile passes the SLA, or the engine starts "
               "preempting sequences (KV cache full)"};
  auto p = change({{"serving.max_batch", count(best)}}, risk, roll);
  p.notes.push_back("deployment at max batch " + count(best) + ": " +
                    deployment_text(*wide->serving));
  return p;
}

Proposal prefix_caching(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  const auto offered = offered_hit(
      s.plan.traffic.prefix_cache_hit, s.plan.levers.prefix_cache_hit,
      core::sprintf("the plan already serves %.0f %% of prompt tokens from a prefix cache "
                    "(serving.prefix_cache_hit)",
                    100 * s.plan.traffic.prefix_cache_hit),
      not_priced("needs the share of prompt tokens a prefix cache would serve on this traffic "
                 "(serving.levers.prefix_cache_hit): it depends on shared system prompts and "
                 "conversation history, so the model does not assume one"));
  if (const auto* stop = std::get_if<Proposal>(&offered)) return *stop;
  const double hit = std::get<double>(offered);
  Risk risk{RiskLevel::kLow,
            {"assumption", "memory"},
            core::sprintf("the saving rests on the plan's %.0f %% hit ratio; cached prefixes hold "
                          "KV blocks that new requests then cannot use",
                          100 * hit)};
  Rollout roll{
      "enable prefix caching (vLLM --enable-prefix-caching, SGLang's radix cache) on one "
      "replica and read the hit ratio from the engine's metrics for a day",
      "prefix-cache hit ratio, TTFT at the SLA percentile, requests/s per replica",
      core::sprintf("turn it off if the measured hit ratio stays below %.0f %% (half the "
                    "plan's) or TTFT at the percentile rises",
                    50 * hit)};
  return change({{"serving.prefix_cache_hit", percent(hit)}}, risk, roll);
}

Proposal speculative_decoding(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  if (s.plan.speculation.draft_tokens > 0) {
    return nothing_to_do(
        core::sprintf("the plan already decodes speculatively (%d draft tokens, "
                      "%.0f %% accepted)",
                      s.plan.speculation.draft_tokens, s.plan.speculation.acceptance * 100));
  }
  if (!s.plan.levers.speculation) {
    return not_priced(
        "needs the draft model's acceptance rate on this traffic "
        "(serving.levers.speculative: draft_tokens, acceptance, draft_cost): it "
        "depends on the draft and the prompts, so the model does not assume one");
  }
  const auto& sp = *s.plan.levers.speculation;
  Risk risk{RiskLevel::kMedium,
            {"memory", "assumption"},
            core::sprintf("the output is unchanged (the target verifies every token), but the "
                          "memory model leaves out the draft's weights and %d extra KV slots a "
                          "sequence, and the gain rests on the plan's %.0f %% acceptance",
                          sp.draft_tokens, sp.acceptance * 100)};
  Rollout roll{core::sprintf("serve with the draft model on one replica (vLLM "
                             "--speculative-config, %d tokens) at the planned load and read the "
                             "acceptance rate from the engine's metrics",
                             sp.draft_tokens),
               "acceptance rate, TPOT at the SLA percentile, requests/s per replica",
               core::sprintf("turn it off if the measured acceptance falls more than 10 pp below "
                             "%.0f %% or TPOT at the percentile gets worse",
                             sp.acceptance * 100)};
  auto p = change({{"serving.speculative.draft_tokens", count(sp.draft_tokens)},
                   {"serving.speculative.acceptance", percent(sp.acceptance)},
                   {"serving.speculative.draft_cost", percent(sp.draft_cost)}},
                  risk, roll);
  p.notes.push_back(core::sprintf("%.2f tokens a verify step (Leviathan et al. 2023, eq. 1)",
                                  sp.tokens_per_step()));
  return p;
}

Proposal cdn(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  const auto offered = offered_hit(
      s.plan.traffic.response_cache_hit, s.plan.levers.response_cache_hit,
      core::sprintf("the plan already answers %.0f %% of requests from a response cache "
                    "(serving.response_cache_hit)",
                    100 * s.plan.traffic.response_cache_hit),
      not_applicable("the plan gives no hit ratio for a response cache "
                     "(serving.levers.response_cache_hit)"));
  if (const auto* stop = std::get_if<Proposal>(&offered)) return *stop;
  const double hit = std::get<double>(offered);
  Change c = {{"serving.response_cache_hit", percent(hit)}};
  if (s.plan.levers.response_cache_cost) {
    c.push_back({"serving.response_cache_cost",
                 core::sprintf("%.10gUSD/month", s.plan.levers.response_cache_cost->value() *
                                                     core::kSecondsPerMonth)});
  }
  Risk risk{RiskLevel::kMedium,
            {"quality", "assumption"},
            core::sprintf("a cached answer can be stale, or wrong for a near-duplicate prompt "
                          "(semantic caches); the saving rests on the plan's %.0f %% hit ratio",
                          100 * hit)};
  Rollout roll{
      "run the cache in shadow on a share of traffic: look answers up, serve from the "
      "replicas, and compare",
      "hit ratio, requests reaching the replicas, agreement of cached and fresh answers",
      core::sprintf("turn it off if the hit ratio stays below %.0f %% (half the plan's) or "
                    "cached answers are reported wrong",
                    50 * hit)};
  auto p = change(std::move(c), risk, roll);
  p.notes.push_back(
      "network egress is not in the serving model: what a CDN saves on egress is "
      "not priced");
  if (!s.plan.levers.response_cache_cost) {
    p.notes.push_back(
        "the cache's own cost is not in the plan (serving.levers.response_cache_cost): "
        "the saving is before it");
  }
  return p;
}

Proposal serving_gpu_type(const LeverContext& ctx) {
  const auto& s = *ctx.plan.serving;
  // Priced as the plan prices: a plain gpu_hour holds for the plan's own GPU only, so the others
  // are weighed at catalogued on-demand prices (and the plan's with them).
  const catalog::PricingMode mode = s.plan.gpu_hour ? catalog::PricingMode::kOnDemand : s.plan.mode;
  std::vector<std::string> ids;
  for (const auto& g : ctx.catalog.gpus()) {
    if (!ctx.catalog.efficiency(g.generation)) continue;
    const bool priced = std::any_of(
        ctx.catalog.instances().begin(), ctx.catalog.instances().end(),
        [&](const catalog::Instance& i) {
          return catalog::normalize_name(i.gpu) == catalog::normalize_name(g.id) && i.price(mode);
        });
    if (priced) ids.push_back(g.id);
  }
  Change pricing;
  if (s.plan.gpu_hour)
    pricing = {{"pricing.gpu_hour", std::nullopt}, {"pricing.mode", "on-demand"}};
  auto wide = ctx.evaluate(merge(merge(ctx.applied, {{"serving.gpu", list(ids)}}), pricing));
  if (!wide) return nothing_to_do("no catalogued GPU makes a valid plan: " + wide.error().message);
  const std::string best = wide->serving->option().replica.gpu.id;
  const std::string now = s.option().replica.gpu.id;
  if (best == now) {
    return nothing_to_do(
        core::sprintf("%s is already the cheapest of the %zu catalogued GPUs with "
                      "a%s %s price",
                      now.c_str(), ids.size(), mode == catalog::PricingMode::kOnDemand ? "n" : "",
                      catalog::to_string(mode)));
  }
  Risk risk{RiskLevel::kMedium,
            {"performance"},
            core::sprintf(
                "%s instead of %s: the serving model's calibration for %s stands in for a "
                "benchmark of this model on it (docs/VALIDATION.md)",
                best.c_str(), now.c_str(), wide->serving->option().replica.gpu.generation.c_str())};
  Rollout roll{
      "benchmark one replica on " + best +
          " at the planned load (`vllm bench serve`) before "
          "moving traffic",
      "requests/s per replica within the SLA, TTFT and TPOT at the percentile, against the "
      "estimate",
      "stay on " + now +
          " if the measured requests/s within the SLA fall more than 15 % "
          "below the estimate"};
  auto p = change(merge({{"serving.gpu", best}}, pricing), risk, roll);
  p.notes.push_back("deployment on " + best + ": " + deployment_text(*wide->serving));
  // The cheapest deployment of each GPU weighed, for comparison.
  std::map<std::string, double> per_gpu;
  const auto& w = *wide->serving;
  for (size_t i = 0; i < w.fleet.per_option.size(); ++i) {
    const auto& d = w.fleet.per_option[i];
    if (!d) continue;
    const std::string& id = w.plan.options[i].replica.gpu.id;
    if (!per_gpu.count(id) || d->monthly.value() < per_gpu[id]) per_gpu[id] = d->monthly.value();
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [id, v] : per_gpu) ranked.push_back({v, id});
  std::sort(ranked.begin(), ranked.end());
  std::string top;
  for (size_t i = 0; i < ranked.size() && i < 4; ++i) {
    top += (top.empty() ? "" : ", ") + ranked[i].second + " " + usd(ranked[i].first);
  }
  p.notes.push_back(
      core::sprintf("weighed %zu catalogued GPUs at %s prices, cheapest deployment "
                    "each at the plan's rate: %s",
                    ids.size(), catalog::to_string(mode), top.c_str()));
  return p;
}

}  // namespace aicost::optimize::detail

namespace aicost::optimize {

std::vector<Lever> serving_levers() {
  using namespace detail;
  // All of category "serving", none excluding another.
  const std::pair<const char*, Proposal (*)(const LeverContext&)> levers[] = {
      {"quantization", quantization},     {"batch-limit", batch_limit},
      {"prefix-caching", prefix_caching}, {"speculative-decoding", speculative_decoding},
      {"autoscaling", autoscaling},       {"spot-mix", spot_mix},
      {"gpu-type", serving_gpu_type},     {"cdn", cdn},
  };
  std::vector<Lever> out;
  for (const auto& [id, propose] : levers) out.push_back({id, "serving", "", propose});
  return out;
}

}  // namespace aicost::optimize

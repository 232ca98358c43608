// Compression levers: checkpoints, logs and egress compressed with zstd at the ratios and speeds
// measured by tools/compress_ratio (data/compression.yaml). BF16/FP32 training state is
// high-entropy and compresses little; text compresses well.
#include <algorithm>

#include "aicost/core/text.h"
#include "levers.h"

namespace aicost::optimize::detail {

namespace {

// The measured figures of one content, by codec.
std::vector<const catalog::CompressionFigure*> figures(const LeverContext& ctx,
                                                       const std::string& content) {
  std::vector<const catalog::CompressionFigure*> out;
  for (const auto& f : ctx.catalog.compression_figures()) {
    if (f.content == content) out.push_back(&f);
  }
  return out;
}

// The figure with the smallest ratio whose compression of `rate` takes at most 5 % of one core
// (logs and egress are compressed on a host that does other work); ties go to the faster one.
const catalog::CompressionFigure* best_within_a_core(const LeverContext& ctx,
                                                     const std::string& content,
                                                     core::BytesPerSecond rate) {
  const catalog::CompressionFigure* best = nullptr;
  for (const auto* f : figures(ctx, content)) {
    if (rate.value() > 0.05 * f->compress_per_core.value()) continue;
    if (!best || f->ratio < best->ratio ||
        (f->ratio == best->ratio && f->compress_per_core > best->compress_per_core)) {
      best = f;
    }
  }
  return best;
}

std::string figure_text(const catalog::CompressionFigure& f) {
  return core::sprintf(
      "%s on %s: %.1f %% of the bytes, %.4g MB/s per core to compress, %.4g MB/s to "
      "decompress (data/compression.yaml, measured %s: %s)",
      f.codec.c_str(), f.content.c_str(), 100 * f.ratio, f.compress_per_core.value() / 1e6,
      f.decompress_per_core.value() / 1e6, f.provenance.date.c_str(), f.command.c_str());
}

}  // namespace

Proposal checkpoint_compression(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (!s.checkpoint_compression.name.empty()) {
    return nothing_to_do("checkpoints are already compressed (" + s.checkpoint_compression.name +
                         ")");
  }
  const auto figs = figures(ctx, "checkpoint");
  if (figs.empty())
    return not_priced("no measured compression of checkpoints in data/compression.yaml");
  // Compression is on the save path (and decompression on every restart): each level is
  // estimated as the whole plan and the cheapest is proposed.
  const catalog::CompressionFigure* best = nullptr;
  double best_usd = 0;
  for (const auto* f : figs) {
    auto e = ctx.evaluate(merge(ctx.applied, {{"storage.checkpoint_compression", f->codec}}));
    if (e && (!best || e->total_usd() < best_usd)) {
      best = f;
      best_usd = e->total_usd();
    }
  }
  if (!best) return not_priced("no compressed checkpoint plan could be estimated");
  const auto ck = costing::checkpoint_model(ctx.plan.job, ctx.plan.inputs);
  Risk risk{
      RiskLevel::kLow,
      {"recovery", "stability"},
      core::sprintf("BF16/FP32 training state is high-entropy: %s stores %.1f %% of the bytes; "
                    "%d cores per node compress each save and decompress each restart",
                    best->codec.c_str(), 100 * best->ratio, s.compression_cores_per_node)};
  Rollout r{"compress one checkpoint with " + best->codec +
                " on the training nodes, time the save "
                "and a restore on one node, and compare the stored size with the estimate",
            "save stall, restore time, checkpoint bytes stored (ledger storage cost)",
            "roll back if the save stall grows or a compressed checkpoint fails to load"};
  auto p = change({{"storage.checkpoint_compression", best->codec}}, risk, r);
  p.notes.push_back(figure_text(*best));
  p.notes.push_back(
      core::sprintf("uncompressed, a save writes %s in %.1f s; compressing takes the "
                    "nodes' cores (storage.compression_cores_per_node, default from "
                    "data/compression.yaml) before the write",
                    core::format_bytes(ck.size.value()).c_str(), ck.write_time().value()));
  return p;
}

Proposal log_compression(const LeverContext& ctx) {
  const auto& s = ctx.plan.inputs.storage;
  if (s.logs_per_day.value() <= 0)
    return not_applicable("the plan writes no logs (storage.logs_per_day 0)");
  if (!s.log_compression.name.empty()) {
    return nothing_to_do("logs are already stored compressed (" + s.log_compression.name + ")");
  }
  const core::BytesPerSecond rate(s.logs_per_day.value() / core::kSecondsPerDay);
  const auto* f = best_within_a_core(ctx, "training-log", rate);
  if (!f)
    return not_priced(
        "no measured compression of training logs in data/compression.yaml keeps up with the "
        "plan's logs on 5 % of a core");
  Risk risk{RiskLevel::kLow,
            {"debuggability"},
            core::sprintf("logs are stored at %.1f %% of their size; reading one needs a "
                          "decompression (zstdcat, zstdgrep)",
                          100 * f->ratio)};
  Rollout r{"compress a day of logs with " + f->codec +
                " at rotation and check that dashboards and "
                "search still read them",
            "log bytes stored (ledger storage cost)",
            "go back to plain logs if an incident tool cannot read the compressed ones"};
  auto p = change({{"storage.log_compression", f->codec}}, risk, r);
  p.notes.push_back(figure_text(*f));
  p.notes.push_back(
      core::sprintf("the best measured ratio whose compression of %s/day takes at most "
                    "5 %% of one core (%.2f %%); its CPU time is not priced",
                    core::format_bytes(s.logs_per_day.value()).c_str(),
                    100 * rate.value() / f->compress_per_core.value()));
  return p;
}

Proposal egress_compression(const LeverContext& ctx) {
  const auto& n = ctx.plan.inputs.network;
  if (n.egress.value() <= 0)
    return not_applicable("the plan sends nothing to the internet (network.egress 0)");
  if (n.egress_content.empty()) {
    return not_priced(
        "the plan does not say what its egress is: give network.egress_content "
        "(training-log, metrics-jsonl, checkpoint, bf16-weights, fp32-optimizer), "
        "whose compression data/compression.yaml measures");
  }
  if (!n.egress_compression.name.empty()) {
    return nothing_to_do("the egress is already compressed (" + n.egress_compression.name + ")");
  }
  const core::Seconds wall = ctx.plan.cost.wall_time;
  const core::BytesPerSecond rate(n.egress.value() / std::max(wall.value(), 1.0));
  const auto* f = best_within_a_core(ctx, n.egress_content, rate);
  if (!f) {
    return not_priced("no measured compression of " + n.egress_content +
                      " in data/compression.yaml keeps up with the egress on 5 % of a core");
  }
  Risk risk{RiskLevel::kLow,
            {"compatibility"},
            core::sprintf("%s is sent at %.1f %% of its size; the receiver must decompress it",
                          n.egress_content.c_str(), 100 * f->ratio)};
  Rollout r{"compress one transfer with " + f->codec + " and check that the receiver reads it",
            "egress bytes (ledger network cost)",
            "send uncompressed again if the receiver cannot read it"};
  auto p = change({{"network.egress_compression", f->codec}}, risk, r);
  p.notes.push_back(figure_text(*f));
  p.notes.push_back(
      core::sprintf("%s of %s over %.1f days; compressing it takes %.1f core-hours "
                    "(not priced)",
                    core::format_bytes(n.egress.value()).c_str(), n.egress_content.c_str(),
                    core::in_days(wall), n.egress.value() / f->compress_per_core.value() / 3600));
  return p;
}

}  // namespace aicost::optimize::detail

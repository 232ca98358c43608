// Compute levers: the layout at the plan's GPUs, the GPU type and count under a deadline,
// FP8, communication overlap, gradient reduction precision (the data loader: levers_data.cc).
#include <algorithm>

#include "aicost/core/text.h"
#include "levers.h"

namespace aicost::optimize::detail {

using catalog::Precision;

namespace {

std::string gib(core::Bytes b) { return core::sprintf("%.1f GiB", core::in_gib(b)); }

std::string layout_text(const workload::Parallelism& p, int gpus) {
  const int dp = gpus / (p.tensor * p.pipeline * p.context);
  return core::sprintf("TP%d PP%d VPP%d CP%d EP%d DP%d, micro-batch %d, recompute %s, SP %s, %s",
                       p.tensor, p.pipeline, p.virtual_pipeline, p.context, p.expert, dp,
                       p.micro_batch, workload::to_string(p.recompute),
                       p.sequence_parallel ? "on" : "off", workload::to_string(p.sharding));
}

// A coarse layout grid picks a GPU count or type: every TP/PP/CP/DP/EP split and recompute
// mode, but no interleaving, micro-batch 1 and ZeRO-1 (and the plan's own choices). The
// parallelism lever then refines the layout at the chosen count and type (the optimiser's second
// pass). A full grid costs ten times as much and moves the choice by cents.
void coarse_grid(const workload::TrainingJob& job, search::SearchSpace& s) {
  s.virtual_pipeline = {1};
  if (job.parallel.virtual_pipeline != 1)
    s.virtual_pipeline.push_back(job.parallel.virtual_pipeline);
  s.micro_batch = {1};
  if (job.parallel.micro_batch != 1) s.micro_batch.push_back(job.parallel.micro_batch);
  s.sharding = {workload::OptimizerSharding::kZero1};
  if (job.parallel.sharding != workload::OptimizerSharding::kZero1) {
    s.sharding.push_back(job.parallel.sharding);
  }
}

int max_gpus(const LeverContext& ctx) {
  return ctx.limits.max_gpus > 0 ? ctx.limits.max_gpus : 4 * ctx.plan.job.cluster.gpus;
}

Rollout layout_rollout(const std::string& what) {
  return {"run a few hundred steps of " + what +
              " next to the current layout and compare step time and peak memory with the estimate",
          "step time and MFU (aicost ledger reads them back from telemetry)",
          "roll back if step time is not at least half the predicted gain better, or if the job "
          "runs out of memory"};
}

}  // namespace

Proposal parallelism(const LeverContext& ctx) {
  const auto& job = ctx.plan.job;
  const int gpus = job.cluster.gpus;
  search::SearchSpace s = own_gpu_space(ctx.plan);
  s.gpu_counts = {gpus};
  s.min_gpus = s.max_gpus = gpus;
  const auto best = cheapest(ctx, s, ctx.limits.deadline_days);
  if (!best) {
    return nothing_to_do(core::sprintf("no layout at %d GPUs fits in memory with %.0f %% headroom",
                                       gpus, 100 * ctx.limits.memory_headroom));
  }
  if (same_layout(best->parallel, job.parallel)) {
    return nothing_to_do("the plan's layout (" + layout_text(job.parallel, gpus) +
                         ") is already the cheapest at " + std::to_string(gpus) + " GPUs");
  }
  Risk risk{RiskLevel::kLow,
            {"memory", "stability"},
            core::sprintf("same GPUs and numerics; peak memory %.1f GiB of %s per GPU",
                          best->memory_gib, gib(job.cluster.gpu.memory).c_str())};
  auto p = change(layout_edits(best->parallel, job.parallel), risk,
                  layout_rollout(layout_text(best->parallel, gpus)));
  p.notes.push_back("layout searched at " + std::to_string(gpus) + " GPUs and global batch " +
                    std::to_string(job.global_batch) + ": " + layout_text(best->parallel, gpus));
  return p;
}

Proposal gpu_count(const LeverContext& ctx) {
  if (!ctx.limits.deadline_days) {
    return not_applicable(
        "the plan has no deadline (search.deadline): without one, the GPU count "
        "trades money for time and there is no cheapest answer to give");
  }
  const auto& job = ctx.plan.job;
  search::SearchSpace s = own_gpu_space(ctx.plan);
  s.max_gpus = max_gpus(ctx);
  coarse_grid(job, s);
  const auto best = cheapest(ctx, s, ctx.limits.deadline_days);
  if (!best) {
    return nothing_to_do(core::sprintf("no count of %s up to %d meets the deadline of %.0f days",
                                       job.cluster.gpu.id.c_str(), s.max_gpus,
                                       *ctx.limits.deadline_days));
  }
  if (best->gpus == job.cluster.gpus) {
    return nothing_to_do(
        core::sprintf("%d GPUs is already the cheapest count that meets the "
                      "deadline of %.0f days",
                      job.cluster.gpus, *ctx.limits.deadline_days));
  }
  Change c = {{"cluster.gpus", count(best->gpus)}};
  c = merge(c, layout_edits(best->parallel, job.parallel));
  const bool fewer = best->gpus < job.cluster.gpus;
  Risk risk{
      fewer ? RiskLevel::kLow : RiskLevel::kMedium,
      fewer ? std::vector<std::string>{"schedule"} : std::vector<std::string>{"availability"},
      core::sprintf("%d instead of %d GPUs: %.1f wall days against a deadline of %.0f", best->gpus,
                    job.cluster.gpus, best->wall_days, *ctx.limits.deadline_days)};
  auto p = change(std::move(c), risk,
                  layout_rollout(std::to_string(best->gpus) + " GPUs (" +
                                 layout_text(best->parallel, best->gpus) + ")"));
  p.rollout.stop_loss =
      "roll back if the projected finish (steps done / step rate) slips past the "
      "deadline";
  p.notes.push_back(core::sprintf(
      "counts searched up to %d GPUs (search.max_gpus, else 4x the plan)", s.max_gpus));
  return p;
}

Proposal gpu_type(const LeverContext& ctx) {
  if (!ctx.limits.deadline_days) {
    return not_applicable(
        "the plan has no deadline (search.deadline): a GPU type is only "
        "\"cheapest\" against a date to finish by");
  }
  const auto& job = ctx.plan.job;
  const auto& price = ctx.plan.inputs.compute;
  // Other types at the plan's kind of price: its mode when it names an instance (spot is left to
  // pricing-spot, whose interrupts the search does not model), else on-demand.
  const catalog::PricingMode mode =
      (!price.instance.empty() && price.mode != catalog::PricingMode::kSpot)
          ? price.mode
          : catalog::PricingMode::kOnDemand;
  search::SearchSpace s;
  s.global_batches = {job.global_batch};
  s.max_gpus = max_gpus(ctx);
  coarse_grid(job, s);
  for (const auto& g : ctx.catalog.gpus()) {
    if (g.id == job.cluster.gpu.id || !g.peak(job.precision)) continue;
    auto eff = ctx.catalog.efficiency(g.generation);
    if (!eff) continue;
    // Each type at its cheapest catalogued instance: the step model runs every type on its
    // reference system, so the instance only sets the price (and the storage provider).
    search::GpuOption opt{g, **eff, {}};
    for (const auto& inst : ctx.catalog.instances()) {
      if (catalog::normalize_name(inst.gpu) != catalog::normalize_name(g.id) || !inst.price(mode))
        continue;
      auto p = costing::instance_pricing(inst, mode);
      p.term_reuse = price.term_reuse;
      if (opt.prices.empty())
        opt.prices.push_back(p);
      else if (p.per_gpu < opt.prices.front().per_gpu)
        opt.prices.front() = p;
    }
    if (!opt.prices.empty()) s.gpus.push_back(std::move(opt));
  }
  if (s.gpus.empty()) {
    return not_priced(std::string("no other GPU type has a catalogued ") +
                      catalog::to_string(mode) + " price and a " +
                      catalog::to_string(job.precision) + " peak");
  }
  const auto best = cheapest(ctx, s, ctx.limits.deadline_days);
  if (!best) {
    return nothing_to_do(core::sprintf("no other GPU type meets the deadline of %.0f days",
                                       *ctx.limits.deadline_days));
  }
  const auto& opt = s.gpus[best->gpu_option];
  const auto& bp = opt.prices[best->price_option];
  Change c = {{"cluster.gpu", opt.gpu.id},
              {"cluster.gpus", count(best->gpus)},
              // The new type runs on its reference system (search's with_gpu).
              {"cluster.gpus_per_node", std::nullopt},
              {"cluster.scale_up_domain", std::nullopt},
              {"cluster.intra_node_bandwidth", std::nullopt},
              {"cluster.inter_node_bandwidth", std::nullopt},
              {"pricing.gpu_hour", std::nullopt},
              {"pricing.instance", bp.instance},
              {"pricing.mode", catalog::to_string(bp.mode)}};
  c = merge(c, layout_edits(best->parallel, job.parallel));
  Risk risk{RiskLevel::kMedium,
            {"availability", "migration"},
            core::sprintf("%d x %s (%s) instead of %d x %s: another software stack and fleet to "
                          "validate; %.1f wall days against a deadline of %.0f",
                          best->gpus, opt.gpu.id.c_str(), bp.instance.c_str(), job.cluster.gpus,
                          job.cluster.gpu.id.c_str(), best->wall_days, *ctx.limits.deadline_days)};
  Rollout r{"run the model's first few hundred steps on one node group of " + opt.gpu.id +
                " and compare the loss curve and step time with the current fleet",
            "step time, MFU and cost per 1M tokens",
            "roll back if the loss curve departs from the current fleet's or step time is more "
            "than 10 % above the estimate"};
  auto p = change(std::move(c), risk, r);
  p.notes.push_back(std::string("other GPU types priced at their cheapest catalogued ") +
                    catalog::to_string(mode) + " instance");
  return p;
}

Proposal precision_fp8(const LeverContext& ctx) {
  const auto& job = ctx.plan.job;
  if (job.precision == Precision::kFp8) return not_applicable("the plan already trains in FP8");
  const auto& g = job.cluster.gpu;
  if (!g.peak(Precision::kFp8)) return not_applicable(g.id + " has no FP8 tensor cores");
  Risk risk{RiskLevel::kMedium,
            {"convergence", "quality"},
            "FP8 GEMMs need per-tensor (Hopper) or block (MXFP8, Blackwell) scaling; loss spikes "
            "or a small final-loss gap are possible and show only after thousands of steps"};
  Rollout r{
      "run 200 steps of the FP8 plan on one node group next to the BF16 baseline from the "
      "same checkpoint and compare loss curves and step time",
      "training loss against the BF16 run, step time, MFU",
      "roll back to BF16 if the loss stays more than 1 % above the BF16 run after the "
      "warm-up or any loss spike does not recover within 100 steps"};
  auto p = change({{"training.precision", "fp8"}}, risk, r);
  if (g.generation == "blackwell")
    p.notes.push_back("on Blackwell use MXFP8 (block-scaled) recipes");
  p.notes.push_back(
      "FP8 GEMM efficiency from data/efficiency.yaml (fp8_gemm_relative), held to "
      "published FP8 runs in docs/VALIDATION.md");
  return p;
}

Proposal comm_overlap(const LeverContext& ctx) {
  const auto& job = ctx.plan.job;
  const auto& par = job.parallel;
  Change c;
  std::vector<std::string> names;
  auto want = [&](bool off, bool matters, const char* key) {
    if (off && matters) {
      c.push_back({std::string("parallelism.") + key, "true"});
      names.push_back(key);
    }
  };
  want(!par.tp_comm_overlap, par.tensor > 1, "tp_comm_overlap");
  want(!par.ep_comm_overlap, par.expert > 1 && job.model.is_moe(), "ep_comm_overlap");
  want(!par.overlap_grad_reduce, job.data_parallel() > 1, "overlap_grad_reduce");
  want(!par.overlap_param_gather,
       job.data_parallel() > 1 && par.sharding != workload::OptimizerSharding::kNone,
       "overlap_param_gather");
  if (c.empty()) {
    return nothing_to_do("every overlap switch that matters for this layout is already on");
  }
  Risk risk{RiskLevel::kLow,
            {"stability", "memory"},
            "overlap kernels take SMs and buffer memory from compute; a switch can expose a "
            "framework bug, but the math does not change"};
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  Rollout r{"turn on " + list + " for a few hundred steps and compare step time",
            "step time and exposed communication (profiler)",
            "roll back if step time does not improve or the run hangs or runs out of memory"};
  return change(std::move(c), risk, r);
}

Proposal gradient_compression(const LeverContext& ctx) {
  const auto& job = ctx.plan.job;
  if (job.data_parallel() <= 1) return not_applicable("no data parallelism: no gradient reduction");
  if (!job.parallel.grad_reduce_in_fp32) {
    // Below 16 bits the bytes are easy (1 B per gradient in FP8) but the convergence is not: FP8
    // reduction (FP8-LM, Peng et al. 2023) and 1-bit Adam (Tang et al. 2021) need per-tensor
    // scaling or error feedback and a full-precision warm-up, run their own collectives outside
    // Megatron-Core, and their effect on the loss is a measurement, not a model term.
    return not_priced(
        "gradients are already reduced in " +
        std::string(catalog::to_string(job.precision == Precision::kFp16 ? Precision::kFp16
                                                                         : Precision::kBf16)) +
        "; below that (FP8 or 1-bit reduction) is not priced: Megatron-Core has no "
        "such reduction, and its convergence cost (scaling, error feedback, a "
        "full-precision warm-up) is measured per run, not modelled");
  }
  Risk risk{RiskLevel::kMedium,
            {"convergence"},
            "reducing gradients in BF16 instead of FP32 loses precision in the sum over "
            "data-parallel ranks; large DP sizes make it worse"};
  Rollout r{
      "run a few hundred steps with grad_reduce_in_fp32 off next to the FP32 run and "
      "compare loss and gradient norm",
      "training loss and gradient norm against the FP32 reduction",
      "roll back if the loss or gradient norm departs by more than 1 %"};
  return change({{"parallelism.grad_reduce_in_fp32", "false"}}, risk, r);
}

}  // namespace aicost::optimize::detail

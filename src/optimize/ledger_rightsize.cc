// The rightsize lever (docs/OPTIMIZE.md "Ledger"): a host whose GPUs' busiest hour, in activity and
// memory, fits a cheaper instance of the catalog (fewer GPUs, or smaller or older ones) with the
// capacity and memory buffers kept free, moved onto it; priced at the bill's rate of the host
// times the catalog's price ratio of the two instances.
#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"
#include "ledger_levers_internal.h"

namespace aicost::optimize {

std::optional<RightsizeFit> rightsize(const GpuUse& use, const catalog::Catalog& cat,
                                      const catalog::Instance& current, const RightsizeOptions& o) {
  const auto od = current.price(catalog::PricingMode::kOnDemand);
  const auto gpu = cat.gpu(current.gpu);
  if (!od || !gpu) return std::nullopt;
  const auto peak = (*gpu)->peak(catalog::Precision::kBf16);
  if (!peak) return std::nullopt;
  std::optional<RightsizeFit> best;
  for (const auto& c : cat.instances()) {
    if (c.name == current.name ||
        core::ascii_lower(c.provider) != core::ascii_lower(current.provider) || c.gpus <= 0)
      continue;
    const auto c_od = c.price(catalog::PricingMode::kOnDemand);
    const auto c_gpu = cat.gpu(c.gpu);
    if (!c_od || !c_gpu) continue;
    const auto c_peak = (*c_gpu)->peak(catalog::Precision::kBf16);
    if (!c_peak) continue;
    RightsizeFit f;
    f.instance = &c;
    f.gpu = *c_gpu;
    f.price_ratio = c_od->value() / od->value();
    if (f.price_ratio >= 1) continue;
    f.speed = std::min(c_peak->value() / peak->value(),
                       (*c_gpu)->memory_bandwidth.value() / (*gpu)->memory_bandwidth.value());
    f.load = use.peak_work / (f.speed * c.gpus);
    const double mem = (*c_gpu)->memory.value();
    if (f.load > 1 - o.capacity_buffer + 1e-12) continue;
    if (use.peak_memory.value() * (1 + o.memory_buffer) > c.gpus * mem) continue;
    if (use.peak_gpu_memory.value() * (1 + o.memory_buffer) > mem) continue;
    if (!best || f.price_ratio < best->price_ratio ||
        (f.price_ratio == best->price_ratio && c.gpus < best->instance->gpus))
      best = f;
  }
  return best;
}

namespace detail {

std::map<std::string, GpuUse> gpu_uses(const std::vector<ledger::GpuHour>& rows) {
  struct Hour {
    double work = 0, memory = 0;
  };
  std::map<std::string, std::map<ledger::UnixSeconds, Hour>> by_host;
  std::map<std::string, std::set<std::string>> gpus;
  std::map<std::string, double> gpu_memory;
  for (std::size_t i = 0; i < rows.size();) {
    // rows of one (host, gpu, hour), metrics in enum order
    std::size_t j = i;
    std::optional<double> sm, gr, util, fb;
    while (j < rows.size() && rows[j].host == rows[i].host && rows[j].gpu == rows[i].gpu &&
           rows[j].hour == rows[i].hour) {
      if (rows[j].samples > 0) {
        if (rows[j].metric == ledger::GpuMetric::kSmActive) sm = rows[j].mean();
        if (rows[j].metric == ledger::GpuMetric::kGrEngineActive) gr = rows[j].mean();
        if (rows[j].metric == ledger::GpuMetric::kGpuUtil) util = rows[j].mean();
        if (rows[j].metric == ledger::GpuMetric::kFbUsed) fb = rows[j].mean();
      }
      ++j;
    }
    const auto a = sm ? sm : gr ? gr : util;
    if (a || fb) {
      auto& h = by_host[rows[i].host][rows[i].hour];
      h.work += a.value_or(0);
      h.memory += fb.value_or(0);
      gpus[rows[i].host].insert(rows[i].gpu);
      auto& m = gpu_memory[rows[i].host];
      m = std::max(m, fb.value_or(0));
    }
    i = j;
  }
  std::map<std::string, GpuUse> out;
  for (const auto& [host, hours] : by_host) {
    GpuUse u;
    u.gpus = static_cast<int>(gpus[host].size());
    double memory = 0;
    for (const auto& [t, h] : hours) {
      u.peak_work = std::max(u.peak_work, h.work);
      memory = std::max(memory, h.memory);
    }
    u.peak_memory = core::Bytes(memory);
    u.peak_gpu_memory = core::Bytes(gpu_memory[host]);
    out.emplace(host, u);
  }
  return out;
}

void rightsize_levers(const catalog::Catalog& cat, const LedgerOptions& o, const LedgerBaseline& b,
                      const std::map<std::string, GpuUse>& uses, const HostPrices& prices,
                      std::map<std::string, std::string>& counted, std::vector<LeverResult>& out,
                      std::map<std::string, std::string>& moved,
                      std::vector<std::string>& warnings) {
  std::size_t no_memory = 0;
  const RightsizeOptions ro{o.guardrails.capacity_buffer, o.memory_buffer};
  for (const auto& [host, use] : uses) {
    // One resource, one lever: a host an idle schedule stops keeps its instance; a host whose
    // busiest hour is idle is `ledger check`'s idle GPU (waste-idle-gpu), stopped, not shrunk.
    if (counted.count(host) || use.peak_work < o.idle.idle_below) continue;
    const auto p = prices.find(host);
    if (p == prices.end() || p->second.hours <= 0) continue;
    const auto* inst = catalog_instance(cat, p->second.provider, p->second.sku);
    if (!inst) continue;
    if (use.peak_gpu_memory.value() <= 0) {
      ++no_memory;
      continue;
    }
    const auto fit = rightsize(use, cat, *inst, ro);
    if (!fit) continue;
    const auto* cur_gpu = *cat.gpu(inst->gpu);
    const auto& c = *fit->instance;
    auto r = lever("rightsize", host);
    const bool same_gpu = c.gpu == inst->gpu;
    r.change = {{"instance." + host, c.name +
                                         core::sprintf(": %d x %s instead of %d", c.gpus,
                                                       fit->gpu->name.c_str(), inst->gpus) +
                                         (same_gpu ? "" : " x " + cur_gpu->name)}};
    const double hourly = p->second.cost / p->second.hours;
    const double hours_per_month = p->second.hours * kHoursPerMonth / (24.0 * o.idle_window_days);
    priced(r, hourly * (1 - fit->price_ratio) * hours_per_month, b, p->second.currency);
    moved[host] = p->second.resource;
    counted[host] = "rightsize " + host;
    r.risk.level = RiskLevel::kMedium;
    r.risk.kinds = same_gpu ? std::vector<std::string>{"performance"}
                            : std::vector<std::string>{"performance", "compatibility"};
    r.risk.why =
        core::sprintf("the busiest hour's work would load %s to %.0f %%: ",
                      c.gpus == 1 ? "its GPU" : core::sprintf("its %d GPUs", c.gpus).c_str(),
                      100 * fit->load) +
        (c.gpus < use.gpus
             ? "work split across GPUs by model parallelism cannot be packed onto fewer, "
             : "") +
        "a peak shorter than an hour is not in hourly means" +
        (same_gpu ? ""
                  : ", and " + fit->gpu->name + " lacks what " + cur_gpu->name +
                        " may be used for (precisions, memory)");
    r.notes.push_back(
        core::sprintf(
            "busiest hour in the %d days read: %.3g GPUs of work (activity summed over %d GPUs), ",
            o.idle_window_days, use.peak_work, use.gpus) +
        core::sprintf("%.1f GiB used (%.1f GiB on one GPU)", core::in_gib(use.peak_memory),
                      core::in_gib(use.peak_gpu_memory)));
    r.notes.push_back(
        core::sprintf("%s: %d x %s of %.0f GiB", c.id.c_str(), c.gpus, fit->gpu->name.c_str(),
                      core::in_gib(fit->gpu->memory)) +
        (same_gpu
             ? std::string(", the same GPU")
             : core::sprintf(
                   ", each %.3g of a %s (the lower of the BF16 peak and memory bandwidth ratios)",
                   fit->speed, cur_gpu->name.c_str())) +
        core::sprintf(
            "; the peak leaves %.0f %% of its capacity free (at least %.0f %%) and %.1f GiB of "
            "memory "
            "(at least %.0f %% above the use)",
            100 * (1 - fit->load), 100 * ro.capacity_buffer,
            core::in_gib(core::Bytes(c.gpus * fit->gpu->memory.value() - use.peak_memory.value())),
            100 * ro.memory_buffer));
    r.notes.push_back(
        "billed " + rate(hourly, p->second.currency) + " per hour (" + p->second.resource + ", " +
        core::sprintf("%.0f h in the window", p->second.hours) + "); the smaller instance at " +
        pct(fit->price_ratio) + " of it: the catalog's on-demand " + c.id + " / " + inst->id +
        " (" + c.provenance.version + ")");
    r.rollout.validation = "run " + host + "'s work on one " + c.name + " for a week beside it";
    r.rollout.metric = "job time or request latency, and GPU activity and memory on the " + c.name;
    r.rollout.stop_loss =
        "move back if job time or latency grows more than the capacity buffer, or memory runs out";
    out.push_back(std::move(r));
  }
  if (no_memory > 0) {
    warnings.push_back(core::sprintf(
        "%zu hosts have GPU activity but no memory telemetry (DCGM_FI_DEV_FB_USED), so "
        "no rightsize is judged for them",
        no_memory));
  }
}

}  // namespace detail

}  // namespace aicost::optimize

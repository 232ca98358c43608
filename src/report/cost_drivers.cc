// How each cost line was computed, in words and numbers (estimate_parts.h): worded here from the
// plan's inputs and the estimate, so that costing returns amounts only.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "aicost/catalog/instance.h"
#include "aicost/core/text.h"
#include "estimate_parts.h"

namespace aicost::report {

namespace {

double per_month(core::UsdPerSecond r) { return r.value() * core::kSecondsPerMonth; }
std::string money(double usd) { return core::group_digits(usd, 0) + " USD"; }
std::string bytes(core::Bytes b) { return core::format_bytes(b.value()); }

std::string failures(const costing::FailureOverhead& f, const costing::CostInputs& in) {
  std::string stall;
  if (f.spare_stall.value() > 0) {
    stall = fmt::format("; {:.1f} h waiting for a repaired node ({:.3f} % of the time, {} spares)",
                        core::in_hours(f.spare_stall), 100 * f.spare_stall_share,
                        in.reliability.spare_nodes);
  }
  return fmt::format(
      "{:.1f} expected interruptions (job MTBF {:.1f} h); checkpoint every {:.0f} min, {:.0f} s "
      "stall each; restart {:.0f} min; {:.1f} h of planned maintenance{}",
      f.expected_interruptions, core::in_hours(f.job_mtbf), f.checkpoint_interval.value() / 60,
      f.checkpoint_blocking.value(), f.restart_per_interrupt.value() / 60,
      core::in_hours(f.maintenance), stall);
}

// The unused hours of whole reservation terms (costing::estimate_cost's "commitment" line).
std::string commitment(const costing::CostEstimate& c, const costing::CostInputs& in, double gpus) {
  const core::Seconds term = in.compute.term;
  const double terms = std::max(1.0, std::ceil(c.wall_time / term));
  return fmt::format(
      "{} term{} of {} h x {} GPUs; the run uses {:.1f} %; {:.0f} % of the other {} h reused by "
      "other work (pricing.reservation_reuse)",
      catalog::to_string(in.compute.mode), terms > 1 ? "s" : "",
      core::group_digits(core::in_hours(term) * terms), core::group_digits(gpus),
      100 * c.wall_time.value() / (term.value() * terms), in.compute.term_reuse * 100,
      core::group_digits(core::in_hours(term * terms - c.wall_time)));
}

std::string storage(const EstimateView& v) {
  const auto& s = v.inputs->storage;
  const auto& f = v.cost->failures;
  const double retained = costing::checkpoint_storage(s, f, v.cost->wall_time).retained;
  const core::Usd retrieval = costing::retrieval_fees(*v.job, s, f);
  const std::string fees =
      retrieval.value() > 0 ? "; retrieval fees " + money(retrieval.value()) : "";
  return fmt::format("dataset {} + {:.0f} checkpoints x {} + logs {}/day; peak {}; {}{}",
                     bytes(s.dataset), retained, bytes(f.checkpoint_size), bytes(s.logs_per_day),
                     bytes(v.cost->peak_storage), s.tier_note, fees);
}

}  // namespace

std::string cost_driver(const EstimateView& v, const costing::CostLine& l) {
  if (v.job == nullptr || v.perf == nullptr || v.cost == nullptr || v.inputs == nullptr) return "";
  const auto& in = *v.inputs;
  const auto& c = *v.cost;
  const double gpus = v.job->cluster.gpus;
  const int spare_nodes = std::max(0, in.reliability.spare_nodes);
  const double spare_gpus = static_cast<double>(spare_nodes) * v.job->cluster.gpus_per_node;
  const double wall_months = c.wall_time.value() / core::kSecondsPerMonth;
  const auto& sv = in.services;
  const std::string_view k = l.category;
  if (k == "compute")
    return fmt::format("{} GPU-h x {}", core::group_digits(v.perf->gpu_hours), in.compute.basis);
  if (k == "failures") return failures(c.failures, in);
  if (k == "spares")
    return fmt::format("{} spare nodes ({:.0f} GPUs) held for the whole run", spare_nodes,
                       spare_gpus);
  if (k == "commitment") return commitment(c, in, gpus + spare_gpus);
  if (k == "storage") return storage(v);
  if (k == "network") {
    return fmt::format("egress {} + cross-region {}", bytes(in.network.egress),
                       bytes(in.network.cross_region));
  }
  if (k == "database")
    return fmt::format("{}/month x {:.2f} months", money(per_month(sv.database)), wall_months);
  if (k == "monitoring") {
    return fmt::format("{}/month + {:.2f} USD/GPU-month x {:.0f} GPUs",
                       money(per_month(sv.monitoring)), per_month(sv.monitoring_per_gpu), gpus);
  }
  if (k == "security")
    return fmt::format("{}/month x {:.2f} months", money(per_month(sv.security)), wall_months);
  if (k == "operations") {
    const auto& o = in.operations;
    return fmt::format("{:.1f} engineers x {}/month + on-call {}/month", o.engineers,
                       money(per_month(o.engineer_rate)), money(per_month(o.on_call)));
  }
  if (k == "contingency") {
    double subtotal = 0;  // every line before it
    for (const auto& other : c.lines)
      if (other.category != "contingency") subtotal += other.amount.value();
    return fmt::format("{:.0f}% of {}", in.contingency * 100, money(subtotal));
  }
  return "";
}

}  // namespace aicost::report

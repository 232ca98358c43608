// The serving red lines of docs/OPTIMIZE.md: the capacity buffer and the share of requests over
// the SLA, and the SLA effect shown for a serving change.
#include <algorithm>

#include "aicost/core/text.h"
#include "aicost/optimize/optimize.h"
#include "serving_levers.h"

namespace aicost::optimize {

namespace {

double buffer_of(const ServingEvaluation& s) { return serving::capacity_buffer(s.plan, s.fleet); }

// What the buffer is measured against, for messages.
std::string buffer_basis(const ServingEvaluation& s) {
  if (s.fleet.run) {
    return core::sprintf("what %s sizes above the load it plans for", s.plan.policy.name.c_str());
  }
  return core::sprintf("spare capacity within the SLA over the %s requests/s served",
                       core::sprintf("%.4g", s.plan.traffic.request_rate.value()).c_str());
}

}  // namespace

double over_sla_limit(const Evaluation& e, const Guardrails& g) {
  if (g.max_over_sla) return *g.max_over_sla;
  const double percentile = e.serving ? e.serving->plan.sla.percentile : 0.9;
  return (1 - percentile) / 10;
}

SlaEffect sla_effect(const Evaluation& changed, const Evaluation& original) {
  const auto& c = *changed.serving;
  const auto& o = *original.serving;
  SlaEffect e;
  e.ttft_tail_s = c.deployment().load.ttft_tail.value();
  e.ttft_tail_delta_s = e.ttft_tail_s - o.deployment().load.ttft_tail.value();
  e.tpot_s = c.deployment().load.step.value();
  e.tpot_delta_s = e.tpot_s - o.deployment().load.step.value();
  if (c.fleet.run) {
    e.over_sla_share = c.fleet.run->over_sla_share;
    e.over_sla_delta = *e.over_sla_share - (o.fleet.run ? o.fleet.run->over_sla_share : 0.0);
  }
  e.capacity_buffer = buffer_of(c);
  e.capacity_buffer_delta = e.capacity_buffer - buffer_of(o);
  return e;
}

namespace detail {

void serving_lines_crossed(const Evaluation& c, const Evaluation* base, const Guardrails& g,
                           double worse, std::vector<std::string>& crossed) {
  const auto& s = *c.serving;
  // Capacity buffer: never size below the load plus the buffer. Compared as capacity over load
  // (1 + buffer), so "worse by more than `worse`" is a share of the capacity.
  const double buffer = buffer_of(s);
  const double orig = base ? buffer_of(*base->serving) : buffer;
  if (buffer < g.capacity_buffer &&
      (!base || orig >= g.capacity_buffer || 1 + buffer < (1 + orig) * (1 - worse))) {
    crossed.push_back(
        core::sprintf("capacity buffer %.1f %% (%s) is below the minimum %.0f %% by "
                      "%.1f pp",
                      100 * buffer, buffer_basis(s).c_str(), 100 * g.capacity_buffer,
                      100 * (g.capacity_buffer - buffer)));
  }
  // Requests over the SLA for want of ready replicas, across the traffic profile.
  if (s.fleet.run) {
    const double share = s.fleet.run->over_sla_share;
    const double limit = over_sla_limit(c, g);
    const double was =
        base && base->serving->fleet.run ? base->serving->fleet.run->over_sla_share : 0;
    if (share > limit && (!base || was <= limit || share > was * (1 + worse))) {
      crossed.push_back(core::sprintf(
          "%.2f %% of requests over the SLA (%s over the traffic "
          "profile) is above the limit %.2f %% by %.2f pp",
          100 * share, s.plan.policy.name.c_str(), 100 * limit, 100 * (share - limit)));
    }
  }
}

}  // namespace detail

}  // namespace aicost::optimize

// Private to optimize: the serving levers (levers_serving.cc, levers_serving_fleet.cc), the
// serving red lines (serving_red_lines.cc) and what they share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aicost/optimize/optimize.h"
#include "levers.h"

namespace aicost::optimize::detail {

Proposal quantization(const LeverContext& ctx);
Proposal batch_limit(const LeverContext& ctx);
Proposal prefix_caching(const LeverContext& ctx);
Proposal speculative_decoding(const LeverContext& ctx);
Proposal serving_gpu_type(const LeverContext& ctx);
Proposal cdn(const LeverContext& ctx);
Proposal autoscaling(const LeverContext& ctx);
Proposal spot_mix(const LeverContext& ctx);

// A candidate change and its estimate (the plan as it stands with the change on top).
struct Priced {
  Change change;
  Evaluation eval;
  Risk risk;
};
// Each change estimated on top of ctx.applied; those that make no valid plan are left out.
std::vector<Priced> price_each(const LeverContext& ctx,
                               std::vector<std::pair<Change, Risk>>&& candidates);
// The cheapest of `priced` that crosses no red line, else the cheapest; nullopt when empty.
std::optional<Priced> cheapest_within_lines(const LeverContext& ctx,
                                            const std::vector<Priced>& priced);

// The serving red lines `c` crosses, appended to `crossed`; with `base`, a line `base` already
// crosses counts only when `c` is worse by more than `worse` (a share).
void serving_lines_crossed(const Evaluation& c, const Evaluation* base, const Guardrails& g,
                           double worse, std::vector<std::string>& crossed);

}  // namespace aicost::optimize::detail

// Private to optimize: the lever functions (one file per category) and what they share.
#pragma once

#include <optional>
#include <string>

#include "aicost/optimize/lever.h"
#include "aicost/search/search.h"

namespace aicost::optimize::detail {

Proposal not_applicable(std::string why);
Proposal not_priced(std::string why);
Proposal nothing_to_do(std::string why);
Proposal change(Change c, Risk risk, Rollout rollout);

// Values as a plan writes them.
std::string minutes(core::Seconds s);  // whole minutes, at least 1: "45min"
std::string days(core::Seconds s);     // whole days, at least 1: "7d"
std::string count(double n);           // "1024"
std::string size(core::Bytes b);       // "600GB" (6 significant digits, SI)
std::string percent(double share);     // "35%", "12.5%" (4 significant digits)

// The edits that set the searched parallelism keys of `now` that differ to `p`'s values
// (docs/PLAN_FORMAT.md names).
Change layout_edits(const workload::Parallelism& p, const workload::Parallelism& now);
bool same_layout(const workload::Parallelism& a, const workload::Parallelism& b);

// The cheapest candidate of `space` under the plan's limits, or nullopt when none is feasible.
std::optional<search::Candidate> cheapest(const LeverContext& ctx, const search::SearchSpace& space,
                                          std::optional<double> deadline_days);
// The plan's own GPU type at its own price, everything else searchable.
search::SearchSpace own_gpu_space(const Evaluation& plan);

// compute.cc
Proposal parallelism(const LeverContext& ctx);
Proposal gpu_type(const LeverContext& ctx);
Proposal gpu_count(const LeverContext& ctx);
Proposal precision_fp8(const LeverContext& ctx);
Proposal comm_overlap(const LeverContext& ctx);
Proposal gradient_compression(const LeverContext& ctx);
Proposal data_loader(const LeverContext& ctx);  // levers_data.cc
// pricing.cc
Proposal pricing_reserved(const LeverContext& ctx);
Proposal pricing_spot(const LeverContext& ctx);
// levers_owned.cc
Proposal pricing_owned(const LeverContext& ctx);
// reliability.cc
Proposal checkpoint_interval(const LeverContext& ctx);
Proposal checkpoint_async(const LeverContext& ctx);
Proposal spares(const LeverContext& ctx);
Proposal restart_automation(const LeverContext& ctx);
// storage.cc
Proposal checkpoint_retention(const LeverContext& ctx);
Proposal incremental_checkpoint(const LeverContext& ctx);
Proposal log_retention(const LeverContext& ctx);
Proposal log_sampling(const LeverContext& ctx);
Proposal data_locality(const LeverContext& ctx);
// levers_lifecycle.cc
Proposal checkpoint_tier(const LeverContext& ctx);
// levers_data.cc (data_loader is a compute lever, declared above)
Proposal dataset_tier(const LeverContext& ctx);
Proposal dataset_dedup(const LeverContext& ctx);
// levers_compression.cc
Proposal checkpoint_compression(const LeverContext& ctx);
Proposal log_compression(const LeverContext& ctx);
Proposal egress_compression(const LeverContext& ctx);

}  // namespace aicost::optimize::detail

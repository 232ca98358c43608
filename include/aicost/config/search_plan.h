// A search plan: a plan file (docs/PLAN_FORMAT.md) in which fields may be left out, listed or
// given as ranges, plus a `search:` section of constraints. Left out or listed fields become the
// search space (docs/SEARCH.md): cluster.gpu, cluster.gpus ("256..4096"), every parallelism key,
// training.global_batch_size, pricing.instance and pricing.mode.
#pragma once

#include <string>
#include <vector>

#include "aicost/catalog/catalog.h"
#include "aicost/config/plan.h"
#include "aicost/core/result.h"
#include "aicost/search/search.h"

namespace aicost::config {

struct SearchRequest {
  Plan base;  // everything the search does not vary
  search::SearchSpace space;
  search::Constraints constraints;
  search::Objective objective = search::Objective::kCheapest;
  int top = 10;
  std::string text;                // the plan file as written, for --emit-plan
  std::string base_dir;            // of the plan file
  std::vector<std::string> notes;  // what was assumed (e.g. spot prices not searched)
};

// Errors as for load_plan, with file:line:col; a range like "64..32" or an empty list is
// kInvalidInput.
core::Result<SearchRequest> load_search_plan(const std::string& path,
                                             const catalog::Catalog& catalog);
// The same for text; `origin` names it in messages, `base_dir` resolves model.hf_config and is
// where --emit-plan's relative paths start.
core::Result<SearchRequest> parse_search_plan(const std::string& text, const std::string& origin,
                                              const std::string& base_dir,
                                              const catalog::Catalog& catalog);

// The plan file of one candidate: the original plan with every searched field set to the
// candidate's value and the `search:` section removed; `aicost estimate` accepts it as it is.
// A relative model.hf_config is rewritten relative to `out_dir`, where the file will be written.
core::Result<std::string> emit_plan(const SearchRequest& request, const search::Candidate& c,
                                    const std::string& out_dir);

}  // namespace aicost::config

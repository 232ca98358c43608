// Parts of the optimise report shared by the plan and the ledger optimiser (optimize_report.cc,
// optimize_json.cc, ledger_optimize_report.cc): one lever's JSON, the red lines' JSON, a lever's
// risk in words.
#pragma once

#include <string>

#include "aicost/optimize/optimize.h"
#include "json.h"

namespace aicost::report {

// A lever that was evaluated: it has a saving, and so a risk and a red line.
inline bool evaluated(const optimize::LeverResult& r) { return r.saving_usd.has_value(); }

Json lever_json(const optimize::LeverResult& r);
Json guardrails_json(const optimize::Guardrails& g);
// "medium (cost-commitment)"; "" for a lever that was not priced.
std::string risk_text(const optimize::LeverResult& r);
// A lever under "Changes, risks and rollout": "name: (status)", then with_change its change, red
// line, risk, first step, proof and stop-loss, then its notes; bullets for markdown.
std::string lever_details(const optimize::LeverResult& r, const std::string& name, bool md,
                          bool with_change);
// `aicost optimize -o json` of a plan (optimize_json.cc).
std::string render_optimize_json(const optimize::OptimizeResult& res);

}  // namespace aicost::report

// Helpers of the optimize tests: run the optimiser on a plan file the way the CLI does, and
// price a plan edited BY HAND (line edits of the YAML text, parsed and estimated without the
// optimiser or config::PlanEditor), so a lever's saving can be checked against two estimates
// the test computes itself.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan.h"
#include "aicost/config/plan_edit.h"
#include "aicost/costing/cost_model.h"
#include "aicost/optimize/optimize.h"
#include "aicost/perf/estimate.h"
#include "test_support.h"

namespace aicost::testing {

inline std::string source_path(const std::string& relative) {
  return std::string(AICOST_SOURCE_DIR) + "/" + relative;
}

inline std::string read_text(const std::string& path) {
  auto t = config::read_file(path);
  EXPECT_TRUE(t) << (t ? "" : t.error().what());
  return t ? *t : std::string();
}

// The optimiser on a plan file, as `aicost optimize` runs it (one thread).
inline optimize::OptimizeResult run_optimize(const std::string& path,
                                             const optimize::Guardrails& guardrails = {},
                                             std::vector<optimize::Lever> levers = {}) {
  auto editor = config::PlanEditor::open(path, builtin_catalog());
  EXPECT_TRUE(editor) << (editor ? "" : editor.error().what());
  if (!editor) return {};
  auto limits = editor->limits();
  EXPECT_TRUE(limits);
  optimize::OptimizeInputs in;
  in.plan_name = editor->name();
  in.catalog = &builtin_catalog();
  const config::PlanEditor ed = *editor;
  in.evaluate = [ed](const optimize::Change& c) { return ed.evaluate(c); };
  in.limits = limits ? *limits : optimize::PlanLimits{};
  in.guardrails = guardrails;
  in.threads = 1;
  in.levers = std::move(levers);
  auto r = optimize::optimize(in);
  EXPECT_TRUE(r) << (r ? "" : r.error().what());
  return r ? *r : optimize::OptimizeResult{};
}

// run_optimize on a plan of the source tree with the default guardrails, once per test binary.
inline const optimize::OptimizeResult& cached_optimize(const std::string& relative) {
  static std::map<std::string, optimize::OptimizeResult> cache;
  auto it = cache.find(relative);
  if (it == cache.end()) it = cache.emplace(relative, run_optimize(source_path(relative))).first;
  return it->second;
}

// A change as key -> value, to compare with what a test expects.
inline std::map<std::string, std::optional<std::string>> as_map(const optimize::Change& c) {
  std::map<std::string, std::optional<std::string>> m;
  for (const auto& e : c) m[e.key] = e.value;
  return m;
}

inline const optimize::LeverResult& lever(const optimize::OptimizeResult& r,
                                          const std::string& id) {
  for (const auto& l : r.levers) {
    if (l.id == id) return l;
  }
  ADD_FAILURE() << "no lever " << id;
  static const optimize::LeverResult none;
  return none;
}

// A plan's total, estimated the way `aicost estimate` does, from its text.
inline double estimate_total(const std::string& text, const std::string& base_dir) {
  auto plan = config::parse_plan(text, "hand-edited.yaml", base_dir, builtin_catalog());
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().what()) << "\n" << text;
  if (!plan) return -1;
  auto perf = perf::estimate_training(plan->job);
  EXPECT_TRUE(perf);
  if (!perf) return -1;
  return costing::estimate_cost(plan->job, *perf, plan->cost).total.value();
}

// Sets `key: value` in `section` of a plan written one key per line, two-space indented (the
// style of examples/), adding the section or key when absent; no value removes the key's line.
// Top-level keys have an empty section. Deliberately line-based: it shares no code with the
// YAML editor it checks.
inline std::string hand_edit(const std::string& text, const std::string& section,
                             const std::string& key, const std::optional<std::string>& value) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto starts = [](const std::string& l, const std::string& p) { return l.rfind(p, 0) == 0; };
  const std::string indent = section.empty() ? "" : "  ";
  const std::string want = indent + key + ":";
  size_t begin = 0, end = lines.size();
  if (!section.empty()) {
    bool found = false;
    for (size_t i = 0; i < lines.size() && !found; ++i) {
      if (starts(lines[i], section + ":")) {
        found = true;
        begin = i + 1;
        end = begin;
        while (end < lines.size() && (starts(lines[end], "  ") || lines[end].empty())) ++end;
      }
    }
    if (!found) {
      if (value) {
        lines.push_back(section + ":");
        lines.push_back(want + " " + *value);
      }
      std::string out;
      for (const auto& l : lines) out += l + "\n";
      return out;
    }
  }
  bool done = false;
  for (size_t i = begin; i < end && !done; ++i) {
    if (!starts(lines[i], want + " ") && lines[i] != want) continue;
    if (value)
      lines[i] = want + " " + *value;
    else
      lines.erase(lines.begin() + static_cast<long>(i));
    done = true;
  }
  if (!done && value) lines.insert(lines.begin() + static_cast<long>(end), want + " " + *value);
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// A lever's saving and total against two estimates the test makes itself: the plan as written and
// the plan with the lever's change applied by hand (`apply`), each priced by `total` (a training
// or serving estimate of the plan's text, relative paths read from the plan's folder).
inline void expect_saving_is_difference(
    const std::string& plan, const optimize::LeverResult& l,
    const std::function<std::string(std::string, const optimize::Change&)>& apply,
    const std::function<double(const std::string&, const std::string&)>& total) {
  ASSERT_TRUE(l.saving_usd) << l.id << ": " << l.why;
  const std::string text = read_text(source_path(plan));
  const std::string dir = source_path(plan.substr(0, plan.rfind('/')));
  const double before = total(text, dir);
  const double after = total(apply(text, l.change), dir);
  EXPECT_NEAR(*l.saving_usd, before - after, 0.005)
      << l.id << " on " << plan << ": " << optimize::describe(l.change);
  EXPECT_NEAR(*l.total_usd, after, 0.005) << l.id << " on " << plan;
}

}  // namespace aicost::testing

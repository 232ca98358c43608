// Plan-key edits applied to a plan's YAML, and the changed plan estimated (aicost optimize).
#include "aicost/config/plan_edit.h"

#include <algorithm>
#include <filesystem>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan.h"
#include "aicost/config/search_plan.h"
#include "aicost/config/serving_plan.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

struct PlanEditor::State {
  std::string text, origin, base_dir, name;
  YAML::Node root;  // parsed once; cloned for every change
  const catalog::Catalog* catalog = nullptr;
  bool serving = false;  // a serving plan (top-level `serving:`)
};

namespace {

// Keys that say the same thing as `key` in another way: setting `key` removes them.
std::vector<std::string> other_spellings(const std::string& section, const std::string& key) {
  std::vector<std::string> out;
  for (const auto& a : key_aliases()) {
    if (section == a.section && key == a.key) out.push_back(a.alias);
  }
  if (section == "parallelism" && key == "optimizer_sharding") {
    out.insert(out.end(), {"use_distributed_optimizer", "data_parallel_sharding_strategy"});
  }
  return out;
}

// Edits that change the derived data-parallel size make a written one stale.
bool changes_data_parallel(const std::string& key) {
  return key == "cluster.gpus" || key == "parallelism.tensor_model_parallel_size" ||
         key == "parallelism.pipeline_model_parallel_size" ||
         key == "parallelism.context_parallel_size";
}

// "serving.autoscaling.policy" -> {"serving", "autoscaling", "policy"}; empty when a part is empty.
std::vector<std::string> key_path(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (parts.back().empty()) return {};
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

core::Status apply(YAML::Node& root, const optimize::Edit& e) {
  const std::vector<std::string> path = key_path(e.key);
  if (path.empty()) {
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "a plan key is 'key', 'section.key' or deeper "
                            "('serving.autoscaling.policy'), got '" +
                                e.key + "'");
  }
  YAML::Node value;
  if (e.value) {
    try {
      value = YAML::Load(*e.value);
    } catch (const YAML::Exception& ex) {
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "'" + *e.value + "' is not a YAML value: " + ex.what(), e.key);
    }
    bool scalars = value.IsScalar();
    if (value.IsSequence()) {
      scalars = true;
      for (const auto& item : value) scalars = scalars && item.IsScalar();
    }
    if (!scalars) {
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "an edit's value is one scalar or a list of scalars", e.key);
    }
  }
  // Walk (and, to set a value, make) the sections down to the key's own. reset() rebinds a
  // handle; assigning one node to another would overwrite the first.
  YAML::Node sec = root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    YAML::Node next = sec[path[i]];
    if (next && !next.IsNull() && !next.IsMap()) {
      std::string prefix = path[0];
      for (size_t j = 1; j <= i; ++j) prefix += "." + path[j];
      return core::make_error(core::ErrorCode::kInvalidInput, "'" + prefix + "' is not a section",
                              e.key);
    }
    if (!next || next.IsNull()) {
      if (!e.value) return {};
      sec[path[i]] = YAML::Node(YAML::NodeType::Map);
      next.reset(sec[path[i]]);
    }
    sec.reset(next);
  }
  const std::string& key = path.back();
  if (path.size() == 2) {
    const std::string& section = path[0];
    for (const auto& other : other_spellings(section, key)) sec.remove(other);
    if (changes_data_parallel(e.key) && root["parallelism"] && root["parallelism"].IsMap()) {
      YAML::Node par = root["parallelism"];
      par.remove("data_parallel_size");
    }
  }
  if (e.value)
    sec[key] = value;
  else
    sec.remove(key);
  return {};
}

// A relative serving.traffic_profile.csv was relative to the plan read; keep it pointing at
// the same file from `out_dir`.
void rebase_traffic_csv(YAML::Node& root, const std::string& base_dir, const std::string& out_dir) {
  if (!root["serving"] || !root["serving"].IsMap()) return;
  YAML::Node profile = root["serving"]["traffic_profile"];
  if (!profile || !profile.IsMap() || !profile["csv"]) return;
  std::filesystem::path csv(profile["csv"].Scalar());
  if (csv.is_relative()) {
    profile["csv"] = std::filesystem::relative(std::filesystem::absolute(base_dir) / csv,
                                               std::filesystem::absolute(out_dir))
                         .string();
  }
}

core::Result<YAML::Node> edited(const YAML::Node& original, const optimize::Change& change) {
  YAML::Node root = YAML::Clone(original);
  for (const auto& e : change) AICOST_TRY_STATUS(apply(root, e));
  return root;
}

core::Result<std::string> to_text(const YAML::Node& root) {
  YAML::Emitter out;
  out << root;
  if (!out.good()) {
    return core::make_error(core::ErrorCode::kInternal,
                            "cannot write the plan: " + out.GetLastError());
  }
  return std::string(out.c_str()) + "\n";
}

}  // namespace

core::Result<PlanEditor> PlanEditor::from_text(const std::string& text, const std::string& origin,
                                               const std::string& base_dir,
                                               const catalog::Catalog& cat) {
  const Source src = Source::from_text(origin, text);
  auto root = parse_yaml(src, text);
  if (!root) return root.error();
  auto s = std::make_shared<State>();
  s->serving = root->IsMap() && (*root)["serving"];
  // Read as `aicost estimate` reads it: errors point into the file as written.
  if (s->serving) {
    auto plan = parse_serving_plan(text, origin, base_dir, cat);
    if (!plan) return plan.error();
    s->name = plan->name;
  } else {
    auto plan = parse_plan(text, origin, base_dir, cat);
    if (!plan) return plan.error();
    s->name = plan->name;
  }
  s->text = text;
  s->origin = origin;
  s->base_dir = base_dir;
  s->catalog = &cat;
  s->root = *root;
  // The name comes from the file stem when the plan has none; keep it (first) when the text moves.
  if (!s->root["name"]) {
    YAML::Node named(YAML::NodeType::Map);
    named["name"] = s->name;
    for (const auto& kv : s->root) named[kv.first] = kv.second;
    s->root = named;
  }
  return PlanEditor(std::move(s));
}

core::Result<PlanEditor> PlanEditor::open(const std::string& path, const catalog::Catalog& cat) {
  auto text = read_file(path);
  if (!text) return text.error();
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return from_text(*text, path, dir.empty() ? "." : dir, cat);
}

const std::string& PlanEditor::name() const { return s_->name; }

core::Result<std::string> PlanEditor::render(const optimize::Change& change) const {
  auto root = edited(s_->root, change);
  if (!root) return root.error();
  return to_text(*root);
}

core::Result<optimize::Evaluation> PlanEditor::evaluate(const optimize::Change& change) const {
  auto text = render(change);
  if (!text) return text.error();
  const std::string origin =
      change.empty() ? s_->origin : s_->origin + " (changed: " + optimize::describe(change) + ")";
  if (s_->serving) return evaluate_serving(*text, origin);
  auto plan = parse_plan(*text, origin, s_->base_dir, *s_->catalog);
  if (!plan) return plan.error();
  optimize::Evaluation e;
  auto perf = perf::estimate_training(plan->job);
  if (!perf) return perf.error();
  e.job = std::move(plan->job);
  e.inputs = std::move(plan->cost);
  e.perf = std::move(*perf);
  e.cost = costing::estimate_cost(e.job, e.perf, e.inputs);
  e.warnings = std::move(plan->warnings);
  return e;
}

core::Result<optimize::Evaluation> PlanEditor::evaluate_serving(const std::string& text,
                                                                const std::string& origin) const {
  auto plan = parse_serving_plan(text, origin, s_->base_dir, *s_->catalog);
  if (!plan) return plan.error();
  serving::Fleet fleet = serving::estimate_fleet(*plan, plan->series);
  if (!fleet.best) {
    return core::make_error(
        core::ErrorCode::kInfeasible,
        "no deployment meets the SLA: " +
            serving::explain_unreachable(plan->options, plan->batches, plan->traffic, plan->sla));
  }
  optimize::Evaluation e;
  e.warnings = plan->notes;
  e.serving = optimize::ServingEvaluation{std::move(static_cast<serving::PlanSpec&>(*plan)),
                                          std::move(fleet)};
  return e;
}

core::Result<std::string> PlanEditor::emit(const optimize::Change& change,
                                           const std::string& out_dir,
                                           const std::string& header) const {
  auto root = edited(s_->root, change);
  if (!root) return root.error();
  rebase_hf_config(*root, s_->base_dir, out_dir);
  rebase_traffic_csv(*root, s_->base_dir, out_dir);
  auto text = to_text(*root);
  if (!text) return text.error();
  std::string out;
  size_t start = 0;
  while (start < header.size()) {
    const size_t nl = header.find('\n', start);
    out += "# " + header.substr(start, nl == std::string::npos ? std::string::npos : nl - start) +
           "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out + *text;
}

optimize::Change PlanEditor::prune(const optimize::Change& change) const {
  optimize::Change out;
  for (const auto& e : change) {
    if (!e.value) {
      bool present = true;
      YAML::Node at = YAML::Clone(s_->root);  // const walk: lookups must not add keys
      for (const auto& part : key_path(e.key)) {
        if (!at.IsMap() || !at[part]) {
          present = false;
          break;
        }
        at.reset(at[part]);
      }
      const bool set_before =
          std::any_of(out.begin(), out.end(), [&](const auto& o) { return o.key == e.key; });
      if (!present && !set_before) continue;
    }
    out.push_back(e);
  }
  return out;
}

core::Result<optimize::PlanLimits> PlanEditor::limits() const {
  const Source src = Source::from_text(s_->origin, s_->text);
  auto root = parse_yaml(src, s_->text);  // fresh: error marks must point into the file
  if (!root) return root.error();
  SearchRequest req;
  AICOST_TRY_STATUS(read_search_section(src, (*root)["search"], req));
  optimize::PlanLimits l;
  l.deadline_days = req.constraints.deadline_days;
  l.memory_headroom = req.constraints.memory_headroom;
  if (req.space.max_gpus < search::SearchSpace{}.max_gpus) l.max_gpus = req.space.max_gpus;
  return l;
}

}  // namespace aicost::config

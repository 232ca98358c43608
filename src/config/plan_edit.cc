// Plan-key edits applied to a plan's YAML, and the changed plan estimated (aicost optimize).
#include "aicost/config/plan_edit.h"

#include <algorithm>
#include <filesystem>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan.h"
#include "aicost/config/search_plan.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

struct PlanEditor::State {
  std::string text, origin, base_dir, name;
  YAML::Node root;  // parsed once; cloned for every change
  const catalog::Catalog* catalog = nullptr;
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

core::Status apply(YAML::Node& root, const optimize::Edit& e) {
  const auto dot = e.key.find('.');
  const std::string section = dot == std::string::npos ? "" : e.key.substr(0, dot);
  const std::string key = dot == std::string::npos ? e.key : e.key.substr(dot + 1);
  if (key.empty() || key.find('.') != std::string::npos || (dot != std::string::npos && section.empty())) {
    return core::make_error(core::ErrorCode::kInvalidInput,
                            "a plan key is 'section.key' or 'key', got '" + e.key + "'");
  }
  YAML::Node value;
  if (e.value) {
    try {
      value = YAML::Load(*e.value);
    } catch (const YAML::Exception& ex) {
      return core::make_error(core::ErrorCode::kInvalidInput,
                              "'" + *e.value + "' is not a YAML value: " + ex.what(), e.key);
    }
    if (!value.IsScalar()) {
      return core::make_error(core::ErrorCode::kInvalidInput, "an edit's value is one scalar", e.key);
    }
  }
  if (section.empty()) {
    if (e.value) root[key] = value; else root.remove(key);
    return {};
  }
  YAML::Node sec = root[section];
  if (sec && !sec.IsNull() && !sec.IsMap()) {
    return core::make_error(core::ErrorCode::kInvalidInput, "'" + section + "' is not a section",
                            e.key);
  }
  if (!sec || sec.IsNull()) {
    if (!e.value) return {};
    sec = YAML::Node(YAML::NodeType::Map);
  }
  for (const auto& other : other_spellings(section, key)) sec.remove(other);
  if (changes_data_parallel(e.key) && root["parallelism"] && root["parallelism"].IsMap()) {
    if (section == "parallelism") {
      sec.remove("data_parallel_size");
    } else {
      YAML::Node par = root["parallelism"];
      par.remove("data_parallel_size");
    }
  }
  if (e.value) sec[key] = value; else sec.remove(key);
  root[section] = sec;
  return {};
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
    return core::make_error(core::ErrorCode::kInternal, "cannot write the plan: " + out.GetLastError());
  }
  return std::string(out.c_str()) + "\n";
}

}  // namespace

core::Result<PlanEditor> PlanEditor::from_text(const std::string& text, const std::string& origin,
                                               const std::string& base_dir,
                                               const catalog::Catalog& cat) {
  auto plan = parse_plan(text, origin, base_dir, cat);  // errors point into the file as written
  if (!plan) return plan.error();
  auto s = std::make_shared<State>();
  s->text = text;
  s->origin = origin;
  s->base_dir = base_dir;
  s->name = plan->name;
  s->catalog = &cat;
  const Source src = Source::from_text(origin, text);
  auto root = parse_yaml(src, text);
  if (!root) return root.error();
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
  auto plan = parse_plan(*text, origin, s_->base_dir, *s_->catalog);
  if (!plan) return plan.error();
  optimize::Evaluation e;
  auto perf = perf::estimate_training(plan->job);
  if (!perf) return perf.error();
  e.job = std::move(plan->job);
  e.inputs = std::move(plan->cost);
  e.perf = std::move(*perf);
  e.cost = costing::estimate_cost(e.job, e.perf, e.inputs, costing::CostDetail::kTotalsOnly);
  e.warnings = std::move(plan->warnings);
  return e;
}

core::Result<std::string> PlanEditor::emit(const optimize::Change& change, const std::string& out_dir,
                                           const std::string& header) const {
  auto root = edited(s_->root, change);
  if (!root) return root.error();
  rebase_hf_config(*root, s_->base_dir, out_dir);
  auto text = to_text(*root);
  if (!text) return text.error();
  std::string out;
  size_t start = 0;
  while (start < header.size()) {
    const size_t nl = header.find('\n', start);
    out += "# " + header.substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out + *text;
}

optimize::Change PlanEditor::prune(const optimize::Change& change) const {
  optimize::Change out;
  for (const auto& e : change) {
    if (!e.value) {
      const auto dot = e.key.find('.');
      const YAML::Node& root = s_->root;
      const bool present =
          dot == std::string::npos
              ? static_cast<bool>(root[e.key])
              : (root[e.key.substr(0, dot)] && root[e.key.substr(0, dot)].IsMap() &&
                 root[e.key.substr(0, dot)][e.key.substr(dot + 1)]);
      const bool set_before = std::any_of(out.begin(), out.end(), [&](const auto& o) { return o.key == e.key; });
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

#include "aicost/config/search_plan.h"

#include <filesystem>
#include <set>

#include "aicost/config/catalog_loader.h"
#include "aicost/core/text.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

using core::ErrorCode;

namespace {

// The searchable parallelism keys, canonical name first, then accepted aliases.
const std::vector<std::vector<std::string>> kParallelKeys = {
    {"tensor_model_parallel_size", "tp", "tensor_parallel_size", "tensor_parallel_degree"},
    {"pipeline_model_parallel_size", "pp", "pipeline_parallel_size", "pipeline_parallel_degree"},
    {"virtual_pipeline_model_parallel_size", "vpp"},
    {"context_parallel_size", "cp", "context_parallel_degree"},
    {"expert_model_parallel_size", "ep", "expert_parallel_degree"},
    {"micro_batch_size", "train_micro_batch_size_per_gpu"},
    {"sequence_parallel"},
    {"recompute_granularity", "activations_checkpoint_granularity"},
    {"use_distributed_optimizer"},
    {"optimizer_sharding"},
    {"data_parallel_size"}};

// A field written as a scalar, a list, or an inclusive range "a..b".
struct Choice {
  YAML::Node node;  // null when absent
  std::vector<std::string> items;
  bool range = false;
  long lo = 0, hi = 0;
};

core::Result<Choice> choice(const Source& src, const YAML::Node& node, const std::string& key) {
  Choice c;
  c.node = node;
  if (!node || node.IsNull()) return c;
  if (node.IsSequence()) {
    if (node.size() == 0) return src.error(node.Mark(), "'" + key + "' is an empty list");
    for (const auto& e : node) {
      if (!e.IsScalar()) return src.error(e.Mark(), "'" + key + "' must list plain values");
      c.items.push_back(e.Scalar());
    }
    return c;
  }
  if (!node.IsScalar())
    return src.error(node.Mark(), "'" + key + "' must be a value, a list or a range");
  const std::string& v = node.Scalar();
  if (const auto dots = v.find(".."); dots != std::string::npos) {
    try {
      size_t a = 0, b = 0;
      c.lo = std::stol(v.substr(0, dots), &a);
      c.hi = std::stol(v.substr(dots + 2), &b);
      if (a != dots || b != v.size() - dots - 2) throw std::invalid_argument(v);
    } catch (...) {
      return src.error(node.Mark(),
                       "'" + key + "' range must be two whole numbers, e.g. 256..4096");
    }
    if (c.lo < 1 || c.hi < c.lo) {
      return src.error(node.Mark(), "'" + key + "' range " + v + " is empty or not positive");
    }
    c.range = true;
    return c;
  }
  c.items.push_back(v);
  return c;
}

core::Result<std::vector<int>> ints(const Source& src, const Choice& c, const std::string& key) {
  std::vector<int> out;
  if (c.range) {
    if (c.hi - c.lo > 100000) {
      return src.error(c.node.Mark(), "'" + key + "' range is too wide to list; give a list");
    }
    for (long v = c.lo; v <= c.hi; ++v) out.push_back(static_cast<int>(v));
    return out;
  }
  for (const auto& s : c.items) {
    const auto v = positive_int(s);
    if (!v) {
      return src.error(c.node.Mark(), "'" + key + "' must be whole numbers >= 1, got '" + s + "'");
    }
    out.push_back(*v);
  }
  return out;
}

core::Result<std::vector<bool>> bools(const Source& src, const Choice& c, const std::string& key) {
  std::vector<bool> out;
  for (const auto& s : c.items) {
    YAML::Node n(s);
    bool b = false;
    if (c.range || !YAML::convert<bool>::decode(n, b)) {
      return src.error(c.node.Mark(), "'" + key + "' must be true, false or a list of them");
    }
    out.push_back(b);
  }
  return out;
}

// A batch range keeps the sizes a team would pick: powers of two and three times powers of two.
std::vector<int> batch_sizes(long lo, long hi) {
  std::set<long> out{lo, hi};
  for (long p = 1; p <= hi; p *= 2) {
    for (long v : {p, 3 * p}) {
      if (v >= lo && v <= hi) out.insert(v);
    }
  }
  return {out.begin(), out.end()};
}

YAML::Node section(YAML::Node& root, const char* key) {
  return root[key] ? root[key] : YAML::Node();
}

}  // namespace

core::Status read_search_section(const Source& src, const YAML::Node& node, SearchRequest& req) {
  MapReader r(node, "search", src);
  if (!node || node.IsNull()) return {};
  if (!node.IsMap()) return r.not_a_map();
  double v = 0;
  if (r.has("deadline")) {
    TRY_ASSIGN(v, r.quantity("deadline", core::UnitKind::kDuration));
    req.constraints.deadline_days = v / core::kSecondsPerDay;
  }
  if (r.has("budget")) {
    TRY_ASSIGN(v, r.quantity("budget", core::UnitKind::kMoney));
    req.constraints.budget_usd = v;
  }
  if (r.has("min_mfu")) {
    TRY_ASSIGN(v, r.quantity("min_mfu", core::UnitKind::kPercent));
    req.constraints.min_mfu = v;
  }
  TRY_ASSIGN(req.constraints.memory_headroom,
             r.quantity("memory_headroom", core::UnitKind::kPercent));
  if (req.constraints.memory_headroom >= 1) {
    return src.error(r.node("memory_headroom").Mark(), "memory_headroom must be below 100%");
  }
  std::optional<int> max_gpus;
  TRY_ASSIGN(max_gpus, r.integer("max_gpus"));
  if (max_gpus) req.space.max_gpus = std::min(req.space.max_gpus, *max_gpus);
  TRY_ASSIGN(req.top, r.integer("top"));
  std::optional<std::string> objective;
  TRY_ASSIGN(objective, r.string("objective"));
  if (objective) {
    const std::string o = catalog::normalize_name(*objective);
    if (o == "cheapest")
      req.objective = search::Objective::kCheapest;
    else if (o == "fastest")
      req.objective = search::Objective::kFastest;
    else if (o == "best-mfu")
      req.objective = search::Objective::kBestMfu;
    else
      return src.error(r.node("objective").Mark(),
                       "objective must be cheapest, fastest or best-mfu");
  }
  return r.finish();
}

core::Result<SearchRequest> load_search_plan(const std::string& path, const catalog::Catalog& cat) {
  auto text = read_file(path);
  if (!text) return text.error();
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_search_plan(*text, path, dir.empty() ? "." : dir, cat);
}

core::Result<SearchRequest> parse_search_plan(const std::string& text, const std::string& origin,
                                              const std::string& base_dir,
                                              const catalog::Catalog& cat) {
  const Source src = Source::from_text(origin, text);
  auto parsed = parse_yaml(src, text);
  if (!parsed) return parsed.error();
  if (!parsed->IsMap()) return MapReader(*parsed, "", src).not_a_map();
  SearchRequest req;
  req.text = text;
  req.base_dir = base_dir.empty() ? "." : base_dir;
  // Edited in place (not cloned): yaml-cpp clones lose the source positions errors point at.
  YAML::Node root = *parsed;
  YAML::Node cluster = section(root, "cluster");
  YAML::Node training = section(root, "training");
  YAML::Node parallel = section(root, "parallelism");
  YAML::Node pricing = section(root, "pricing");
  auto& space = req.space;

  AICOST_TRY_STATUS(read_search_section(src, root["search"], req));

  // GPU types: listed, or every catalogued GPU.
  auto gpus = choice(src, cluster ? cluster["gpu"] : YAML::Node(), "cluster.gpu");
  if (!gpus) return gpus.error();
  std::vector<std::string> gpu_ids = gpus->items;
  if (gpu_ids.empty()) {
    for (const auto& g : cat.gpus()) gpu_ids.push_back(g.id);
    req.notes.push_back("cluster.gpu not given: every catalogued GPU type is searched");
  }
  // GPU count: fixed, listed or a range; absent = any count.
  auto counts = choice(src, cluster ? cluster["gpus"] : YAML::Node(), "cluster.gpus");
  if (!counts) return counts.error();
  if (counts->range) {
    space.min_gpus = static_cast<int>(counts->lo);
    space.max_gpus = std::min<long>(space.max_gpus, counts->hi);
  } else if (!counts->items.empty()) {
    auto v = ints(src, *counts, "cluster.gpus");
    if (!v) return v.error();
    space.gpu_counts = *v;
  }
  // Global batch: fixed, listed or a range.
  auto batch = choice(src, training ? training["global_batch_size"] : YAML::Node(),
                      "training.global_batch_size");
  if (!batch) return batch.error();
  if (batch->range) {
    space.global_batches = batch_sizes(batch->lo, batch->hi);
  } else if (!batch->items.empty()) {
    auto v = ints(src, *batch, "training.global_batch_size");
    if (!v) return v.error();
    space.global_batches = *v;
  }

  // Parallelism: every key may be left out, listed or ranged.
  std::map<std::string, Choice> par;
  if (parallel && parallel.IsMap()) {
    for (const auto& names : kParallelKeys) {
      for (const auto& n : names) {
        if (!parallel[n]) continue;
        auto c = choice(src, parallel[n], "parallelism." + n);
        if (!c) return c.error();
        par[names[0]] = *c;
        parallel.remove(n);
      }
    }
  }
  auto int_dim = [&](const char* key, std::vector<int>& out) -> core::Status {
    if (!par.count(key)) return {};
    auto v = ints(src, par[key], std::string("parallelism.") + key);
    if (!v) return v.error();
    out = *v;
    return {};
  };
  AICOST_TRY_STATUS(int_dim("tensor_model_parallel_size", space.tensor));
  AICOST_TRY_STATUS(int_dim("pipeline_model_parallel_size", space.pipeline));
  AICOST_TRY_STATUS(int_dim("virtual_pipeline_model_parallel_size", space.virtual_pipeline));
  AICOST_TRY_STATUS(int_dim("context_parallel_size", space.context));
  AICOST_TRY_STATUS(int_dim("expert_model_parallel_size", space.expert));
  AICOST_TRY_STATUS(int_dim("micro_batch_size", space.micro_batch));
  if (par.count("data_parallel_size")) {
    return src.error(par["data_parallel_size"].node.Mark(),
                     "data_parallel_size is derived in a search (gpus / (TP x PP x CP)); "
                     "constrain cluster.gpus instead");
  }
  if (par.count("sequence_parallel")) {
    auto v = bools(src, par["sequence_parallel"], "parallelism.sequence_parallel");
    if (!v) return v.error();
    space.sequence_parallel = *v;
  }
  if (par.count("recompute_granularity")) {
    for (const auto& s : par["recompute_granularity"].items) {
      const std::string n = catalog::normalize_name(s);
      const auto r = workload::from_name(n == "null" ? "none" : n, workload::kRecomputes);
      if (!r)
        return src.error(par["recompute_granularity"].node.Mark(),
                         "recompute_granularity must be none, selective or full, got '" + s + "'");
      space.recompute.push_back(*r);
    }
  }
  if (par.count("use_distributed_optimizer")) {
    auto v = bools(src, par["use_distributed_optimizer"], "parallelism.use_distributed_optimizer");
    if (!v) return v.error();
    for (bool b : *v) {
      space.sharding.push_back(b ? workload::OptimizerSharding::kZero1
                                 : workload::OptimizerSharding::kNone);
    }
  }
  if (par.count("optimizer_sharding")) {
    space.sharding.clear();
    for (const auto& s : par["optimizer_sharding"].items) {
      const auto k = workload::from_name(catalog::normalize_name(s), workload::kShardings);
      if (!k)
        return src.error(par["optimizer_sharding"].node.Mark(),
                         "optimizer_sharding must be none, zero1, zero2 or zero3, got '" + s + "'");
      space.sharding.push_back(*k);
    }
  }

  // Pricing options: a fixed gpu_hour, or listed/all instances under listed/default modes.
  std::vector<std::string> instances, modes;
  YAML::Node gpu_hour;
  double reservation_reuse = 0;
  if (pricing && pricing.IsMap()) {
    auto i = choice(src, pricing["instance"], "pricing.instance");
    if (!i) return i.error();
    instances = i->items;
    auto m = choice(src, pricing["mode"], "pricing.mode");
    if (!m) return m.error();
    modes = m->items;
    for (const auto& mode : modes) {
      if (catalog::normalize_name(mode) == "owned") {
        return src.error(
            pricing["mode"].Mark(),
            "pricing.mode owned is not searched: aicost search prices rented GPUs; "
            "`aicost estimate` prices the owned plan and `aicost optimize` its layout");
      }
    }
    gpu_hour = pricing["gpu_hour"];
    if (pricing["reservation_reuse"]) {
      const YAML::Node n = pricing["reservation_reuse"];
      auto v = core::parse_base_units(n.Scalar(), core::UnitKind::kPercent);
      if (!v) return src.error(n.Mark(), "pricing.reservation_reuse: " + v.error().message);
      if (*v > 1)
        return src.error(n.Mark(),
                         "pricing.reservation_reuse is a share of the term, at most 100%");
      reservation_reuse = *v;
    }
  }
  if (modes.empty()) {
    modes = {"on-demand", "reserved-1y", "reserved-3y"};
    if (!gpu_hour) {
      req.notes.push_back(
          "pricing.mode not given: on-demand and reserved prices are searched; "
          "list spot explicitly (preemptions are not modelled yet)");
    }
  }

  // The base plan: the file with searched fields fixed to neutral values (checked as a plan).
  if (cluster) {
    cluster["gpu"] = gpu_ids.front();
    cluster["gpus"] = 1;
  }
  if (training && !space.global_batches.empty()) {
    training["global_batch_size"] = space.global_batches.front();
  }
  root["pricing"] = YAML::Node(YAML::NodeType::Map);
  root["pricing"]["gpu_hour"] = "1USD/h";
  auto base = parse_plan_root(root, src, req.base_dir, cat);
  if (!base) return base.error();
  req.base = std::move(*base);
  if (space.global_batches.empty()) space.global_batches = {req.base.job.global_batch};

  for (const auto& id : gpu_ids) {
    auto g = cat.gpu(id);
    if (!g)
      return src.error(gpus->node ? gpus->node.Mark() : root.Mark(), g.error().message,
                       g.error().code);
    if (!(*g)->peak(req.base.job.precision)) continue;  // cannot run this precision
    auto eff = cat.efficiency((*g)->generation);
    if (!eff) continue;
    search::GpuOption opt{**g, **eff, {}};
    if (gpu_hour && !gpu_hour.IsNull()) {
      auto rate = core::parse_money_rate(gpu_hour.Scalar());
      if (!rate) return src.error(gpu_hour.Mark(), rate.error().message);
      opt.prices.push_back(gpu_hour_pricing(*rate));
    } else {
      for (const auto& inst : cat.instances()) {
        if (catalog::normalize_name(inst.gpu) != catalog::normalize_name(opt.gpu.id)) continue;
        if (!instances.empty() &&
            std::none_of(instances.begin(), instances.end(), [&](const std::string& i) {
              return catalog::normalize_name(i) == catalog::normalize_name(inst.id);
            })) {
          continue;
        }
        for (const auto& m : modes) {
          auto mode = catalog::pricing_mode_from_string(m);
          if (!mode) {
            return src.error(pricing["mode"].Mark(),
                             "pricing.mode must be on-demand, spot, reserved-1y or reserved-3y");
          }
          if (!inst.price(*mode)) continue;
          opt.prices.push_back(instance_pricing(inst, *mode));
          if (opt.prices.back().term.value() > 0) opt.prices.back().term_reuse = reservation_reuse;
        }
      }
    }
    if (opt.prices.empty()) {
      req.notes.push_back(opt.gpu.id +
                          " skipped: no catalogued price under the searched modes "
                          "(add pricing.gpu_hour to search it)");
      continue;
    }
    space.gpus.push_back(std::move(opt));
  }
  if (space.gpus.empty()) {
    return core::make_error(ErrorCode::kInvalidInput,
                            "no GPU type can be searched: none has a price (add pricing.gpu_hour) "
                            "or a peak for " +
                                std::string(catalog::to_string(req.base.job.precision)),
                            origin);
  }
  return req;
}

}  // namespace aicost::config

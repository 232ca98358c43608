// --emit-plan: the search winner written back as an ordinary plan file.
#include "aicost/config/search_plan.h"

#include <filesystem>
#include "aicost/core/text.h"
#include "plan_sections.h"
#include "yaml_source.h"

namespace aicost::config {

namespace {

// Every spelling of the parallelism keys a search may have varied.
const char* kSearchedParallelKeys[] = {"tensor_model_parallel_size",
                                       "tp",
                                       "tensor_parallel_size",
                                       "tensor_parallel_degree",
                                       "pipeline_model_parallel_size",
                                       "pp",
                                       "pipeline_parallel_size",
                                       "pipeline_parallel_degree",
                                       "virtual_pipeline_model_parallel_size",
                                       "vpp",
                                       "context_parallel_size",
                                       "cp",
                                       "context_parallel_degree",
                                       "expert_model_parallel_size",
                                       "ep",
                                       "expert_parallel_degree",
                                       "micro_batch_size",
                                       "train_micro_batch_size_per_gpu",
                                       "sequence_parallel",
                                       "recompute_granularity",
                                       "activations_checkpoint_granularity",
                                       "use_distributed_optimizer",
                                       "optimizer_sharding",
                                       "data_parallel_size"};

}  // namespace

void rebase_hf_config(YAML::Node& root, const std::string& base_dir, const std::string& out_dir) {
  // A relative hf_config path was relative to the plan read; make it relative to the output.
  if (root["model"] && root["model"]["hf_config"]) {
    std::filesystem::path hf(root["model"]["hf_config"].Scalar());
    if (hf.is_relative()) {
      const auto from = std::filesystem::absolute(base_dir) / hf;
      root["model"]["hf_config"] =
          std::filesystem::relative(from, std::filesystem::absolute(out_dir)).string();
    }
  }
}

core::Result<std::string> emit_plan(const SearchRequest& req, const search::Candidate& c,
                                    const std::string& out_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(req.text);
  } catch (const YAML::Exception& e) {
    return core::make_error(core::ErrorCode::kInternal,
                            std::string("cannot re-read the plan: ") + e.what());
  }
  const auto& gpu = req.space.gpus[c.gpu_option];
  const auto& price = gpu.prices[c.price_option];
  root.remove("search");
  root["cluster"]["gpu"] = gpu.gpu.id;
  root["cluster"]["gpus"] = c.gpus;
  root["training"]["global_batch_size"] = c.global_batch;
  YAML::Node par = root["parallelism"];
  if (!par.IsMap()) par = YAML::Node(YAML::NodeType::Map);
  for (const char* k : kSearchedParallelKeys) par.remove(k);
  const auto& p = c.parallel;
  par["tensor_model_parallel_size"] = p.tensor;
  par["pipeline_model_parallel_size"] = p.pipeline;
  par["virtual_pipeline_model_parallel_size"] = p.virtual_pipeline;
  par["context_parallel_size"] = p.context;
  par["expert_model_parallel_size"] = p.expert;
  par["micro_batch_size"] = p.micro_batch;
  par["sequence_parallel"] = p.sequence_parallel;
  par["recompute_granularity"] = workload::to_string(p.recompute);
  par["optimizer_sharding"] = workload::to_string(p.sharding);
  root["parallelism"] = par;
  YAML::Node pricing(YAML::NodeType::Map);
  if (price.instance.empty()) {
    pricing["gpu_hour"] = core::sprintf("%.10gUSD/h", core::per_hour(price.per_gpu));
  } else {
    pricing["instance"] = price.instance;
    pricing["mode"] = catalog::to_string(price.mode);
  }
  root["pricing"] = pricing;
  rebase_hf_config(root, req.base_dir, out_dir);
  YAML::Emitter out;
  out << root;
  if (!out.good()) {
    return core::make_error(core::ErrorCode::kInternal,
                            "cannot write the plan: " + out.GetLastError());
  }
  return "# Emitted by `aicost search` from " + req.base.path + " (" +
         search::to_string(req.objective) + " plan).\n" + out.c_str() + "\n";
}

}  // namespace aicost::config

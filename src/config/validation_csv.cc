#include "aicost/config/validation_csv.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

#include "aicost/config/catalog_loader.h"
#include "aicost/perf/flops.h"
#include "csv.h"
#include "validation_rows.h"

namespace aicost::config {

namespace {

struct Built {
  std::optional<ValidationCase> value;
  std::string skip;
};

Built build(const Row& r, int line, const catalog::Catalog& cat) {
  Built out;
  const std::string name = r.at("name");
  const std::string notes = r.count("notes") ? r.at("notes") : "";
  const std::string source = r.count("source") ? r.at("source") : "";
  if (notes.find("MEASURED") == std::string::npos) {
    out.skip = "not a MEASURED row";
    return out;
  }
  const double tflops = number(r, "achieved_tflops_per_gpu");
  const int gpus = static_cast<int>(number(r, "num_gpus"));
  const int tp = static_cast<int>(number(r, "tp"));
  const int pp = static_cast<int>(number(r, "pp"));
  if (gpus <= 0 || tp <= 0 || pp <= 0) {
    out.skip = "parallel layout not published (tp/pp/num_gpus)";
    return out;
  }
  // Model: a preset named in the row (carries GQA, SwiGLU, MoE), else a classic GPT from columns.
  catalog::ModelSpec spec;
  if (const auto* p = preset_for(name, cat)) {
    spec = *p;
  } else {
    spec.id = "csv-row";
    spec.num_layers = static_cast<int>(number(r, "layers"));
    spec.hidden_size = static_cast<int>(number(r, "hidden"));
    spec.num_attention_heads = static_cast<int>(number(r, "heads"));
    spec.ffn_hidden_size = static_cast<int>(number(r, "ffn_hidden", 4.0 * spec.hidden_size));
    spec.vocab_size = static_cast<int>(find_number(notes, R"(vocab (\d+))").value_or(51200));
    spec.activation = catalog::Activation::kGelu;
    spec.learned_position_embeddings = true;
    spec.hidden_dropout = true;
  }
  spec.name = name;
  auto model = workload::Model::create(spec);
  if (!model) {
    out.skip = "model: " + model.error().message;
    return out;
  }
  workload::TrainingJob job;
  job.model = *model;
  job.seq_length = static_cast<int>(number(r, "seq_len"));
  const std::string batch = r.at("global_batch_tokens_or_sequences");
  const double batch_value = std::stod(batch);
  job.global_batch =
      batch.find("tok") != std::string::npos
          ? static_cast<int>(batch_value * (batch.find('M') != std::string::npos ? 1e6 : 1) /
                             job.seq_length)
          : static_cast<int>(batch_value);
  job.tokens = 1e9;
  // GPU: the text before any parenthesis, then the whole cell.
  std::string gpu = r.at("gpu_type");
  auto g = cat.gpu(gpu.substr(0, gpu.find(" (")));
  if (!g) g = cat.gpu(gpu);
  if (!g) {
    out.skip = "unknown GPU '" + gpu + "'";
    return out;
  }
  job.cluster = workload::Cluster::of(**g, gpus);
  auto eff = cat.efficiency(job.cluster.gpu.generation);
  if (!eff) {
    out.skip = "no efficiency profile for " + job.cluster.gpu.generation;
    return out;
  }
  job.efficiency = **eff;

  auto& p = job.parallel;
  p.tensor = tp;
  p.pipeline = pp;
  p.context = std::max(1, static_cast<int>(number(r, "cp", 1)));
  p.expert = std::max(1, static_cast<int>(number(r, "ep", 1)));
  p.micro_batch = std::max(1, static_cast<int>(number(r, "micro_batch", 1)));
  p.virtual_pipeline =
      static_cast<int>(find_number(notes, R"((?:\bVP=|Interleaving v=)(\d+))", false).value_or(1));
  if (auto etp = find_number(notes, R"(ETP=(\d+))")) p.expert_tensor = static_cast<int>(*etp);
  const std::string rc = lower(r.count("recompute") ? r.at("recompute") : "");
  p.recompute = workload::from_name(rc, workload::kRecomputes).value_or(workload::Recompute::kNone);
  const std::string prec = lower(r.at("precision"));
  job.precision = prec.find("fp8") != std::string::npos ? catalog::Precision::kFp8
                  : prec.rfind("fp16 mixed", 0) == 0    ? catalog::Precision::kFp16
                                                        : catalog::Precision::kBf16;
  // Software era: the row's `software` cell (data/software.yaml), else read from its source.
  std::string era_id = r.count("software") ? r.at("software") : "";
  if (era_id.empty()) era_id = software_of_source(source);
  auto era = cat.software(era_id);
  if (!era) {
    out.skip = "software: " + era.error().message;
    return out;
  }
  workload::apply_software(**era, p);
  if (notes.find("no SP") != std::string::npos) p.sequence_parallel = false;
  if (notes.find("--tp-comm-overlap") != std::string::npos) p.tp_comm_overlap = true;
  // MoE settings of the run's recipe: "moe_a2a_overlap" (Megatron-Bridge's name for
  // --overlap-moe-expert-parallel-comm) and a DeepEP/HybridEP flex dispatcher.
  if (notes.find("moe_a2a_overlap") != std::string::npos) p.ep_comm_overlap = true;
  if (notes.find("DeepEP") != std::string::npos || notes.find("HybridEP") != std::string::npos) {
    p.moe_dispatcher = workload::MoeDispatcher::kFlex;
  }
  // Memory-only settings named in the notes (plan keys optimizer_states, fp8_param_gather).
  if (notes.find("precision-aware optimizer") != std::string::npos) p.bf16_optimizer_states = true;
  if (notes.find("fp8_param_gather") != std::string::npos &&
      job.precision == catalog::Precision::kFp8) {
    p.fp8_param_gather = true;
  }
  std::vector<std::string> ignored;
  if (auto v = workload::validate(job, &ignored); !v) {
    out.skip = "invalid layout: " + v.error().message;
    return out;
  }
  // Measured tokens/s/GPU, from the most direct figure the row has.
  const double tokens_per_step = static_cast<double>(job.global_batch) * job.seq_length;
  ValidationCase c{name, line, source_group(source), job, 0, ""};
  if (auto t = find_number(notes, R"((?:step|iteration) time ([0-9.]+) ?s)")) {
    c.measured_tokens_per_s_per_gpu = tokens_per_step / *t / gpus;
    c.measured_from = "step time " + std::to_string(*t).substr(0, 6) + " s";
  } else if (auto th = find_number(notes, R"(throughput ([0-9.]+) tokens/s/GPU)")) {
    c.measured_tokens_per_s_per_gpu = *th;
    c.measured_from = "throughput tokens/s/GPU";
  } else if (tflops > 0) {
    // Megatron's logged TFLOP/s: 72 B s L h^2 (1 + s/6h + V/12hL) (identical to Megatron-LM's
    // num_floating_point_operations of 2024 for a GPT with f = 4h and MHA).
    c.measured_tokens_per_s_per_gpu =
        tflops * 1e12 / perf::korthikanti_model_flops_per_token(job.model, job.seq_length);
    c.measured_from = "TFLOP/s (72Bslh^2 convention)";
  } else {
    out.skip = number(r, "mfu_percent") > 0 ? "MFU without step time or FLOP convention"
                                            : "no step time, throughput or TFLOP/s";
    return out;
  }
  out.value = std::move(c);
  return out;
}

}  // namespace

std::string software_of_source(const std::string& source) {
  if (source.find("Narayanan et al. 2021") != std::string::npos) return "megatron-2021";
  if (source.find("Korthikanti") != std::string::npos) return "megatron-2022";
  for (const char* recipe :
       {"NeMo", "Megatron-Bridge", "dgxc-benchmarking", "mlcommons/training_results"}) {
    if (source.find(recipe) != std::string::npos) return "nemo-2025";
  }
  return "megatron-core-2024";
}

std::string source_group(const std::string& source) {
  const std::string cited = source.substr(0, source.find_first_of("'(@;,+\""));
  const auto first = cited.find_first_not_of(" \t");
  if (first == std::string::npos) return source.empty() ? "(no source)" : source;
  return cited.substr(first, cited.find_last_not_of(" \t") - first + 1);
}

core::Status read_table(const std::string& path, const std::vector<std::string>& required,
                        const std::function<void(const Row&, int)>& on_row) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::vector<std::string> header;
  return read_csv(*text, path,
                  [&](const std::vector<std::string>& fields, int line) -> core::Status {
                    if (header.empty()) {
                      header = fields;
                      for (const auto& col : required) {
                        if (std::find(header.begin(), header.end(), col) == header.end()) {
                          return core::make_error(core::ErrorCode::kInvalidInput,
                                                  "missing column '" + col + "'", path + ":1");
                        }
                      }
                      return {};
                    }
                    Row row;
                    for (size_t i = 0; i < header.size(); ++i)
                      row[header[i]] = i < fields.size() ? fields[i] : "";
                    on_row(row, line);
                    return {};
                  });
}

core::Result<ValidationSet> load_validation_csv(const std::string& path,
                                                const catalog::Catalog& cat) {
  ValidationSet set;
  auto st =
      read_table(path,
                 {"name", "gpu_type", "num_gpus", "tp", "pp", "seq_len",
                  "global_batch_tokens_or_sequences", "precision", "notes"},
                 [&](const Row& row, int line) {
                   try {
                     Built b = build(row, line, cat);
                     if (b.value) {
                       set.cases.push_back(std::move(*b.value));
                     } else {
                       set.skipped.push_back(row.at("name") + ": " + b.skip);
                       set.skipped_lines.push_back(line);
                     }
                   } catch (const std::exception& e) {
                     set.skipped.push_back(row.at("name") + ": unreadable row (" + e.what() + ")");
                     set.skipped_lines.push_back(line);
                   }
                 });
  if (!st) return st.error();
  return set;
}

}  // namespace aicost::config

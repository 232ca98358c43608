#include "aicost/config/inference_csv.h"

#include <cmath>
#include <regex>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/validation_csv.h"
#include "validation_rows.h"

namespace aicost::config {

namespace {

std::optional<std::string> build(const Row& r, const catalog::Catalog& cat,
                                 std::vector<serving::Measurement>& out) {
  const auto* preset = preset_for(r.at("model"), cat);
  if (!preset) return "no catalog preset matches model '" + r.at("model") + "'";
  auto model = workload::Model::create(*preset);
  if (!model) return "model: " + model.error().message;
  std::string gpu_name = r.at("gpu_type");
  auto gpu = cat.gpu(gpu_name.substr(0, gpu_name.find(" (")));
  if (!gpu) return "unknown GPU '" + gpu_name + "'";
  auto eff = cat.efficiency((*gpu)->generation);
  if (!eff) return "no efficiency profile for " + (*gpu)->generation;
  serving::Replica rep;
  rep.model = *model;
  rep.gpu = **gpu;
  rep.efficiency = **eff;
  const double tp = number(r, "tp", 1);
  if (tp < 1 || tp != std::floor(tp)) return "tp must be a whole number >= 1, got " + r.at("tp");
  rep.tensor_parallel = static_cast<int>(tp);
  // A row about a whole system (GPUs > TP) measures GPUs / TP replicas side by side.
  const double gpus = number(r, "num_gpus", tp);
  if (gpus < tp || std::fmod(gpus, tp) != 0) {
    return "num_gpus " + r.at("num_gpus") + " is not a multiple of tp " +
           std::to_string(rep.tensor_parallel) + " (a row describes whole replicas)";
  }
  const int replicas = static_cast<int>(gpus / tp);
  // The weights' precision as the row names it ("FP8", "NVFP4", "INT8 SmoothQuant", "default
  // dtype (BF16 presumed)"); anything else is 16-bit.
  const std::string prec = lower(r.at("precision"));
  auto names = [&](const char* p) {
    return std::regex_search(prec, std::regex(std::string("(^|[^a-z0-9])(nv|mx)?") + p));
  };
  rep.weights = names("fp4")    ? catalog::Precision::kFp4
                : names("fp8")  ? catalog::Precision::kFp8
                : names("int8") ? catalog::Precision::kInt8
                : names("fp16") ? catalog::Precision::kFp16
                                : catalog::Precision::kBf16;
  // The KV cache's precision where the row names it ("NVFP4 (BF16 KV cache)"); else FP4
  // checkpoints keep an FP8 KV cache (TensorRT-LLM, vLLM), INT8 weights a 16-bit one.
  std::smatch kv;
  if (std::regex_search(prec, kv, std::regex(R"((fp8|bf16|fp16) kv)"))) {
    rep.kv_cache = kv[1] == "fp8"    ? catalog::Precision::kFp8
                   : kv[1] == "fp16" ? catalog::Precision::kFp16
                                     : catalog::Precision::kBf16;
  } else {
    rep.kv_cache = rep.weights == catalog::Precision::kFp4    ? catalog::Precision::kFp8
                   : rep.weights == catalog::Precision::kInt8 ? catalog::Precision::kBf16
                                                              : rep.weights;
  }
  // "attention DP" in the framework cell: attention data parallel over the TP ranks.
  rep.attention_data_parallel =
      r.count("framework") && lower(r.at("framework")).find("attention dp") != std::string::npos;
  // TensorRT-LLM before v0.8 had no XQA kernel: its GQA decode read the KV cache per query head.
  if (r.count("framework") &&
      std::regex_search(lower(r.at("framework")), std::regex(R"(tensorrt-llm v0\.[0-7]\b)"))) {
    rep.kv_read_once_per_group = false;
  }
  const std::string batch = lower(r.at("batch_or_concurrency"));
  const bool max_load = batch.find("max load") != std::string::npos;
  const auto b = find_number(batch, R"(batch(?: size)?[ =:]*(\d+))");
  auto clients = find_number(batch, R"(concurrency[ =:]*(\d+))");
  if (!clients) clients = find_number(batch, R"((\d+) (?:concurrent|clients|users))");
  const auto rate = find_number(batch, R"((?:request rate|qps)[ =:]*(\d+(?:\.\d+)?))");
  const auto max_sequences = find_number(batch, R"(max_num_seqs[ =:]*(\d+))");
  if (!max_load && !b && !clients && !rate) {
    return "batch not understood: '" + r.at("batch_or_concurrency") +
           "' (expected 'static batch N', 'fixed batch N', 'concurrency N', 'request rate R' or "
           "'max load')";
  }
  const double input = number(r, "input_tokens"), output = number(r, "output_tokens");
  if (input < 1 || output < 1) return "input_tokens and output_tokens must be at least 1";
  if (auto fits = serving::check(rep); !fits) return fits.error().message;
  std::vector<serving::Measurement> row;
  auto add = [&](serving::Metric metric, double measured) {
    if (measured <= 0) return;
    serving::Measurement m;
    m.name = r.at("name");
    m.group = source_group(r.count("source") ? r.at("source") : "");
    m.replicas = replicas;
    m.metric = metric;
    m.replica = rep;
    m.batch = b.value_or(1);
    m.max_load = max_load;
    if (max_sequences) m.max_sequences = *max_sequences;
    m.clients = static_cast<int>(clients.value_or(0));
    m.requests_per_s = rate.value_or(0);
    m.input = input;
    m.output = output;
    m.measured = measured;
    row.push_back(std::move(m));
  };
  add(serving::Metric::kThroughput, number(r, "throughput_tokens_per_s"));
  add(serving::Metric::kTtft, number(r, "ttft_ms") / 1000);
  add(serving::Metric::kTpot, number(r, "tpot_ms") / 1000);
  if (row.empty()) return "no measured throughput_tokens_per_s, ttft_ms or tpot_ms";
  for (const auto& m : row) {
    const double p = serving::predict(m);
    if (!(p > 0)) {
      return std::string("the model gives no ") + serving::to_string(m.metric) + " for it (" +
             std::to_string(p) + ")";
    }
  }
  out.insert(out.end(), row.begin(), row.end());
  return std::nullopt;
}

}  // namespace

core::Result<InferenceSet> load_inference_csv(const std::string& path,
                                              const catalog::Catalog& cat) {
  InferenceSet set;
  auto st =
      read_table(path,
                 {"name", "model", "gpu_type", "tp", "precision", "input_tokens", "output_tokens",
                  "batch_or_concurrency", "throughput_tokens_per_s", "ttft_ms", "tpot_ms"},
                 [&](const Row& row, int line) {
                   try {
                     if (auto why = build(row, cat, set.cases)) {
                       set.skipped.push_back(row.at("name") + ": " + *why);
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

bool is_inference_csv(const std::string& path) {
  auto text = read_file(path);
  if (!text) return false;
  const std::string first = text->substr(0, text->find('\n'));
  return first.find("ttft_ms") != std::string::npos;
}

}  // namespace aicost::config

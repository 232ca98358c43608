#include "aicost/config/memory_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "aicost/config/catalog_loader.h"
#include "aicost/config/plan.h"
#include "aicost/perf/memory.h"
#include "csv.h"

namespace aicost::config {

namespace {

constexpr const char* kColumns[] = {"name",
                                    "source",
                                    "model",
                                    "gpu",
                                    "gpus",
                                    "tp",
                                    "pp",
                                    "vpp",
                                    "cp",
                                    "ep",
                                    "etp",
                                    "micro_batch",
                                    "global_batch",
                                    "seq_length",
                                    "recompute",
                                    "sequence_parallel",
                                    "optimizer_sharding",
                                    "precision",
                                    "measured_gib",
                                    "measured_as",
                                    "notes"};

}  // namespace

core::Result<std::vector<MemoryCase>> load_memory_csv(const std::string& path,
                                                      const catalog::Catalog& cat) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::vector<MemoryCase> out;
  std::map<std::string, size_t> col;
  auto status =
      read_csv(*text, path, [&](const std::vector<std::string>& f, int line) -> core::Status {
        if (col.empty()) {
          for (size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
          for (const char* c : kColumns) {
            if (!col.count(c)) {
              return core::make_error_at(core::ErrorCode::kInvalidInput,
                                         std::string("memory CSV has no column '") + c + "'",
                                         {path, line, 0, ""});
            }
          }
          return {};
        }
        auto get = [&](const char* c) { return col[c] < f.size() ? f[col[c]] : std::string(); };
        const std::string where = path + ":" + std::to_string(line);
        const std::string yaml = fmt::format(
            "name: memory-row\nmodel:\n  preset: \"{}\"\ntraining:\n  tokens: 1B\n  seq_length: "
            "{}\n"
            "  global_batch_size: {}\n  precision: {}\ncluster:\n  gpu: {}\n  gpus: {}\n"
            "  gpus_per_node: 8\nparallelism:\n  tensor_model_parallel_size: {}\n"
            "  pipeline_model_parallel_size: {}\n  virtual_pipeline_model_parallel_size: {}\n"
            "  context_parallel_size: {}\n  expert_model_parallel_size: {}\n"
            "  expert_tensor_parallel_size: {}\n  micro_batch_size: {}\n"
            "  sequence_parallel: {}\n  recompute_granularity: {}\n  optimizer_sharding: {}\n",
            get("model"), get("seq_length"), get("global_batch"), get("precision"), get("gpu"),
            get("gpus"), get("tp"), get("pp"), get("vpp"), get("cp"), get("ep"),
            get("etp").empty() ? get("tp") : get("etp"), get("micro_batch"),
            get("sequence_parallel"), get("recompute"), get("optimizer_sharding"));
        // Optional columns (default as Megatron's): empty or absent leaves the plan key out.
        std::string extra;
        if (col.count("optimizer_states") && !get("optimizer_states").empty()) {
          extra += "  optimizer_states: " + get("optimizer_states") + "\n";
        }
        if (col.count("fp8_param_gather") && !get("fp8_param_gather").empty()) {
          extra += "  fp8_param_gather: " + get("fp8_param_gather") + "\n";
        }
        auto plan = parse_plan(yaml + extra, where, ".", cat);
        if (!plan) {
          return core::make_error(
              core::ErrorCode::kInvalidInput,
              "row '" + get("name") + "' is not a valid plan: " + plan.error().message, where);
        }
        MemoryCase c;
        c.name = get("name");
        c.line = line;
        c.source = get("source");
        c.job = plan->job;
        c.measured_as = get("measured_as");
        try {
          c.measured_gib = std::stod(get("measured_gib"));
        } catch (...) {
          c.measured_gib = 0;
        }
        if (!(c.measured_gib > 0)) {
          return core::make_error(core::ErrorCode::kInvalidInput,
                                  "row '" + c.name + "' needs measured_gib > 0 (GiB per GPU)",
                                  where);
        }
        out.push_back(std::move(c));
        return {};
      });
  if (!status) return status.error();
  return out;
}

bool is_memory_csv(const std::string& path) {
  auto text = read_file(path);
  if (!text) return false;
  const auto eol = text->find('\n');
  return text->substr(0, eol).find("measured_gib") != std::string::npos;
}

catalog::MemoryMargin memory_margin(const std::vector<MemoryCase>& cases,
                                    const std::string& source) {
  catalog::MemoryMargin m;
  m.source = source;
  m.rows = static_cast<int>(cases.size());
  for (const auto& c : cases) {
    const double predicted = core::in_gib(perf::estimate_memory(c.job).total());
    m.margin = std::max(m.margin, predicted / c.measured_gib - 1);
  }
  return m;
}

}  // namespace aicost::config

// A hand-built plan for the report tests: a tiny model on 32 GPUs with performance and cost numbers
// chosen by hand (round values that are easy to check), not produced by perf or costing.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "aicost/costing/cost_inputs.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "aicost/report/estimate_report.h"
#include "aicost/workload/model.h"
#include "aicost/workload/training_job.h"

namespace aicost::report::testing {

// 2 layers, hidden 64, 4 heads (MHA, head dim 16), GeLU MLP 256 wide, vocab 1000, untied.
// Parameters, by hand:
//   attention per layer = h(q + 2 kv) + q h + 2h = 64*192 + 64*64 + 128 = 16,512
//   MLP per layer       = 2 h f = 2*64*256                                = 32,768
//   2 layers            = 2 * 49,280                                      = 98,560
//   embedding + output  = 2 * 1000*64                                     = 128,000
//   final norm          = 64
//   total (dense: active = total)                                         = 226,624
inline constexpr double kTinyParams = 226624;

inline catalog::ModelSpec tiny_spec() {
  catalog::ModelSpec s;
  s.id = "tiny";
  s.name = "Tiny test model";
  s.num_layers = 2;
  s.hidden_size = 64;
  s.num_attention_heads = 4;
  s.ffn_hidden_size = 256;
  s.vocab_size = 1000;
  s.seq_length = 2048;
  return s;
}

// Everything one view points to, kept alive together.
struct Plan {
  // Constructed, not aggregate-initialised from braces: GCC 12 warns -Wmaybe-uninitialized on the
  // strings of a braced CostInputs temporary. The rest is value-initialised, as `{}` did.
  explicit Plan(workload::TrainingJob j) : job(std::move(j)), perf(), cost(), inputs() {}
  workload::TrainingJob job;
  perf::TrainingEstimate perf;
  costing::CostEstimate cost;
  costing::CostInputs inputs;

  EstimateView view(std::string name) const {
    return EstimateView{std::move(name), &job, &perf, &cost, {"view warning", "shared warning"},
                        &inputs};
  }
};

// 32 GPUs, TP 2 x PP 2 -> DP 8; global batch 512 x 2048 tokens = 1,048,576 tokens per step;
// micro-batch 1 -> 512 / (8 * 1) = 64 micro-batches. 10,000 steps of 8.64 s = 86,400 s = 1 day.
inline std::unique_ptr<Plan> make_plan() {
  auto model = workload::Model::create(tiny_spec());
  auto p = std::make_unique<Plan>(
      workload::TrainingJob{*model, 0, 0, 0, catalog::Precision::kBf16, {}, {}, {}, {}, 0});
  auto& job = p->job;
  job.tokens = 1.048576e10;
  job.seq_length = 2048;
  job.global_batch = 512;
  job.cluster.gpu.id = "test-gpu";
  job.cluster.gpu.memory = core::gib(80);
  job.cluster.gpus = 32;
  job.cluster.gpus_per_node = 8;
  job.parallel.tensor = 2;
  job.parallel.pipeline = 2;
  job.parallel.micro_batch = 1;
  job.parallel.sequence_parallel = true;
  job.parallel.recompute = workload::Recompute::kSelective;
  job.parallel.sharding = workload::OptimizerSharding::kZero1;

  // Step 8.64 s split 75 / 5 / 5 / 0 / 0 / 1 / 10 / 2 / 2 %.
  auto& e = p->perf;
  e.step.compute = core::seconds(6.48);
  e.step.recompute = core::seconds(0.432);
  e.step.tp_comm = core::seconds(0.432);
  e.step.pp_comm = core::seconds(0.0864);
  e.step.bubble = core::seconds(0.864);
  e.step.dp_comm = core::seconds(0.1728);
  e.step.optimizer = core::seconds(0.1728);
  e.step_time = core::seconds(8.64);
  e.tokens_per_step = 1048576;
  e.tokens_per_s = 121363;          // 1,048,576 / 8.64, rounded
  e.tokens_per_s_per_gpu = 3792.6;  // / 32
  e.model_flops_per_token = 1.5e6;
  e.hardware_flops_per_token = 1.6e6;
  e.mfu = 0.45;
  e.hfu = 0.5;
  e.model_flops_per_gpu = core::tflops_per_s(450);
  e.peak_precision = catalog::Precision::kBf16;
  e.peak_per_gpu = core::tflops_per_s(1000);
  e.steps = 10000;
  e.compute_time = core::days(1);
  e.gpu_hours = 768;  // 24 h x 32
  e.memory.weights = core::gib(10);
  e.memory.gradients = core::gib(5);
  e.memory.optimizer = core::gib(15);
  e.memory.activations = core::gib(30);
  e.memory.logits = core::gib(2);
  e.memory.overhead = core::gib(3);  // 65 GiB in all
  e.memory.capacity = core::gib(80);
  e.warnings = {"shared warning", "memory is 81 % full"};

  // Wall time 1.25 days (6 h of failure overhead) -> 30 h x 32 GPUs = 960 GPU-hours.
  auto& c = p->cost;
  auto& f = c.failures;
  f.job_mtbf = core::hours(12);
  f.checkpoint_interval = core::seconds(1800);
  f.checkpoint_blocking = core::seconds(20);
  f.checkpoint_size = core::gb(3.2);
  f.expected_interruptions = 2.5;
  f.checkpoint_time = core::hours(2);
  f.lost_work = core::hours(2.5);
  f.restart_time = core::hours(1.5);
  f.goodput = 0.8;
  c.wall_time = core::days(1.25);
  c.gpu_hours = 960;
  using costing::CostNature;
  auto line = [&](const char* cat, double usd, CostNature n, double avg_per_h, double peak_per_h) {
    c.lines.push_back(
        {cat, core::usd(usd), n, core::usd_per_hour(avg_per_h), core::usd_per_hour(peak_per_h)});
  };
  // 32,000 + 2,000 + 1,200 + 300 + 500 + 1,000 + 500 + 8,000 + 4,500 = 50,000 USD.
  line("compute", 32000, CostNature::kElastic, 100, 128);
  line("failures", 2000, CostNature::kElastic, 0, 128);
  line("storage", 1200, CostNature::kElastic, 1, 2);
  line("network", 300, CostNature::kElastic, 0, 0);
  line("database", 500, CostNature::kFixed, 1, 1);
  line("monitoring", 1000, CostNature::kElastic, 0, 0);
  line("security", 500, CostNature::kFixed, 0, 0);
  line("operations", 8000, CostNature::kFixed, 0, 0);
  line("contingency", 4500, CostNature::kFixed, 0, 0);
  c.total = core::usd(50000);
  c.fixed = core::usd(13500);  // database + security + operations + contingency
  c.elastic = core::usd(36500);
  c.per_million_tokens = core::usd(4.768);  // 50,000 / 10,485.76 M tokens, rounds to 4.77
  c.peak_storage = core::gb(1500);
  c.warnings = {"no operations section: people cost is not included"};

  p->inputs.compute.per_gpu = core::usd_per_hour(2.0);
  p->inputs.compute.basis = "2.00 USD/GPU-h (plan)";
  p->inputs.compute.mode = catalog::PricingMode::kOnDemand;
  // The storage line's driver ends with this note (report::cost_driver): a comma and quotes to
  // escape.
  p->inputs.storage.tier_note = "\"hot\" tier, list price";
  return p;
}

}  // namespace aicost::report::testing

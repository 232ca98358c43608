#include "aicost/config/search_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "aicost/config/plan.h"
#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "temp_dir.h"
#include "test_support.h"

// load_search_plan on files written to a temporary directory: lists, ranges, left-out and fixed
// parallelism keys, error positions; and emit_plan's winner re-read by load_plan and estimated.

namespace aicost::config {
namespace {

using core::ErrorCode;
namespace fs = std::filesystem;

const catalog::Catalog& builtin() { return testing::builtin_catalog(); }

// A fresh directory per test, inside one folder per process that is removed when it exits.
fs::path test_dir() {
  static const testing::TempDir root("aicost-search-plan");
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path d = root.path() / info->name();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string write(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

core::Result<SearchRequest> load(const std::string& yaml) {
  return load_search_plan(write(test_dir(), "plan.yaml", yaml), builtin());
}

// A small inline dense model (8 layers, hidden 1024, 16 heads), so searches are quick.
// `cluster` and `parallelism` are filled in per test; line numbers below count from line 1.
std::string plan(const std::string& cluster, const std::string& parallelism = "") {
  return "name: small\n"                // 1
         "model:\n"                     // 2
         "  num_layers: 8\n"            // 3
         "  hidden_size: 1024\n"        // 4
         "  num_attention_heads: 16\n"  // 5
         "  ffn_hidden_size: 4096\n"    // 6
         "  vocab_size: 32000\n"        // 7
         "training:\n"                  // 8
         "  tokens: 10B\n"              // 9
         "  seq_length: 2048\n"         // 10
         "  global_batch_size: 64\n"    // 11
         "cluster:\n" +                 // 12
         cluster +                      // 13..
         (parallelism.empty() ? "" : "parallelism:\n" + parallelism) +
         "pricing:\n"
         "  gpu_hour: 2.00USD/h\n"
         "storage:\n"
         "  checkpoint_write_bandwidth: 100GB/s\n";
}

// The load failed with `code`, the message mentions `fragment`, and the context names the file
// ("<dir>/plan.yaml:line:col"); with `line_col`, also the exact position.
void expect_error(const core::Result<SearchRequest>& r, ErrorCode code, const std::string& fragment,
                  const std::string& line_col = "") {
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, code);
  EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
  const std::string& ctx = r.error().context;
  EXPECT_NE(ctx.find("plan.yaml:"), std::string::npos) << ctx;
  if (line_col.empty()) return;
  const std::string suffix = "plan.yaml:" + line_col;
  EXPECT_TRUE(ctx.size() >= suffix.size() &&
              ctx.compare(ctx.size() - suffix.size(), suffix.size(), suffix) == 0)
      << ctx;
}

TEST(SearchPlan, GpuListAndCountRange) {
  auto r = load(plan("  gpu: [a100-sxm4-80gb, h100-sxm-80gb]\n  gpus: 8..64\n"));
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->space.gpus.size(), 2u);
  EXPECT_EQ(r->space.gpus[0].gpu.id, "a100-sxm4-80gb");
  EXPECT_EQ(r->space.gpus[1].gpu.id, "h100-sxm-80gb");
  for (const auto& g : r->space.gpus) {
    ASSERT_EQ(g.prices.size(), 1u);  // a plain gpu_hour is one price, not one per mode
    EXPECT_DOUBLE_EQ(core::per_hour(g.prices[0].per_gpu), 2.0);
  }
  EXPECT_EQ(r->space.min_gpus, 8);
  EXPECT_EQ(r->space.max_gpus, 64);
  EXPECT_TRUE(r->space.gpu_counts.empty());
  EXPECT_EQ(r->space.global_batches, std::vector<int>{64});
}

TEST(SearchPlan, GpuCountList) {
  auto r = load(plan("  gpu: a100-sxm4-80gb\n  gpus: [16, 32]\n"));
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_EQ(r->space.gpu_counts, (std::vector<int>{16, 32}));
  ASSERT_EQ(r->space.gpus.size(), 1u);
}

TEST(SearchPlan, AbsentParallelismKeysAreSearched) {
  auto r = load(plan("  gpu: a100-sxm4-80gb\n  gpus: 64\n"));
  ASSERT_TRUE(r) << r.error().what();
  const auto& s = r->space;
  EXPECT_TRUE(s.tensor.empty());
  EXPECT_TRUE(s.pipeline.empty());
  EXPECT_TRUE(s.virtual_pipeline.empty());
  EXPECT_TRUE(s.context.empty());
  EXPECT_TRUE(s.expert.empty());
  EXPECT_TRUE(s.micro_batch.empty());
  EXPECT_TRUE(s.recompute.empty());
  EXPECT_TRUE(s.sequence_parallel.empty());
  EXPECT_TRUE(s.sharding.empty());
  EXPECT_EQ(s.gpu_counts, std::vector<int>{64});
}

TEST(SearchPlan, ScalarFixesAndListsRestrictADimension) {
  auto r = load(plan("  gpu: a100-sxm4-80gb\n  gpus: 64\n",
                     "  tensor_model_parallel_size: 2\n"
                     "  pp: [1, 2, 4]\n"
                     "  micro_batch_size: 1..3\n"
                     "  sequence_parallel: true\n"
                     "  recompute_granularity: [selective, full]\n"
                     "  use_distributed_optimizer: false\n"));
  ASSERT_TRUE(r) << r.error().what();
  const auto& s = r->space;
  EXPECT_EQ(s.tensor, std::vector<int>{2});
  EXPECT_EQ(s.pipeline, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(s.micro_batch, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.sequence_parallel, std::vector<bool>{true});
  EXPECT_EQ(s.recompute, (std::vector<workload::Recompute>{workload::Recompute::kSelective,
                                                           workload::Recompute::kFull}));
  EXPECT_EQ(s.sharding,
            std::vector<workload::OptimizerSharding>{workload::OptimizerSharding::kNone});
  EXPECT_TRUE(s.context.empty());  // still searched

  // The search honours the fixed values: every candidate has TP 2, SP on, no sharding.
  search::SearchOptions opt;
  opt.threads = 1;
  opt.top = 1000;
  const auto res = search::run_search(r->base.job, r->base.cost, s, r->constraints, opt);
  ASSERT_GT(res.feasible, 0u);
  for (const auto& c : res.top) {
    EXPECT_EQ(c.parallel.tensor, 2);
    EXPECT_TRUE(c.parallel.sequence_parallel);
    EXPECT_EQ(c.parallel.sharding, workload::OptimizerSharding::kNone);
    EXPECT_LE(c.parallel.micro_batch, 3);
    EXPECT_NE(c.parallel.recompute, workload::Recompute::kNone);
    EXPECT_EQ(c.gpus, 64);
  }
}

const std::string kReversed = plan("  gpu: a100-sxm4-80gb\n  gpus: 64..32\n");
const std::string kEmptyList = plan("  gpu: []\n  gpus: 64\n");
const std::string kUnknownGpu = plan("  gpu: [a100-sxm4-80gb, h100-sxm-80gbb]\n  gpus: 64\n");
const std::string kDataParallel =
    plan("  gpu: a100-sxm4-80gb\n  gpus: 64\n", "  data_parallel_size: 8\n");

TEST(SearchPlan, ReversedRangeIsAnError) {
  expect_error(load(kReversed), ErrorCode::kInvalidInput, "64..32 is empty");
}

TEST(SearchPlan, EmptyListIsAnError) {
  expect_error(load(kEmptyList), ErrorCode::kInvalidInput, "'cluster.gpu' is an empty list");
}

TEST(SearchPlan, UnknownGpuInTheListSuggestsTheId) {
  auto r = load(kUnknownGpu);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("Did you mean 'h100-sxm-80gb'"), std::string::npos)
      << r.error().message;
}

// Owned pricing depends on the cluster bought; the search prices rented GPUs and says so.
TEST(SearchPlan, OwnedModeIsNotSearched) {
  std::string yaml = plan("  gpu: h100-sxm-80gb\n  gpus: 8\n");
  yaml.replace(yaml.find("  gpu_hour: 2.00USD/h\n"), 21, "  mode: owned\n");
  expect_error(load(yaml), ErrorCode::kInvalidInput, "pricing.mode owned is not searched");
}

TEST(SearchPlan, DataParallelSizeIsAnError) {
  expect_error(load(kDataParallel), ErrorCode::kInvalidInput, "data_parallel_size is derived");
}

// Errors on the searched choices point at the value, not at "plan.yaml:1:1": yaml-cpp's Clone
// drops source marks, so load_search_plan reads the choices from the parsed plan, which keeps
// them, and only mutates the clone.
TEST(SearchPlan, ErrorsPointAtTheOffendingValue) {
  expect_error(load(kReversed), ErrorCode::kInvalidInput, "64..32", "14:9");
  expect_error(load(kEmptyList), ErrorCode::kInvalidInput, "empty list", "13:8");
  expect_error(load(kUnknownGpu), ErrorCode::kNotFound, "Did you mean", "13:8");
  expect_error(load(kDataParallel), ErrorCode::kInvalidInput, "data_parallel_size", "16:23");
}

// The winner written back by emit_plan is an ordinary plan: load_plan accepts it, and
// `estimate` gives the candidate's cost and wall days.
TEST(SearchPlan, EmittedWinnerLoadsAndEstimatesToTheCandidate) {
  const fs::path dir = test_dir();
  const std::string path =
      write(dir, "search.yaml",
            plan("  gpu: [a100-sxm4-80gb, h100-sxm-80gb]\n  gpus: 8..64\n") +
                "search:\n  objective: cheapest\n  memory_headroom: 10%\n  top: 3\n");
  auto req = load_search_plan(path, builtin());
  ASSERT_TRUE(req) << req.error().what();
  search::SearchOptions opt;
  opt.objective = req->objective;
  opt.top = req->top;
  opt.threads = 2;
  const auto res =
      search::run_search(req->base.job, req->base.cost, req->space, req->constraints, opt);
  ASSERT_EQ(res.top.size(), 3u);
  auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
  for (size_t i = 0; i < res.top.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& c = res.top[i];
    auto text = emit_plan(*req, c, dir.string());
    ASSERT_TRUE(text) << text.error().what();
    const std::string out = write(dir, "winner" + std::to_string(i) + ".yaml", *text);
    auto p = load_plan(out, builtin());
    ASSERT_TRUE(p) << p.error().what() << "\n" << *text;
    EXPECT_EQ(p->job.cluster.gpu.id, req->space.gpus[c.gpu_option].gpu.id);
    EXPECT_EQ(p->job.cluster.gpus, c.gpus);
    EXPECT_EQ(p->job.parallel.tensor, c.parallel.tensor);
    EXPECT_EQ(p->job.parallel.pipeline, c.parallel.pipeline);
    EXPECT_EQ(p->job.parallel.virtual_pipeline, c.parallel.virtual_pipeline);
    EXPECT_EQ(p->job.parallel.context, c.parallel.context);
    EXPECT_EQ(p->job.parallel.micro_batch, c.parallel.micro_batch);
    EXPECT_EQ(p->job.parallel.sequence_parallel, c.parallel.sequence_parallel);
    EXPECT_EQ(p->job.parallel.recompute, c.parallel.recompute);
    EXPECT_EQ(p->job.parallel.sharding, c.parallel.sharding);
    auto est = perf::estimate_training(p->job);
    ASSERT_TRUE(est);
    const auto cost = costing::estimate_cost(p->job, *est, p->cost);
    // gpu_hour goes through "%.6g" text, so allow a relative 1e-9 rather than bit equality.
    EXPECT_PRED2(near, cost.total.value(), c.cost_usd);
    EXPECT_PRED2(near, core::in_days(cost.wall_time), c.wall_days);
    EXPECT_PRED2(near, est->step_time.value(), c.step_time_s);
    EXPECT_PRED2(near, est->mfu, c.mfu);
  }
}

}  // namespace
}  // namespace aicost::config

// Plan-key edits on a plan's YAML (aicost optimize): other spellings go with the key they spell,
// a derived check goes when what it checks changes, sections appear when needed, and what is
// rendered is what is estimated.
#include "aicost/config/plan_edit.h"

#include <gtest/gtest.h>

#include "aicost/config/plan.h"
#include "temp_dir.h"
#include "test_support.h"

namespace aicost::config {
namespace {

const char* kPlan = R"(name: edited
model:
  preset: gpt3-175b
training:
  tokens: 300B
  seq_length: 2048
  global_batch_size: 1536
cluster:
  gpu: a100-sxm4-80gb
  gpus: 1024
parallelism:
  tp: 8
  pipeline_model_parallel_size: 16
  data_parallel_size: 8
  use_distributed_optimizer: true
  sequence_parallel: true
pricing:
  gpu_hour: 2.00USD/h
)";

PlanEditor editor(const std::string& text = kPlan) {
  auto e = PlanEditor::from_text(text, "plan.yaml", ".", testing::builtin_catalog());
  EXPECT_TRUE(e) << (e ? "" : e.error().what());
  return *e;
}

Plan reparse(const std::string& text) {
  auto p = parse_plan(text, "rendered.yaml", ".", testing::builtin_catalog());
  EXPECT_TRUE(p) << (p ? "" : p.error().what()) << "\n" << text;
  return p ? *p : Plan{};
}

TEST(PlanEditor, SettingAKeyRemovesItsAliasAndTheStaleDataParallelSize) {
  // TP 8 -> 4 makes DP 16; the written `data_parallel_size: 8` would now be an error, and `tp`
  // would be a second value for the same key.
  auto text = editor().render({{"parallelism.tensor_model_parallel_size", "4"}});
  ASSERT_TRUE(text) << text.error().what();
  EXPECT_EQ(text->find("tp:"), std::string::npos) << *text;
  EXPECT_EQ(text->find("data_parallel_size"), std::string::npos) << *text;
  const Plan p = reparse(*text);
  EXPECT_EQ(p.job.parallel.tensor, 4);
  EXPECT_EQ(p.job.data_parallel(), 16);
}

TEST(PlanEditor, OptimizerShardingReplacesUseDistributedOptimizer) {
  auto text = editor().render({{"parallelism.optimizer_sharding", "none"}});
  ASSERT_TRUE(text);
  EXPECT_EQ(text->find("use_distributed_optimizer"), std::string::npos) << *text;
  EXPECT_EQ(reparse(*text).job.parallel.sharding, workload::OptimizerSharding::kNone);
}

TEST(PlanEditor, AbsentSectionIsCreatedAndRemovingAnAbsentKeyIsANoOp) {
  auto text =
      editor().render({{"reliability.detection", "1min"}, {"network.egress", std::nullopt}});
  ASSERT_TRUE(text) << text.error().what();
  EXPECT_NE(text->find("reliability:\n  detection: 1min"), std::string::npos) << *text;
  EXPECT_EQ(text->find("network"), std::string::npos) << *text;
  EXPECT_EQ(reparse(*text).cost.reliability.restart.detection.value(), 60);
}

TEST(PlanEditor, ValuesAreWrittenAsPlainYaml) {
  auto text =
      editor().render({{"training.precision", "fp8"}, {"storage.async_checkpoint", "true"}});
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("precision: fp8"), std::string::npos) << *text;
  EXPECT_NE(text->find("async_checkpoint: true"), std::string::npos) << *text;
}

TEST(PlanEditor, BadKeyPathIsAnInputError) {
  for (const char* key : {"reliability..gpu", ".tp", "parallelism."}) {
    auto text = editor().render({{key, "1"}});
    ASSERT_FALSE(text) << key;
    EXPECT_EQ(text.error().code, core::ErrorCode::kInvalidInput);
    EXPECT_NE(text.error().message.find("'key', 'section.key' or deeper"), std::string::npos)
        << text.error().message;
  }
  // A path through a value that is not a section.
  auto text = editor().render({{"cluster.gpus.count", "8"}});
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("'cluster.gpus' is not a section"), std::string::npos)
      << text.error().message;
}

// Serving plans nest keys one level deeper (serving.autoscaling.policy) and list values
// (serving.max_batch: [8, 16]): the sections on the way are made, a list is written as a list,
// and removing a key under a section the plan lacks does nothing.
TEST(PlanEditor, DeeperKeysAndListValues) {
  auto text = editor().render({{"serving.autoscaling.policy", "reactive"},
                               {"serving.max_batch", "[8, 16]"},
                               {"serving.speculative.draft_tokens", std::nullopt},
                               {"reliability.restart.x", std::nullopt}});
  ASSERT_TRUE(text) << text.error().what();
  EXPECT_NE(text->find("serving:\n  autoscaling:\n    policy: reactive\n  max_batch: [8, 16]"),
            std::string::npos)
      << *text;
  EXPECT_EQ(text->find("speculative"), std::string::npos) << *text;
  EXPECT_EQ(text->find("reliability"), std::string::npos) << *text;
  auto nested = editor().render({{"serving.max_batch", "[[8], 16]"}});
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("one scalar or a list of scalars"), std::string::npos);
}

TEST(PlanEditor, EvaluateEstimatesTheRenderedText) {
  const PlanEditor e = editor();
  const optimize::Change c = {{"parallelism.tensor_model_parallel_size", "4"}};
  auto ev = e.evaluate(c);
  ASSERT_TRUE(ev) << ev.error().what();
  auto text = e.render(c);
  ASSERT_TRUE(text);
  const Plan p = reparse(*text);
  auto perf = perf::estimate_training(p.job);
  ASSERT_TRUE(perf);
  EXPECT_EQ(ev->total_usd(), costing::estimate_cost(p.job, *perf, p.cost).total.value());
}

TEST(PlanEditor, AnInvalidChangeIsAnErrorNotACrash) {
  auto ev = editor().evaluate({{"parallelism.tensor_model_parallel_size", "7"}});
  ASSERT_FALSE(ev);
  EXPECT_NE(ev.error().context.find("changed: parallelism.tensor_model_parallel_size: 7"),
            std::string::npos)
      << ev.error().context;
}

TEST(PlanEditor, InvalidPlanIsRejectedWithItsPosition) {
  auto e = PlanEditor::from_text("model:\n  preset: gpt3-175b\n", "bad.yaml", ".",
                                 testing::builtin_catalog());
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("no 'training' section"), std::string::npos);
}

TEST(PlanEditor, EmitRebasesARelativeHfConfigAndHeadsTheFile) {
  testing::TempDir dir;
  const std::string src = std::string(AICOST_SOURCE_DIR) + "/data/hf_configs";
  std::string plan = kPlan;
  plan.replace(plan.find("  preset: gpt3-175b"), 19, "  hf_config: llama-3.1-8b.json");
  plan.replace(plan.find("  tp: 8"), 7, "  tp: 4");
  plan.replace(plan.find("  data_parallel_size: 8\n"), 24, "");
  auto e = PlanEditor::from_text(plan, src + "/plan.yaml", src, testing::builtin_catalog());
  ASSERT_TRUE(e) << e.error().what();
  auto text = e->emit({}, dir.path().string(), "line one\nline two");
  ASSERT_TRUE(text) << text.error().what();
  EXPECT_EQ(text->rfind("# line one\n# line two\nname: edited\n", 0), 0u) << *text;
  const std::string written = dir.write("out.yaml", *text);
  auto p = load_plan(written, testing::builtin_catalog());
  EXPECT_TRUE(p) << (p ? "" : p.error().what()) << "\n" << *text;
}

TEST(PlanEditor, LimitsComeFromTheSearchSection) {
  std::string plan = std::string(kPlan) + "search:\n  deadline: 90d\n  max_gpus: 2048\n";
  auto l = editor(plan).limits();
  ASSERT_TRUE(l) << l.error().what();
  ASSERT_TRUE(l->deadline_days);
  EXPECT_EQ(*l->deadline_days, 90);
  EXPECT_EQ(l->max_gpus, 2048);
  auto none = editor().limits();
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->deadline_days);
  EXPECT_EQ(none->max_gpus, 0);
}

}  // namespace
}  // namespace aicost::config

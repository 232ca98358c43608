// Serving plans: options, traffic, SLA, profiles, and their errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "aicost/config/serving_plan.h"
#include "temp_dir.h"
#include "test_support.h"

namespace aicost::config {
namespace {

// One folder for this binary's files, removed when it exits.
std::string write(const std::string& name, const std::string& text) {
  static const testing::TempDir dir("aicost-serving-plan");
  return dir.write(name, text);
}

const std::string kPlan = R"(name: t
model:
  preset: llama3.1-8b
serving:
  gpu: [h100-sxm-80gb, a100-sxm4-80gb]
  tensor_parallel_size: [1, 2]
  precision: [bf16, fp8]
  input_tokens: 500
  output_tokens: 100
  requests_per_s: 4
  sla:
    ttft: 300ms
    tpot: 40ms
    percentile: 99%
pricing:
  gpu_hour: 2USD/h
)";

TEST(ServingPlan, OptionsAreGpuTimesPrecisionTimesTp) {
  const auto path = write("ok.yaml", kPlan);
  EXPECT_TRUE(is_serving_plan(path));
  auto plan = load_serving_plan(path, testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(plan->options.size(), 2u * 2 * 2);
  EXPECT_DOUBLE_EQ(plan->sla.ttft.value(), 0.3);
  EXPECT_DOUBLE_EQ(plan->sla.percentile, 0.99);
  EXPECT_DOUBLE_EQ(plan->traffic.request_rate.value(), 4);
  EXPECT_EQ(plan->batches, (std::vector<int>{8, 16, 32, 64, 128, 256}));
  EXPECT_TRUE(plan->series.rps.empty());
}

TEST(ServingPlan, MissingTrafficIsNamed) {
  std::string text = kPlan;
  text.erase(text.find("  requests_per_s: 4\n"), std::string("  requests_per_s: 4\n").size());
  auto plan = load_serving_plan(write("missing.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("serving.requests_per_s is required"), std::string::npos);
}

TEST(ServingPlan, UnknownGpuSuggests) {
  std::string text = kPlan;
  text.replace(text.find("a100-sxm4-80gb"), 14, "a100-sxm4-80");
  auto plan = load_serving_plan(write("gpu.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("a100-sxm4-80gb"), std::string::npos) << plan.error().message;
}

TEST(ServingPlan, CsvTrafficReadsOneRatePerMinute) {
  write("traffic.csv", "minute,rps\n0,1.5\n1,2.5\n2,3\n");
  std::string text = kPlan;
  text.insert(text.find("  sla:"), "  traffic_profile:\n    csv: traffic.csv\n");
  auto plan = load_serving_plan(write("csv.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(plan->series.rps, (std::vector<double>{1.5, 2.5, 3}));
  EXPECT_EQ(plan->policies.size(), 5u);
}

TEST(ServingPlan, BadTrafficValueNamesTheLine) {
  write("bad.csv", "rps\n1\n-2\n");
  std::string text = kPlan;
  text.insert(text.find("  sla:"), "  traffic_profile:\n    csv: bad.csv\n");
  auto plan = load_serving_plan(write("badcsv.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().context.find("bad.csv:3"), std::string::npos) << plan.error().context;
}

// A rate is a whole, finite, non-negative number: "2.5x", "nan" and "inf" were taken by stod (as
// 2.5, NaN and infinity) before the profile was read as CSV.
TEST(ServingPlan, ATrafficRateMustBeAWholeFiniteNumber) {
  for (const std::string bad : {"2.5x", "nan", "inf", "-2"}) {
    write("rate.csv", "rps\n1\n" + bad + "\n");
    std::string text = kPlan;
    text.insert(text.find("  sla:"), "  traffic_profile:\n    csv: rate.csv\n");
    auto plan = load_serving_plan(write("rate.yaml", text), testing::builtin_catalog());
    ASSERT_FALSE(plan) << bad;
    EXPECT_NE(plan.error().context.find("rate.csv:3"), std::string::npos) << plan.error().context;
    EXPECT_NE(plan.error().message.find("got '" + bad + "'"), std::string::npos)
        << plan.error().message;
  }
}

// Quoted cells are CSV: the rate is the last field even with a comma inside an earlier one.
TEST(ServingPlan, TrafficCsvCellsAreReadAsCsv) {
  write("quoted.csv", "when,rps\n\"Mon, 00:00\",4\n\"Mon, 00:01\",\"5.5\"\n");
  std::string text = kPlan;
  text.insert(text.find("  sla:"), "  traffic_profile:\n    csv: quoted.csv\n");
  auto plan = load_serving_plan(write("quoted.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(plan->series.rps, (std::vector<double>{4, 5.5}));
}

TEST(ServingPlan, ATrafficCsvWithoutRatesIsAnError) {
  write("empty.csv", "minute,rps\n");
  std::string text = kPlan;
  text.insert(text.find("  sla:"), "  traffic_profile:\n    csv: empty.csv\n");
  auto plan = load_serving_plan(write("empty.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("the traffic profile has no rows"), std::string::npos)
      << plan.error().message;
}

TEST(ServingPlan, LengthDistributionsSetTailsAtTheSlaPercentile) {
  std::string text = kPlan;
  text.replace(text.find("  input_tokens: 500\n"), std::string("  input_tokens: 500\n").size(),
               "  input_tokens: {mean: 500, p90: 1500}\n");
  text.replace(text.find("99%"), 3, "90%");
  auto plan = load_serving_plan(write("dist.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_DOUBLE_EQ(plan->traffic.input_tokens, 500);
  EXPECT_NEAR(plan->traffic.input_tail_tokens, 1500, 1e-6);  // the p90 at a P90 SLA
  EXPECT_EQ(plan->traffic.output_tail_tokens, 0);
  // The queues see the spread: the prompts' from their log-normal, the answers' the default.
  EXPECT_NEAR(plan->traffic.input_cv2, serving::lognormal_cv2(500, 1500), 1e-12);
  EXPECT_GT(plan->traffic.input_cv2, 0.5);
  EXPECT_EQ(plan->traffic.output_cv2, 1);
}

TEST(ServingPlan, ReadsTheModelFromAHuggingFaceConfig) {
  std::filesystem::copy_file(std::string(AICOST_SOURCE_DIR) + "/data/hf_configs/llama-3.1-8b.json",
                             std::filesystem::path(write("hf.yaml", "")).parent_path() / "l8b.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::string text = kPlan;
  text.replace(text.find("preset: llama3.1-8b"), 19, "hf_config: l8b.json");  // next to the plan
  auto from_json = load_serving_plan(write("hf.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(from_json) << from_json.error().what();
  auto from_preset = load_serving_plan(write("hf_preset.yaml", kPlan), testing::builtin_catalog());
  ASSERT_TRUE(from_preset);
  ASSERT_EQ(from_json->options.size(), from_preset->options.size());
  const auto& a = from_json->options[0].replica.model;
  const auto& b = from_preset->options[0].replica.model;
  EXPECT_EQ(a.layers(), b.layers());
  EXPECT_EQ(a.kv_heads(), b.kv_heads());
  EXPECT_NEAR(a.params_total() / b.params_total(), 1.0, 0.01);
}

TEST(ServingPlan, MissingHuggingFaceConfigNamesThePlanLine) {
  std::string text = kPlan;
  text.replace(text.find("preset: llama3.1-8b"), 19, "hf_config: nowhere.json");
  auto plan = load_serving_plan(write("hf_missing.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("model.hf_config names at"), std::string::npos)
      << plan.error().message;
  EXPECT_NE(plan.error().message.find("hf_missing.yaml:3"), std::string::npos)
      << plan.error().message;
}

TEST(ServingPlan, CacheHitRatesAreSharesBelowOne) {
  std::string text = kPlan;
  text.insert(text.find("  sla:"), "  prefix_cache_hit: 30%\n  response_cache_hit: 10%\n");
  auto plan = load_serving_plan(write("cache.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_DOUBLE_EQ(plan->traffic.prefix_cache_hit, 0.3);
  EXPECT_DOUBLE_EQ(plan->traffic.response_cache_hit, 0.1);
  EXPECT_DOUBLE_EQ(plan->traffic.replica_request_rate().value(), 4 * 0.9);
  text.replace(text.find("response_cache_hit: 10%"), 23, "response_cache_hit: 100%");
  plan = load_serving_plan(write("cache.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(
      plan.error().message.find("serving.response_cache_hit must be at least 0 % and below 100 %"),
      std::string::npos)
      << plan.error().message;
  EXPECT_NE(plan.error().what().find("cache.yaml:"), std::string::npos) << plan.error().what();
}

TEST(ServingPlan, SpeculativeDecodingAppliesToEveryOption) {
  std::string text = kPlan;
  text.insert(text.find("  sla:"),
              "  speculative: {draft_tokens: 4, acceptance: 70%, draft_cost: 5%}\n");
  auto plan = load_serving_plan(write("spec.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  for (const auto& o : plan->options) {
    EXPECT_EQ(o.replica.speculation.draft_tokens, 4);
    EXPECT_DOUBLE_EQ(o.replica.speculation.acceptance, 0.7);
    EXPECT_DOUBLE_EQ(o.replica.speculation.draft_cost, 0.05);
  }
  const std::pair<const char*, const char*> bad[] = {
      {"draft_tokens: 0, acceptance: 70%, draft_cost: 5%", "draft_tokens must be 1 to 16"},
      {"draft_tokens: 4, acceptance: 100%, draft_cost: 5%",
       "acceptance must be at least 0 % and below 100 %"},
      {"draft_tokens: 4, draft_cost: 5%", "serving.speculative.acceptance is required"},
      {"draft_tokens: 4, acceptance: 70%, draft_cost: 5%, drafts: 2", "drafts"}};
  for (const auto& [yaml, message] : bad) {
    std::string t = kPlan;
    t.insert(t.find("  sla:"), std::string("  speculative: {") + yaml + "}\n");
    auto p = load_serving_plan(write("spec_bad.yaml", t), testing::builtin_catalog());
    ASSERT_FALSE(p) << yaml;
    EXPECT_NE(p.error().what().find(message), std::string::npos) << p.error().what();
  }
}

const char* kProfile = R"(  traffic_profile:
    days: 7
  autoscaling:
    cold_start: 4min
)";

// The plan's own fleet: its policy (default static-peak) and a spot share, both over a traffic
// profile; the reactive-with-spot comparison row keeps its own share.
TEST(ServingPlan, ThePlansPolicyAndSpotShare) {
  std::string text = kPlan;
  text.insert(text.find("  sla:"), kProfile);
  auto plan = load_serving_plan(write("fleet.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(plan->policy.kind, serving::PolicyKind::kStaticPeak);
  EXPECT_EQ(plan->policy.name, "static-peak");
  EXPECT_EQ(plan->policy.cold_start_min, 4);
  EXPECT_DOUBLE_EQ(plan->policy.spot_share, 0);
  EXPECT_FALSE(plan->spot_price_given);
  // Without serving.autoscaling.spot_price: data/reliability.yaml serving_spot (40 %, one
  // reclaim per replica every 20 h).
  EXPECT_DOUBLE_EQ(plan->policy.spot_price_ratio, 0.4);
  EXPECT_DOUBLE_EQ(plan->policy.spot_interruptions_per_hour, 0.05);
  text.insert(text.find("    cold_start"), "    policy: reactive\n    spot_price: 30%\n");
  text += "  spot_share: 25%\n";
  plan = load_serving_plan(write("fleet.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_EQ(plan->policy.kind, serving::PolicyKind::kReactive);
  EXPECT_EQ(plan->policy.name, "reactive + 25% spot");
  EXPECT_DOUBLE_EQ(plan->policy.spot_share, 0.25);
  EXPECT_DOUBLE_EQ(plan->policy.spot_price_ratio, 0.3);
  EXPECT_TRUE(plan->spot_price_given);
  EXPECT_DOUBLE_EQ(plan->policies.back().spot_share, 0.5);
}

TEST(ServingPlan, PolicyAndSpotShareNeedATrafficProfile) {
  std::string text = kPlan;
  text.insert(text.find("  sla:"), "  autoscaling:\n    policy: reactive\n");
  auto plan = load_serving_plan(write("fleet_bad.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().what().find("serving.autoscaling.policy needs a serving.traffic_profile"),
            std::string::npos)
      << plan.error().what();
  EXPECT_NE(plan.error().what().find("fleet_bad.yaml:"), std::string::npos);
  plan = load_serving_plan(write("fleet_bad.yaml", kPlan + "  spot_share: 25%\n"),
                           testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().what().find("pricing.spot_share needs a serving.traffic_profile"),
            std::string::npos)
      << plan.error().what();
  text = kPlan;
  text.insert(text.find("  sla:"), std::string(kProfile) + "    policy: elastic\n");
  plan = load_serving_plan(write("fleet_bad.yaml", text), testing::builtin_catalog());
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().what().find(
                "must be static-peak, reactive, scheduled or predictive, got 'elastic'"),
            std::string::npos)
      << plan.error().what();
}

// serving.levers: figures the optimiser's levers may assume, checked like the plan's own.
TEST(ServingPlan, LeverFiguresAreReadAndChecked) {
  std::string text = kPlan;
  text.insert(text.find("  sla:"), R"(  response_cache_cost: 0.5USD/h
  levers:
    prefix_cache_hit: 30%
    response_cache_hit: 8%
    response_cache_cost: 300USD/month
    speculative: {draft_tokens: 3, acceptance: 60%, draft_cost: 4%}
)");
  auto plan = load_serving_plan(write("levers.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  EXPECT_DOUBLE_EQ(*plan->levers.prefix_cache_hit, 0.3);
  EXPECT_DOUBLE_EQ(*plan->levers.response_cache_hit, 0.08);
  EXPECT_NEAR(plan->levers.response_cache_cost->value() * core::kSecondsPerMonth, 300, 1e-9);
  EXPECT_EQ(plan->levers.speculation->draft_tokens, 3);
  EXPECT_NEAR(plan->response_cache_cost.value() * 3600, 0.5, 1e-12);
  // The figures change nothing the estimate prices.
  EXPECT_DOUBLE_EQ(plan->traffic.prefix_cache_hit, 0);
  EXPECT_EQ(plan->options.front().replica.speculation.draft_tokens, 0);
  const std::pair<const char*, const char*> bad[] = {
      {"prefix_cache_hit: 100%",
       "serving.levers.prefix_cache_hit must be at least 0 % and below 100 %"},
      {"speculative: {draft_tokens: 4}", "serving.levers.speculative.acceptance is required"},
      {"response_cache_cost: 300", "has no unit"},
      {"prefix_cahce_hit: 30%", "Did you mean 'prefix_cache_hit'?"}};
  for (const auto& [yaml, message] : bad) {
    std::string t = kPlan;
    t.insert(t.find("  sla:"), std::string("  levers:\n    ") + yaml + "\n");
    auto p = load_serving_plan(write("levers_bad.yaml", t), testing::builtin_catalog());
    ASSERT_FALSE(p) << yaml;
    EXPECT_NE(p.error().what().find(message), std::string::npos) << p.error().what();
  }
}

// Tensor parallelism stays inside one NVLink domain: a rented GH200 (no NVLink peer) serves at
// TP1 only.
TEST(ServingPlan, TensorParallelStaysInsideTheNvlinkDomain) {
  std::string text = kPlan;
  text.replace(text.find("[h100-sxm-80gb, a100-sxm4-80gb]"), 31, "gh200");
  auto plan = load_serving_plan(write("gh200.yaml", text), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  ASSERT_EQ(plan->options.size(), 2u);  // bf16 and fp8, TP1 each
  for (const auto& o : plan->options) EXPECT_EQ(o.replica.tensor_parallel, 1);
}

TEST(ServingPlan, PercentileMustBeAShare) {
  std::string text = kPlan;
  text.replace(text.find("99%"), 3, "100%");
  EXPECT_FALSE(load_serving_plan(write("pct.yaml", text), testing::builtin_catalog()));
}

}  // namespace
}  // namespace aicost::config

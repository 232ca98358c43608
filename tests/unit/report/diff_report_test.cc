#include "aicost/report/diff_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report_fixture.h"

namespace aicost::report {
namespace {

using nlohmann::json;

// Plan b: TP 2 -> 4 (so DP 8 -> 4 and micro-batches 64 -> 128), a dearer GPU price, a faster
// step (8.64 -> 7.2 s: -16.7 %) and a total 10 % higher (50,000 -> 55,000 USD).
std::unique_ptr<testing::Plan> changed(const testing::Plan& a) {
  auto b = std::make_unique<testing::Plan>(a);
  b->job.parallel.tensor = 4;
  b->inputs.compute.basis = "2.50 USD/GPU-h (plan)";
  b->inputs.compute.per_gpu = core::usd_per_hour(2.5);
  b->perf.step_time = core::seconds(7.2);
  b->perf.mfu = 0.54;
  b->cost.lines[0].amount = core::usd(37000);
  b->cost.total = core::usd(55000);
  return b;
}

json find(const json& list, const char* key, const std::string& name) {
  for (const auto& x : list) {
    if (x[key] == name) return x;
  }
  return nullptr;
}

TEST(DiffJson, ListsOnlyTheInputsThatDiffer) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const json j = json::parse(render_diff(a->view("a"), b->view("b"), Format::kJson));
  EXPECT_EQ(j["plans"]["a"], "a");
  EXPECT_EQ(j["plans"]["b"], "b");
  std::vector<std::string> fields;
  for (const auto& x : j["inputs"]) fields.push_back(x["field"]);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"tensor_model_parallel_size", "data_parallel_size",
                                      "micro_batches", "price_basis", "price_per_gpu_hour_usd"}));
  const json tp = find(j["inputs"], "field", "tensor_model_parallel_size");
  EXPECT_EQ(tp["a"], 2);
  EXPECT_EQ(tp["b"], 4);
  EXPECT_EQ(find(j["inputs"], "field", "data_parallel_size")["b"], 4);  // 32 / (4 x 2)
  EXPECT_EQ(find(j["inputs"], "field", "price_basis")["b"], "2.50 USD/GPU-h (plan)");
}

TEST(DiffJson, OutputsCarryDeltaAndRelativeChange) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const json j = json::parse(render_diff(a->view("a"), b->view("b"), Format::kJson));
  const json step = find(j["outputs"], "metric", "training.step_time_s");
  EXPECT_EQ(step["unit"], "s");
  EXPECT_DOUBLE_EQ(step["a"].get<double>(), 8.64);
  EXPECT_DOUBLE_EQ(step["b"].get<double>(), 7.2);
  EXPECT_NEAR(step["delta"].get<double>(), -1.44, 1e-12);
  EXPECT_NEAR(step["relative"].get<double>(), -1.44 / 8.64, 1e-6);  // -16.6667 %
  const json total = find(j["outputs"], "metric", "cost.total_usd");
  EXPECT_DOUBLE_EQ(total["delta"].get<double>(), 5000);
  EXPECT_DOUBLE_EQ(total["relative"].get<double>(), 0.1);
  const json compute = find(j["outputs"], "metric", "cost.categories.compute");
  EXPECT_DOUBLE_EQ(compute["delta"].get<double>(), 5000);  // 32,000 -> 37,000
  const json mfu = find(j["outputs"], "metric", "training.mfu");
  EXPECT_NEAR(mfu["delta"].get<double>(), 0.09, 1e-12);  // a ratio: 0.45 -> 0.54
  // Every metric of the brief is present whether or not it changed.
  for (const char* m : {"training.tokens_per_s_per_gpu", "training.wall_days", "training.gpu_hours",
                        "training.memory.peak_gib", "cost.categories.operations"}) {
    EXPECT_FALSE(find(j["outputs"], "metric", m).is_null()) << m;
  }
}

TEST(DiffJson, ACategoryOnOneSideOnlyCountsAsZeroWithoutRelativeChange) {
  const auto a = testing::make_plan();
  auto b = changed(*a);
  b->cost.lines.push_back({"egress-fees", core::usd(250), "new", costing::CostNature::kElastic,
                           core::UsdPerSecond(0), core::UsdPerSecond(0)});
  const json j = json::parse(render_diff(a->view("a"), b->view("b"), Format::kJson));
  const json extra = find(j["outputs"], "metric", "cost.categories.egress-fees");
  EXPECT_DOUBLE_EQ(extra["a"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(extra["b"].get<double>(), 250);
  EXPECT_TRUE(extra["relative"].is_null());
}

TEST(DiffTable, ShowsInputChangesAsArrowsAndSignedPercentages) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const std::string out = render_diff(a->view("a"), b->view("b"), Format::kTable);
  for (const char* s :
       {"aicost diff: a → b", "tensor_model_parallel_size  2 → 4",
        "data_parallel_size          8 → 4", "-16.7 %", "+10.0 %", "+5,000", "+9.0 pp"}) {
    EXPECT_NE(out.find(s), std::string::npos) << "missing: " << s << "\n" << out;
  }
  // Unchanged inputs are not listed.
  EXPECT_EQ(out.find("pipeline_model_parallel_size"), std::string::npos);
}

TEST(DiffTable, IdenticalPlansHaveNoInputChanges) {
  const auto a = testing::make_plan();
  const std::string out = render_diff(a->view("a"), a->view("b"), Format::kTable);
  EXPECT_NE(out.find("no input changed"), std::string::npos) << out;
  const json j = json::parse(render_diff(a->view("a"), a->view("b"), Format::kJson));
  EXPECT_TRUE(j["inputs"].empty());
  for (const auto& o : j["outputs"]) EXPECT_DOUBLE_EQ(o["delta"].get<double>(), 0) << o["metric"];
}

TEST(DiffCsv, HasInputAndOutputRows) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const std::string out = render_diff(a->view("a"), b->view("b"), Format::kCsv);
  EXPECT_EQ(out.substr(0, out.find('\n')), "kind,name,a,b,delta,relative");
  EXPECT_NE(out.find("\ninput,tensor_model_parallel_size,2,4,,\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\noutput,cost.total_usd,50000.0,55000.0,5000.0,0.1\n"), std::string::npos);
}

TEST(DiffMarkdown, HasInputsAndOutputsTables) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const std::string out = render_diff(a->view("a"), b->view("b"), Format::kMarkdown);
  EXPECT_NE(out.find("## Inputs\n\n| field | a → b |\n| --- | --- |\n"), std::string::npos) << out;
  EXPECT_NE(out.find("| metric | a | b | change | relative |\n| --- | --: | --: | --: | --: |\n"),
            std::string::npos);
}

TEST(Diff, IncompleteViewRendersNothing) {
  const auto a = testing::make_plan();
  EXPECT_EQ(render_diff(a->view("a"), EstimateView{}, Format::kJson), "");
}

}  // namespace
}  // namespace aicost::report

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

// The files' values: a sets TP 2 and keeps the default checkpoint interval; b sets TP 4, a
// 30-minute checkpoint interval, and three engineers where a has two.
const PlanValues kA = {{"parallelism.tensor_model_parallel_size", "2"},
                       {"operations.engineers", "2"}};
const PlanValues kB = {{"parallelism.tensor_model_parallel_size", "4"},
                       {"operations.engineers", "3"},
                       {"storage.checkpoint_interval", "30min"}};

std::string diff_of(const EstimateView& a, const EstimateView& b, Format f) {
  return render_diff(a, kA, b, kB, f);
}

json find(const json& list, const char* key, const std::string& name) {
  for (const auto& x : list) {
    if (x[key] == name) return x;
  }
  return nullptr;
}

TEST(DiffJson, ListsEveryFileValueThatDiffersWithItsPath) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const json j = json::parse(diff_of(a->view("a"), b->view("b"), Format::kJson));
  EXPECT_EQ(j["kind"], "training");
  EXPECT_EQ(j["plans"]["a"], "a");
  EXPECT_EQ(j["plans"]["b"], "b");
  // a's order, then what only b sets (null on a's side).
  EXPECT_EQ(j["inputs"], json::parse(R"([
      {"path": "parallelism.tensor_model_parallel_size", "a": "2", "b": "4"},
      {"path": "operations.engineers", "a": "2", "b": "3"},
      {"path": "storage.checkpoint_interval", "a": null, "b": "30min"}])"));
}

TEST(DiffJson, ResolvedListsOnlyTheDerivedValuesThatDiffer) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  // Without the files' values (a plan given inline), every resolved field that differs.
  const json j = json::parse(render_diff(a->view("a"), {}, b->view("b"), {}, Format::kJson));
  EXPECT_TRUE(j["inputs"].empty());
  std::vector<std::string> fields;
  for (const auto& x : j["resolved"]) fields.push_back(x["field"]);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"tensor_model_parallel_size", "data_parallel_size",
                                      "micro_batches", "price_basis", "price_per_gpu_hour_usd"}));
  const json tp = find(j["resolved"], "field", "tensor_model_parallel_size");
  EXPECT_EQ(tp["a"], 2);
  EXPECT_EQ(tp["b"], 4);
  EXPECT_EQ(find(j["resolved"], "field", "data_parallel_size")["b"], 4);  // 32 / (4 x 2)
  EXPECT_EQ(find(j["resolved"], "field", "price_basis")["b"], "2.50 USD/GPU-h (plan)");
}

TEST(DiffJson, AResolvedFieldAnInputShowsWithTheSameValuesIsListedOnce) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  // parallelism.tensor_model_parallel_size "2" -> "4" is the resolved 2 -> 4: only the input.
  const json j = json::parse(diff_of(a->view("a"), b->view("b"), Format::kJson));
  EXPECT_TRUE(find(j["resolved"], "field", "tensor_model_parallel_size").is_null())
      << j["resolved"];
  EXPECT_FALSE(find(j["resolved"], "field", "data_parallel_size").is_null());
  // A file value that differs from what it resolves to keeps both (here "two" is not 2).
  const PlanValues odd = {{"parallelism.tensor_model_parallel_size", "two"}};
  const json k = json::parse(render_diff(a->view("a"), odd, b->view("b"), kB, Format::kJson));
  EXPECT_FALSE(find(k["resolved"], "field", "tensor_model_parallel_size").is_null());
}

TEST(DiffJson, OutputsCarryDeltaAndRelativeChange) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const json j = json::parse(diff_of(a->view("a"), b->view("b"), Format::kJson));
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
  b->cost.lines.push_back({"egress-fees", core::usd(250), costing::CostNature::kElastic,
                           core::UsdPerSecond(0), core::UsdPerSecond(0)});
  const json j = json::parse(diff_of(a->view("a"), b->view("b"), Format::kJson));
  const json extra = find(j["outputs"], "metric", "cost.categories.egress-fees");
  EXPECT_DOUBLE_EQ(extra["a"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(extra["b"].get<double>(), 250);
  EXPECT_TRUE(extra["relative"].is_null());
}

TEST(DiffTable, ShowsInputChangesAsArrowsAndSignedPercentages) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const std::string out = diff_of(a->view("a"), b->view("b"), Format::kTable);
  for (const char* s :
       {"aicost diff: a → b", "Inputs\n  parallelism.tensor_model_parallel_size  2 → 4\n",
        "  storage.checkpoint_interval             not set → 30min\n",
        "Resolved\n  data_parallel_size      8 → 4\n", "-16.7 %", "+10.0 %", "+5,000", "+9.0 pp"}) {
    EXPECT_NE(out.find(s), std::string::npos) << "missing: " << s << "\n" << out;
  }
  // Unchanged values are not listed.
  EXPECT_EQ(out.find("pipeline_model_parallel_size"), std::string::npos);
}

TEST(DiffTable, IdenticalPlansHaveNoInputChanges) {
  const auto a = testing::make_plan();
  const std::string out = render_diff(a->view("a"), kA, a->view("b"), kA, Format::kTable);
  EXPECT_NE(out.find("no input changed"), std::string::npos) << out;
  EXPECT_EQ(out.find("Resolved"), std::string::npos) << out;
  const json j = json::parse(render_diff(a->view("a"), kA, a->view("b"), kA, Format::kJson));
  EXPECT_TRUE(j["inputs"].empty());
  EXPECT_TRUE(j["resolved"].empty());
  for (const auto& o : j["outputs"]) EXPECT_DOUBLE_EQ(o["delta"].get<double>(), 0) << o["metric"];
}

TEST(DiffCsv, HasInputAndOutputRows) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const std::string out = diff_of(a->view("a"), b->view("b"), Format::kCsv);
  EXPECT_EQ(out.substr(0, out.find('\n')), "kind,name,a,b,delta,relative");
  EXPECT_NE(out.find("\ninput,parallelism.tensor_model_parallel_size,2,4,,\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\ninput,storage.checkpoint_interval,,30min,,\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nresolved,data_parallel_size,8,4,,\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\noutput,cost.total_usd,50000.0,55000.0,5000.0,0.1\n"), std::string::npos);
}

TEST(DiffMarkdown, HasInputsAndOutputsTables) {
  const auto a = testing::make_plan();
  const auto b = changed(*a);
  const std::string out = diff_of(a->view("a"), b->view("b"), Format::kMarkdown);
  EXPECT_NE(out.find("## Inputs\n\n| path | a → b |\n| --- | --- |\n"), std::string::npos) << out;
  EXPECT_NE(out.find("## Resolved\n\n| field | a → b |\n| --- | --- |\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("| metric | a | b | change | relative |\n| --- | --: | --: | --: | --: |\n"),
            std::string::npos);
}

TEST(Diff, IncompleteViewRendersNothing) {
  const auto a = testing::make_plan();
  EXPECT_EQ(render_diff(a->view("a"), kA, EstimateView{}, kB, Format::kJson), "");
}

}  // namespace
}  // namespace aicost::report

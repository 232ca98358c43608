#include "aicost/report/estimate_report.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "report_fixture.h"

namespace aicost::report {
namespace {

using nlohmann::json;

json estimate(const EstimateView& v) { return json::parse(render_estimate(v, Format::kJson)); }

TEST(EstimateJson, HasEveryDocumentedKey) {
  const auto plan = testing::make_plan();
  const json j = estimate(plan->view("demo"));
  const char* keys[] = {
      "/schema_version",
      "/plan",
      "/model/id",
      "/model/params",
      "/model/active_params",
      "/model/layers",
      "/model/hidden",
      "/cluster/gpu",
      "/cluster/gpus",
      "/cluster/gpus_per_node",
      "/parallelism/tensor_model_parallel_size",
      "/parallelism/pipeline_model_parallel_size",
      "/parallelism/virtual_pipeline_model_parallel_size",
      "/parallelism/context_parallel_size",
      "/parallelism/expert_model_parallel_size",
      "/parallelism/data_parallel_size",
      "/parallelism/micro_batch_size",
      "/parallelism/micro_batches",
      "/parallelism/sequence_parallel",
      "/parallelism/recompute_granularity",
      "/parallelism/optimizer_sharding",
      "/training/step_time_s",
      "/training/step_breakdown_s/compute",
      "/training/step_breakdown_s/recompute",
      "/training/step_breakdown_s/tp_comm",
      "/training/step_breakdown_s/cp_comm",
      "/training/step_breakdown_s/ep_comm",
      "/training/step_breakdown_s/pp_comm",
      "/training/step_breakdown_s/bubble",
      "/training/step_breakdown_s/dp_comm",
      "/training/step_breakdown_s/optimizer",
      "/training/tokens_per_s",
      "/training/tokens_per_s_per_gpu",
      "/training/mfu",
      "/training/hfu",
      "/training/flop_convention",
      "/training/peak_precision",
      "/training/peak_tflops_per_gpu",
      "/training/tflops_per_gpu",
      "/training/steps",
      "/training/wall_days",
      "/training/compute_days",
      "/training/gpu_hours",
      "/training/goodput",
      "/training/memory/weights_gib",
      "/training/memory/gradients_gib",
      "/training/memory/optimizer_gib",
      "/training/memory/activations_gib",
      "/training/memory/logits_gib",
      "/training/memory/overhead_gib",
      "/training/memory/peak_gib",
      "/training/memory/capacity_gib",
      "/training/memory/fits",
      "/reliability/job_mtbf_h",
      "/reliability/checkpoint_interval_min",
      "/reliability/checkpoint_blocking_s",
      "/reliability/checkpoint_size_gb",
      "/reliability/expected_interruptions",
      "/cost/total_usd",
      "/cost/per_million_tokens_usd",
      "/cost/fixed_usd",
      "/cost/elastic_usd",
      "/cost/peak_storage_gb",
      "/cost/categories",
      "/cost/lines",
      "/warnings",
  };
  for (const char* k : keys) EXPECT_TRUE(j.contains(json::json_pointer(k))) << k;
  for (const auto& line : j["cost"]["lines"]) {
    for (const char* k : {"category", "usd", "share", "nature", "driver", "average_usd_per_month",
                          "peak_usd_per_month"}) {
      EXPECT_TRUE(line.contains(k)) << k;
    }
  }
}

TEST(EstimateJson, EchoesModelClusterAndParallelism) {
  const auto plan = testing::make_plan();
  const json j = estimate(plan->view("demo"));
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["plan"], "demo");
  EXPECT_EQ(j["model"]["id"], "tiny");
  // A parameter count is an integer, not a float and not in billions (see report_fixture.h).
  EXPECT_TRUE(j["model"]["params"].is_number_integer());
  EXPECT_EQ(j["model"]["params"], 226624);
  EXPECT_EQ(j["model"]["active_params"], 226624);
  EXPECT_EQ(j["model"]["layers"], 2);
  EXPECT_EQ(j["model"]["hidden"], 64);
  EXPECT_EQ(j["cluster"]["gpu"], "test-gpu");
  EXPECT_EQ(j["cluster"]["gpus"], 32);
  EXPECT_EQ(j["cluster"]["gpus_per_node"], 8);
  const auto& par = j["parallelism"];
  EXPECT_EQ(par["tensor_model_parallel_size"], 2);
  EXPECT_EQ(par["pipeline_model_parallel_size"], 2);
  EXPECT_EQ(par["data_parallel_size"], 8);  // 32 / (2 x 2)
  EXPECT_EQ(par["micro_batches"], 64);      // 512 / (8 x 1)
  EXPECT_EQ(par["sequence_parallel"], true);
  EXPECT_EQ(par["recompute_granularity"], "selective");
  EXPECT_EQ(par["optimizer_sharding"], "zero1");
  EXPECT_EQ(j["workload"]["tokens"], 10485760000);  // exact, not rounded to 6 digits
}

TEST(EstimateJson, TrainingFiguresAreInSecondsDaysRatiosAndTflops) {
  const auto plan = testing::make_plan();
  const json t = estimate(plan->view("demo"))["training"];
  EXPECT_DOUBLE_EQ(t["step_time_s"].get<double>(), 8.64);
  EXPECT_DOUBLE_EQ(t["step_breakdown_s"]["bubble"].get<double>(), 0.864);
  EXPECT_DOUBLE_EQ(t["step_breakdown_s"]["cp_comm"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(t["tokens_per_s"].get<double>(), 121363);
  EXPECT_DOUBLE_EQ(t["tokens_per_s_per_gpu"].get<double>(), 3792.6);
  EXPECT_DOUBLE_EQ(t["mfu"].get<double>(), 0.45);  // a ratio, not 45
  EXPECT_DOUBLE_EQ(t["hfu"].get<double>(), 0.5);
  EXPECT_EQ(t["flop_convention"], "megatron-causal: 3x forward, causal attention halved");
  EXPECT_EQ(t["peak_precision"], "bf16");
  EXPECT_DOUBLE_EQ(t["peak_tflops_per_gpu"].get<double>(), 1000);  // 1e15 FLOP/s
  EXPECT_DOUBLE_EQ(t["tflops_per_gpu"].get<double>(), 450);
  EXPECT_DOUBLE_EQ(t["steps"].get<double>(), 10000);
  EXPECT_DOUBLE_EQ(t["compute_days"].get<double>(), 1.0);  // perf compute_time 86,400 s
  EXPECT_DOUBLE_EQ(t["wall_days"].get<double>(), 1.25);    // cost wall_time, with failures
  EXPECT_DOUBLE_EQ(t["gpu_hours"].get<double>(), 960);     // cost gpu_hours, with failures
  EXPECT_DOUBLE_EQ(t["goodput"].get<double>(), 0.8);
  const auto& m = t["memory"];
  EXPECT_DOUBLE_EQ(m["weights_gib"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(m["activations_gib"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(m["peak_gib"].get<double>(), 65);  // 10 + 5 + 15 + 30 + 2 + 3
  EXPECT_DOUBLE_EQ(m["capacity_gib"].get<double>(), 80);
  EXPECT_EQ(m["fits"], true);
}

TEST(EstimateJson, ReliabilityInHoursMinutesSecondsAndGigabytes) {
  const auto plan = testing::make_plan();
  const json r = estimate(plan->view("demo"))["reliability"];
  EXPECT_DOUBLE_EQ(r["job_mtbf_h"].get<double>(), 12);
  EXPECT_DOUBLE_EQ(r["checkpoint_interval_min"].get<double>(), 30);  // 1,800 s
  EXPECT_DOUBLE_EQ(r["checkpoint_blocking_s"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(r["checkpoint_size_gb"].get<double>(), 3.2);  // SI: 3.2e9 B
  EXPECT_DOUBLE_EQ(r["expected_interruptions"].get<double>(), 2.5);
}

TEST(EstimateJson, CostLinesCategoriesAndMonthlyRates) {
  const auto plan = testing::make_plan();
  const json c = estimate(plan->view("demo"))["cost"];
  EXPECT_DOUBLE_EQ(c["total_usd"].get<double>(), 50000);
  EXPECT_DOUBLE_EQ(c["fixed_usd"].get<double>(), 13500);
  EXPECT_DOUBLE_EQ(c["elastic_usd"].get<double>(), 36500);
  EXPECT_DOUBLE_EQ(c["per_million_tokens_usd"].get<double>(), 4.77);  // 4.768 to cents
  EXPECT_DOUBLE_EQ(c["peak_storage_gb"].get<double>(), 1500);
  EXPECT_EQ(c["price_basis"], "2.00 USD/GPU-h (plan)");
  EXPECT_EQ(c["categories"].size(), 9u);
  EXPECT_DOUBLE_EQ(c["categories"]["operations"].get<double>(), 8000);
  const auto& compute = c["lines"][0];
  EXPECT_EQ(compute["category"], "compute");
  EXPECT_DOUBLE_EQ(compute["usd"].get<double>(), 32000);
  EXPECT_DOUBLE_EQ(compute["share"].get<double>(), 0.64);
  EXPECT_EQ(compute["nature"], "elastic");
  EXPECT_EQ(compute["driver"], "768 GPU-h x 2.00 USD/GPU-h (plan)");
  // 100 USD/h x 730 h = 73,000; peak 128 USD/h x 730 h = 93,440.
  EXPECT_DOUBLE_EQ(compute["average_usd_per_month"].get<double>(), 73000);
  EXPECT_DOUBLE_EQ(compute["peak_usd_per_month"].get<double>(), 93440);
  EXPECT_EQ(c["lines"][4]["nature"], "fixed");  // database
}

TEST(EstimateJson, DriversAreWordedFromTheInputsAndTheOtherLines) {
  auto plan = testing::make_plan();
  plan->inputs.services.database = core::usd_per_hour(1);  // 730 USD a month of 730 h
  const json c = json::parse(render_estimate_json(plan->view("demo")))["cost"];
  // 1.25 days of 730-hour months: 30 h / 730 h = 0.041 months.
  EXPECT_EQ(c["lines"][4]["driver"], "730 USD/month x 0.04 months");
  // The default contingency (10 %) of the eight lines before it: 50,000 - 4,500 = 45,500 USD.
  EXPECT_EQ(c["lines"][8]["driver"], "10% of 45,500 USD");
  // A view without the plan's inputs has no words for them.
  auto bare = plan->view("demo");
  bare.inputs = nullptr;
  EXPECT_EQ(json::parse(render_estimate_json(bare))["cost"]["lines"][0]["driver"], "");
}

TEST(EstimateJson, MoneyIsRoundedToCents) {
  auto plan = testing::make_plan();
  plan->cost.lines[0].amount = core::usd(1234.5678);
  plan->cost.total = core::usd(98765.4321);
  const json c = estimate(plan->view("demo"))["cost"];
  EXPECT_DOUBLE_EQ(c["lines"][0]["usd"].get<double>(), 1234.57);
  EXPECT_DOUBLE_EQ(c["total_usd"].get<double>(), 98765.43);
}

TEST(EstimateJson, SharesAddUpToOne) {
  const auto plan = testing::make_plan();
  const json c = estimate(plan->view("demo"))["cost"];
  double sum = 0;
  for (const auto& l : c["lines"]) sum += l["share"].get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

TEST(EstimateJson, WarningsMergeViewPerfAndCostOnceEach) {
  const auto plan = testing::make_plan();
  const json w = estimate(plan->view("demo"))["warnings"];
  // "shared warning" is in both the view and perf; it is listed once, where it first appears.
  EXPECT_EQ(w, json::parse(R"(["view warning", "shared warning", "memory is 81 % full",
                                "no operations section: people cost is not included"])"));
}

TEST(EstimateJson, WithoutCostInputsThePriceBasisIsNull) {
  const auto plan = testing::make_plan();
  EstimateView v = plan->view("demo");
  v.inputs = nullptr;
  EXPECT_TRUE(estimate(v)["cost"]["price_basis"].is_null());
}

TEST(EstimateTable, ShowsHeaderSectionsAndCostLines) {
  const auto plan = testing::make_plan();
  const std::string out = render_estimate(plan->view("demo"), Format::kTable);
  for (const char* s : {"aicost estimate: demo", "32 x test-gpu (8 per node)", "\nPerformance\n",
                        "\nMemory per GPU\n", "\nCost\n", "MFU                          45.0 %",
                        "HFU                          50.0 %", "450.0 of 1000.0 peak (bf16)",
                        "65.0 GiB of 80.0 GiB (fits)", "bubble       0.864         10.0 %",
                        "a month is 730 hours", "total          50,000 USD",
                        "per 1M tokens  4.77 USD", "fixed          13,500 USD (27.0 %)",
                        "compute      32,000  64.0 %     73,000  elastic  768 GPU-h"}) {
    EXPECT_NE(out.find(s), std::string::npos) << "missing: " << s << "\n" << out;
  }
  // Warnings leave the table (the command prints them on standard error); Markdown keeps them.
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;
  const auto view = plan->view("demo");
  const auto warnings = collect_warnings(view);
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), "memory is 81 % full"), warnings.end());
  EXPECT_NE(render_estimate(view, Format::kMarkdown).find("\n- warning: memory is 81 % full\n"),
            std::string::npos);
  EXPECT_EQ(out.find('\t'), std::string::npos);
  EXPECT_EQ(out.back(), '\n');
  EXPECT_NE(out.substr(out.size() - 2), "\n\n");
}

TEST(EstimateTable, CostSharesAddUpToOneHundredPercent) {
  const auto plan = testing::make_plan();
  const std::string out = render_estimate(plan->view("demo"), Format::kTable);
  // Cost rows: "<category>  <usd>  <share> %  <usd/month>  fixed|elastic  <driver>".
  const std::regex row(R"(^  [a-z]+ +[0-9,]+ +([0-9.]+) % +[0-9,]+ +(fixed|elastic) )");
  double sum = 0;
  int rows = 0;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) {
      sum += std::atof(m[1].str().c_str());
      ++rows;
    }
  }
  EXPECT_EQ(rows, 9);
  EXPECT_NEAR(sum, 100.0, 0.05 * rows);  // each share is rounded to 0.1 %
}

TEST(EstimateTable, SaysWhenMemoryDoesNotFit) {
  auto plan = testing::make_plan();
  plan->perf.memory.activations = core::gib(70);  // 10 + 5 + 15 + 70 + 2 + 3 = 105 GiB
  const std::string out = render_estimate(plan->view("demo"), Format::kTable);
  EXPECT_NE(out.find("105.0 GiB of 80.0 GiB (does not fit)"), std::string::npos) << out;
  EXPECT_EQ(estimate(plan->view("demo"))["training"]["memory"]["fits"], false);
}

TEST(EstimateMarkdown, HasTheSameSectionsAsPipeTables) {
  const auto plan = testing::make_plan();
  const std::string out = render_estimate(plan->view("demo"), Format::kMarkdown);
  for (const char* s : {"# aicost estimate: demo\n", "## Performance\n", "## Memory per GPU\n",
                        "## Cost\n", "| category | USD | share | USD/month | nature | driver |\n",
                        "| --- | --: | --: | --: | --- | --- |\n",
                        "| compute | 32,000 | 64.0 % | 73,000 | elastic |",
                        "- a month is 730 hours", "- warning: view warning\n"}) {
    EXPECT_NE(out.find(s), std::string::npos) << "missing: " << s << "\n" << out;
  }
}

TEST(EstimateCsv, OneRowPerCostLinePlusSummaryRows) {
  const auto plan = testing::make_plan();
  const std::string out = render_estimate(plan->view("demo"), Format::kCsv);
  EXPECT_EQ(out.substr(0, out.find('\n')), "record,name,value,unit,share,nature,detail");
  EXPECT_NE(out.find("\ncost,compute,32000.0,USD,0.64,elastic,768 GPU-h x 2.00 USD/GPU-h (plan)\n"),
            std::string::npos)
      << out;
  // A driver with a comma and quotes (the storage line ends with the fixture's tier note) is
  // quoted per RFC 4180.
  const std::string storage = "\ncost,storage,1200.0,USD,0.024,elastic,\"dataset ";
  const auto at = out.find(storage);
  ASSERT_NE(at, std::string::npos) << out;
  const std::string line = out.substr(at + 1, out.find('\n', at + 1) - at - 1);
  EXPECT_TRUE(line.ends_with("; \"\"hot\"\" tier, list price\"")) << line;
  EXPECT_NE(out.find("\nsummary,total,50000.0,USD,1,,\n"), std::string::npos);
  EXPECT_NE(out.find("\nsummary,mfu,0.45,ratio,,,\n"), std::string::npos);
  EXPECT_NE(out.find("\nsummary,wall_days,1.25,d,,,\n"), std::string::npos);
  EXPECT_NE(out.find("\nwarning,,,,,,view warning\n"), std::string::npos);
}

TEST(Estimate, IncompleteViewRendersNothing) {
  const EstimateView empty;
  EXPECT_EQ(render_estimate(empty, Format::kTable), "");
  EXPECT_EQ(render_estimate_json(empty), "");
}

}  // namespace
}  // namespace aicost::report

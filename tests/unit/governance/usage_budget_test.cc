// Usage without a bill (docs/LEDGER.md, "Usage without a bill"): Slurm accounting priced by a
// rate card and an OpenCost export go into one ledger, where a GPU-hour budget per Slurm account
// counts GPU-hours and a money budget counts the priced cost; a file with a GPU type the card does
// not price loads nothing.
#include <gtest/gtest.h>

#include "aicost/billing/ingest.h"
#include "aicost/config/budgets.h"
#include "aicost/config/catalog_loader.h"
#include "aicost/config/rate_card.h"
#include "aicost/governance/check.h"
#include "store/backends.h"
#include "temp_dir.h"

namespace aicost::governance {
namespace {

// Two llm jobs (8 H100 x 2 h; 4 H100 x 30 min) and a vision job (2 A100 x 3 h), steps included.
const char* kSacct =
    "JobID|User|Account|Partition|Start|End|Elapsed|AllocTRES|State\n"
    "11|ana|llm|h100|2025-06-02T08:00:00|2025-06-02T10:00:00|02:00:00|cpu=64,gres/gpu:h100=8,gres/"
    "gpu=8|COMPLETED\n"
    "11.batch||llm||2025-06-02T08:00:00|2025-06-02T10:00:00|02:00:00|cpu=64,gres/gpu:h100=8,gres/"
    "gpu=8|COMPLETED\n"
    "12|bo|llm|h100|2025-06-03T08:00:00|2025-06-03T08:30:00|00:30:00|cpu=32,gres/gpu:h100=4,gres/"
    "gpu=4|COMPLETED\n"
    "12.0||llm||2025-06-03T08:00:00|2025-06-03T08:30:00|00:30:00|cpu=32,gres/gpu:h100=4,gres/"
    "gpu=4|COMPLETED\n"
    "13|chen|vision|a100|2025-06-03T00:00:00|2025-06-03T03:00:00|03:00:00|cpu=16,gres/"
    "gpu:a100=2,gres/gpu=2|COMPLETED\n";

// One namespace on one day, 1 GPU all day (24 GPU-hours), 30 USD.
const char* kOpenCost =
    "Date,Namespace,ControllerKind,ControllerName,Pod,Container,GPUs,GPUCost,TotalCost\n"
    "2025-06-03,serve,Deployment,vllm,vllm-0,vllm,1,22.8,30\n";

class UsageLedger : public aicost::testing::BackendTest {
 protected:
  core::Result<billing::IngestResult> ingest(const std::string& name, const std::string& text,
                                             const ledger::RateCard* card) {
    billing::IngestOptions o;
    o.rate_card = card;
    return billing::ingest_file(store(), dir_.write(name, text), o);
  }
  ledger::RateCard card(const std::string& yaml) {
    auto cat = config::load_builtin_catalog();
    EXPECT_TRUE(cat) << cat.error().what();
    auto c = config::parse_rate_card(yaml, "rates.yaml", *cat);
    EXPECT_TRUE(c) << c.error().what();
    return c ? *c : ledger::RateCard{};
  }
  aicost::testing::TempDir dir_{"aicost-usage"};
};

TEST_P(UsageLedger, AnUnpricedGpuTypeLoadsNothingAndNamesTheCard) {
  auto none = ingest("sacct.txt", kSacct, nullptr);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("give a rate card with --rate-card FILE"), std::string::npos);
  const auto h100_only = card("gpus:\n  h100: 2.10USD/h\n");
  auto partial = ingest("sacct.txt", kSacct, &h100_only);
  ASSERT_FALSE(partial);
  EXPECT_NE(partial.error().message.find(
                "no rate for GPU type a100 in rates.yaml: add it as `a100: <price>USD/h`"),
            std::string::npos)
      << partial.error().message;
  auto sources = store().sources();
  ASSERT_TRUE(sources) << sources.error().what();
  EXPECT_TRUE(sources->empty());
}

TEST_P(UsageLedger, GpuHourBudgetsPerAccountAndMoneyBudgetsJoin) {
  const auto rates = card("gpus:\n  h100: 2.10USD/h\n  a100: 1.29USD/h\n");
  auto slurm = ingest("sacct.txt", kSacct, &rates);
  ASSERT_TRUE(slurm) << slurm.error().what();
  EXPECT_EQ(slurm->record.rows, 3);
  auto k8s = ingest("opencost.csv", kOpenCost, nullptr);
  ASSERT_TRUE(k8s) << k8s.error().what();

  const auto path =
      dir_.write("budgets.yaml",
                 "budgets:\n"
                 "  - {name: llm, amount: 20 GPU-h, scope: {tag:account: llm}}\n"
                 "  - {name: vision, amount: 100 GPU-h, scope: {tag:account: vision}}\n"
                 "  - {name: all-gpu, amount: 1000 GPU-h}\n"
                 "  - {name: cluster, amount: 1000 USD}\n");
  auto file = config::load_budgets(path);
  ASSERT_TRUE(file) << file.error().what();
  file->options.as_of = ledger::days_from_civil(2025, 6, 4);
  auto r = run_check(store(), file->budgets, file->options, {});
  ASSERT_TRUE(r) << r.error().what();
  std::map<std::string, const BudgetResult*> by_name;
  for (const auto& b : r->budgets) by_name[b.budget.name] = &b;
  ASSERT_EQ(by_name.size(), 4u);
  // llm: 8 x 2 h + 4 x 0.5 h = 18 GPU-hours of 20: 90 %, red.
  EXPECT_EQ(by_name["llm"]->status.spent, 18'000'000'000);
  EXPECT_EQ(by_name["llm"]->budget.currency, "GPU-h");
  EXPECT_EQ(by_name["llm"]
                ->budget.levels[static_cast<std::size_t>(by_name["llm"]->status.actual_level)]
                .name,
            "red");
  EXPECT_EQ(by_name["vision"]->status.spent, 6'000'000'000);  // 2 x 3 h
  // Every row with GPU-hours, whatever it came from: 18 + 6 + 24 (OpenCost).
  EXPECT_EQ(by_name["all-gpu"]->status.spent, 48'000'000'000);
  // Money: 18 x 2.10 + 6 x 1.29 + 30 = 75.54 USD, exact.
  EXPECT_EQ(by_name["cluster"]->status.spent, 75'540'000'000);
}

// An idle allocation: a job holds one H100 on gpu-h07 for 6 hours (NodeList), and the node's
// telemetry reads SM_ACTIVE 0 all that time. The waste scan finds the idle GPU on that host and
// prices it at the job's rate: 6 idle GPU-hours of 6 observed hours x 2.10 USD x 720 h a month
// = 1512 USD (waste.h, idle_gpus).
TEST_P(UsageLedger, AnIdleAllocationIsWastePricedAtItsRate) {
  const auto rates = card("gpus:\n  h100: 2.10USD/h\n");
  auto slurm = ingest("sacct.txt",
                      "JobID|Account|Start|Elapsed|AllocTRES|NodeList\n"
                      "21|llm|2025-06-02T00:00:00|06:00:00|gres/gpu:h100=1,gres/gpu=1|gpu-h07\n",
                      &rates);
  ASSERT_TRUE(slurm) << slurm.error().what();
  std::string prom = "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\n";
  for (int h = 0; h < 6; ++h)
    prom += "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-7\",Hostname=\"gpu-h07\"} 0 " +
            std::to_string((1748822400LL + h * 3600LL) * 1000) + "\n";  // 2025-06-02T00:00Z + h
  auto telemetry = ingest("dcgm.prom", prom, nullptr);
  ASSERT_TRUE(telemetry) << telemetry.error().what();
  CheckOptions o;
  o.as_of = ledger::days_from_civil(2025, 6, 4);
  auto r = run_check(store(), {}, o, {});
  ASSERT_TRUE(r) << r.error().what();
  const WasteFinding* idle = nullptr;
  for (const auto& w : r->waste)
    if (w.finding.kind == WasteKind::kIdleGpu) idle = &w.finding;
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->subject, "gpu-h07");
  EXPECT_EQ(idle->currency, "USD");
  EXPECT_NEAR(idle->monthly_saving, 1512.0, 1e-6);
}

// The same on OpenShift: koku's GPU report of a pod on one H100 of node gpu-n07 for 6 hours
// (gpu_pod_uptime 3600 s each hour), the node's SM_ACTIVE 0 all that time. The rows are 6
// GPU-hours, which a GPU-hour budget of the namespace counts, and the idle GPU is a waste finding
// on the node, priced at the card's rate: 6 x 2.10 USD x 720 / 6 = 1512 USD a month.
TEST_P(UsageLedger, OpenShiftGpuRowsJoinGpuHourBudgetsAndTheIdleAllocationScan) {
  const auto rates = card("gpus:\n  nvidia h100 80gb hbm3: 2.10USD/h\n");
  std::string gpu =
      "report_period_start,report_period_end,interval_start,interval_end,node,namespace,pod,gpu_"
      "uuid,"
      "gpu_model_name,gpu_vendor_name,gpu_memory_capacity_mib,gpu_pod_uptime\n";
  for (int h = 0; h < 6; ++h)
    gpu += "2025-06-01 00:00:00 +0000 UTC,2025-07-01 00:00:00 +0000 UTC,2025-06-02 0" +
           std::to_string(h) + ":00:00 +0000 UTC,2025-06-02 0" + std::to_string(h) +
           ":59:59 +0000 UTC,gpu-n07,llm,train-0,GPU-7,NVIDIA H100 80GB HBM3,nvidia0,81559,3600\n";
  auto ocp = ingest("gpu_usage.csv", gpu, &rates);
  ASSERT_TRUE(ocp) << ocp.error().what();
  EXPECT_EQ(ocp->record.rows, 6);
  std::string prom = "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\n";
  for (int h = 0; h < 6; ++h)
    prom += "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-7\",Hostname=\"gpu-n07\"} 0 " +
            std::to_string((1748822400LL + h * 3600LL) * 1000) + "\n";  // 2025-06-02T00:00Z + h
  auto telemetry = ingest("dcgm.prom", prom, nullptr);
  ASSERT_TRUE(telemetry) << telemetry.error().what();
  const auto path = dir_.write(
      "budgets.yaml", "budgets:\n  - {name: llm, amount: 10 GPU-h, scope: {tag:namespace: llm}}\n");
  auto file = config::load_budgets(path);
  ASSERT_TRUE(file) << file.error().what();
  file->options.as_of = ledger::days_from_civil(2025, 6, 4);
  auto r = run_check(store(), file->budgets, file->options, {});
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->budgets.size(), 1u);
  EXPECT_EQ(r->budgets[0].status.spent, 6'000'000'000);
  const WasteFinding* idle = nullptr;
  for (const auto& w : r->waste)
    if (w.finding.kind == WasteKind::kIdleGpu) idle = &w.finding;
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->subject, "gpu-n07");
  EXPECT_EQ(idle->currency, "USD");
  EXPECT_NEAR(idle->monthly_saving, 1512.0, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Backends, UsageLedger, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost::governance

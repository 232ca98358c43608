// The optimiser end to end on real plans: every lever's saving is the difference of two
// estimates the test makes itself (the plan edited by hand,
// tests/unit/optimize/optimize_support.h), the combined plan is one estimate and not a sum, levers
// that do not apply or cannot be priced say why.
#include "aicost/optimize/optimize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "aicost/reliability/analysis.h"
#include "aicost/search/search.h"
#include "optimize_support.h"
#include "temp_dir.h"

namespace aicost::optimize {
namespace {

using testing::as_map;
using testing::estimate_total;
using testing::hand_edit;
using testing::lever;
using testing::run_optimize;
using testing::source_path;

const char* kGpt3 = "examples/gpt3-175b-a100.yaml";
const char* kDeepseek = "examples/deepseek-v3-h800.yaml";
const char* kH100 = "tests/plans/optimize-llama3-8b-h100.yaml";

const OptimizeResult& result(const std::string& plan) { return testing::cached_optimize(plan); }

// Applies a change to the plan text by hand, key by key; Megatron's use_distributed_optimizer
// is another spelling of optimizer_sharding and goes when that is set.
std::string apply_by_hand(std::string text, const Change& c) {
  for (const auto& e : c) {
    const auto dot = e.key.find('.');
    const std::string section = dot == std::string::npos ? "" : e.key.substr(0, dot);
    const std::string key = dot == std::string::npos ? e.key : e.key.substr(dot + 1);
    text = hand_edit(text, section, key, e.value);
    if (e.key == "parallelism.optimizer_sharding") {
      text = hand_edit(text, "parallelism", "use_distributed_optimizer", std::nullopt);
    }
  }
  return text;
}

void expect_saving_is_difference(const std::string& plan, const LeverResult& l) {
  testing::expect_saving_is_difference(plan, l, apply_by_hand, estimate_total);
}

struct Case {
  const char* plan;
  const char* lever;
  // What the lever must change, written here; empty: the values come from a search (checked
  // separately) and only the saving is checked.
  std::map<std::string, std::optional<std::string>> change;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.lever << " on " << c.plan; }

class LeverSaving : public ::testing::TestWithParam<Case> {};

TEST_P(LeverSaving, EqualsTheDifferenceOfTwoEstimates) {
  const Case& c = GetParam();
  const LeverResult& l = lever(result(c.plan), c.lever);
  ASSERT_TRUE(l.status == LeverStatus::kAccepted || l.status == LeverStatus::kRejected ||
              l.status == LeverStatus::kNoSaving)
      << c.lever << ": " << to_string(l.status) << ": " << l.why;
  if (!c.change.empty()) {
    EXPECT_EQ(as_map(l.change), c.change) << describe(l.change);
  }
  expect_saving_is_difference(c.plan, l);
}

INSTANTIATE_TEST_SUITE_P(
    Levers, LeverSaving,
    ::testing::Values(
        Case{kGpt3, "comm-overlap", {{"parallelism.tp_comm_overlap", "true"}}},
        Case{kGpt3, "checkpoint-async", {{"storage.async_checkpoint", "true"}}},
        Case{kGpt3, "checkpoint-retention", {{"storage.checkpoints_retained", "2"}}},
        Case{kGpt3, "log-retention", {{"storage.log_retention", "7d"}}},
        Case{kGpt3,
             "restart-automation",
             {{"reliability.detection", "1min"},
              {"reliability.rescheduling", "1min"},
              {"reliability.initialisation", "1min"}}},
        Case{kGpt3, "checkpoint-interval", {}}, Case{kGpt3, "parallelism", {}},
        Case{kGpt3, "pricing-reserved", {{"pricing.mode", "on-demand"}}},
        Case{kDeepseek, "parallelism", {}},
        Case{kDeepseek, "checkpoint-async", {{"storage.async_checkpoint", "true"}}},
        Case{kH100, "precision-fp8", {{"training.precision", "fp8"}}},
        Case{kH100, "gradient-compression", {{"parallelism.grad_reduce_in_fp32", "false"}}},
        Case{
            kH100,
            "comm-overlap",
            {{"parallelism.tp_comm_overlap", "true"}, {"parallelism.overlap_grad_reduce", "true"}}},
        // One copy of the dataset: 1T tokens x 4 B (Llama 3's vocabulary needs 4-byte ids).
        Case{kH100, "data-locality", {{"network.cross_region", "4000GB"}}},
        Case{kH100, "pricing-reserved", {{"pricing.mode", "reserved-1y"}}},
        Case{kH100, "pricing-spot", {}}, Case{kH100, "gpu-count", {}}, Case{kH100, "gpu-type", {}},
        Case{kH100, "parallelism", {}}),
    [](const ::testing::TestParamInfo<Case>& i) {
      std::string name = std::string(i.param.plan).find("gpt3") != std::string::npos ? "gpt3_"
                         : std::string(i.param.plan).find("deepseek") != std::string::npos
                             ? "deepseek_"
                             : "h100_";
      for (const char* p = i.param.lever; *p; ++p) name += *p == '-' ? '_' : *p;
      return name;
    });

// The checkpoint interval proposed is the reliability model's cost-optimal one for the plan,
// rounded to whole minutes (computed here from the test's own estimate).
TEST(CheckpointInterval, IsTheCostOptimalIntervalOfTheReliabilityModel) {
  const auto& base = result(kGpt3).baseline;
  const auto a =
      reliability::analyze(costing::reliability_inputs(base.job, base.perf, base.inputs), false);
  const auto& l = lever(result(kGpt3), "checkpoint-interval");
  EXPECT_EQ(as_map(l.change)["storage.checkpoint_interval"],
            std::to_string(static_cast<int>(std::round(a.cost_optimal.value() / 60))) + "min");
  // Young's sqrt(2 x 24.4 s x 49.5 h) = 49 min: a 2 h interval on a 49.5 h MTBF loses work.
  EXPECT_NEAR(a.cost_optimal.value() / 60, 49, 1.5);
}

// Spot changes the interrupt rate, so a plan that fixes its checkpoint interval gets the interval
// re-optimised for the spot plan's failure model.
TEST(PricingSpot, ReoptimisesTheCheckpointIntervalForPreemptions) {
  const auto& l = lever(result(kH100), "pricing-spot");
  auto m = as_map(l.change);
  EXPECT_EQ(m["pricing.mode"], "spot");
  const std::string text =
      hand_edit(testing::read_text(source_path(kH100)), "pricing", "mode", "spot");
  auto plan =
      config::parse_plan(text, "spot.yaml", source_path("tests/plans"), testing::builtin_catalog());
  ASSERT_TRUE(plan) << plan.error().what();
  auto perf = perf::estimate_training(plan->job);
  ASSERT_TRUE(perf);
  const auto a =
      reliability::analyze(costing::reliability_inputs(plan->job, *perf, plan->cost), false);
  EXPECT_EQ(m["storage.checkpoint_interval"],
            std::to_string(static_cast<int>(std::round(a.cost_optimal.value() / 60))) + "min");
}

// The layout lever proposes what `aicost search` finds cheapest at the plan's GPUs.
TEST(Parallelism, ProposesTheSearchsCheapestLayoutAtThePlansGpus) {
  const auto& res = result(kGpt3);
  const auto& base = res.baseline;
  search::SearchSpace s;
  s.gpus.push_back({base.job.cluster.gpu, base.job.efficiency, {base.inputs.compute}});
  s.gpu_counts = {base.job.cluster.gpus};
  s.global_batches = {base.job.global_batch};
  search::SearchOptions o;
  o.top = 1;
  o.threads = 1;
  const auto r = search::run_search(base.job, base.inputs, s, search::Constraints{}, o);
  ASSERT_FALSE(r.top.empty());
  const auto& l = lever(res, "parallelism");
  ASSERT_TRUE(l.total_usd);
  EXPECT_NEAR(*l.total_usd, r.top.front().cost_usd, 0.01);
  EXPECT_EQ(as_map(l.change)["parallelism.tensor_model_parallel_size"],
            std::to_string(r.top.front().parallel.tensor));
}

// A 20-day run on a 1-year reservation pays for the whole year: the reserved lever is priced and
// found dearer, and says where the break-even lies (61.38 / 88.49 USD/h = 69 % of the term).
TEST(PricingReserved, PaysTheWholeTermAndShowsTheBreakEven) {
  const auto& l = lever(result(kH100), "pricing-reserved");
  EXPECT_EQ(l.status, LeverStatus::kNoSaving);
  ASSERT_TRUE(l.saving_usd);
  EXPECT_LT(*l.saving_usd, -1e6);
  bool break_even = false;
  for (const auto& n : l.notes) break_even |= n.find("busy 69 % of the term") != std::string::npos;
  EXPECT_TRUE(break_even);
}

// Levers that do not apply or cannot be priced say why, never a silent zero.
TEST(Levers, NotApplicableAndNotPricedSayWhy) {
  for (const char* plan : {kGpt3, kDeepseek, kH100}) {
    for (const auto& l : result(plan).levers) {
      if (l.status == LeverStatus::kNotApplicable || l.status == LeverStatus::kNotPriced ||
          l.status == LeverStatus::kNoSaving) {
        EXPECT_FALSE(l.why.empty()) << l.id << " on " << plan;
      }
      if (l.status == LeverStatus::kNotApplicable || l.status == LeverStatus::kNotPriced) {
        EXPECT_FALSE(l.saving_usd.has_value()) << l.id << " on " << plan;
      }
    }
  }
  EXPECT_EQ(lever(result(kGpt3), "precision-fp8").why, "a100-sxm4-80gb has no FP8 tensor cores");
  EXPECT_EQ(lever(result(kGpt3), "pricing-spot").why,
            "no spot price for aws/p4de.24xlarge in the catalog");
  EXPECT_EQ(lever(result(kGpt3), "gpu-count").status, LeverStatus::kNotApplicable);
  EXPECT_NE(lever(result(kGpt3), "gpu-count").why.find("no deadline"), std::string::npos);
  EXPECT_EQ(lever(result(kGpt3), "data-loader").status, LeverStatus::kNotApplicable);
  EXPECT_NE(lever(result(kGpt3), "data-loader").why.find("the GPUs never wait for data"),
            std::string::npos);
  EXPECT_NE(lever(result(kH100), "data-loader").why.find("has no read figure"), std::string::npos);
  EXPECT_EQ(lever(result(kDeepseek), "precision-fp8").why, "the plan already trains in FP8");
  EXPECT_NE(lever(result(kDeepseek), "pricing-spot").why.find("pricing.gpu_hour"),
            std::string::npos);
  EXPECT_EQ(lever(result(kDeepseek), "pricing-owned").status, LeverStatus::kNotPriced);
}

// Every lever of the contract is reported once, whatever its status.
TEST(Levers, EveryLeverIsReportedOnce) {
  const auto& res = result(kGpt3);
  EXPECT_EQ(res.levers.size(), training_levers().size());
  for (const auto& l : training_levers()) {
    int n = 0;
    for (const auto& r : res.levers) n += r.id == l.id;
    EXPECT_EQ(n, 1) << l.id;
  }
}

// Ranked by saving: every lever with a saving comes before those without, in descending order.
TEST(Levers, RankedBySaving) {
  const auto& levers = result(kH100).levers;
  double last = 1e300;
  bool in_ranked = true;
  for (const auto& l : levers) {
    const bool ranked = l.status == LeverStatus::kAccepted || l.status == LeverStatus::kRejected;
    if (!ranked) in_ranked = false;
    if (ranked) {
      EXPECT_TRUE(in_ranked) << l.id << " ranked after an unranked lever";
      EXPECT_LE(*l.saving_usd, last) << l.id;
      last = *l.saving_usd;
    }
  }
}

// parallelism and comm-overlap both cut exposed tensor-parallel communication on GPT-3 (the
// first by a smaller TP, the second by hiding it): together they save less than their sum, and
// the combined plan, estimated as one plan, shows it.
TEST(Combined, IsOnePlanNotTheSumOfSavings) {
  std::vector<Lever> two;
  for (const auto& l : training_levers()) {
    if (l.id == "parallelism" || l.id == "comm-overlap") two.push_back(l);
  }
  const auto res = run_optimize(source_path(kGpt3), {}, two);
  const auto& c = res.combined;
  ASSERT_EQ(c.levers.size(), 2u);
  const double sum = *lever(res, "parallelism").saving_usd + *lever(res, "comm-overlap").saving_usd;
  EXPECT_NEAR(c.sum_of_savings, sum, 0.01);
  EXPECT_LT(c.saving_usd, sum - 1000) << "the two levers overlap; their savings cannot add up";
  // The combined total is the estimate of the plan with both changes, made by hand here.
  const std::string text = testing::read_text(source_path(kGpt3));
  EXPECT_NEAR(c.total_usd, estimate_total(apply_by_hand(text, c.change), source_path("examples")),
              0.005);
}

// Mutually exclusive pricing levers: only the better one is tried in the combination.
TEST(Combined, SpotAndReservedExcludeEachOther) {
  Guardrails g;
  g.max_risk = RiskLevel::kHigh;  // let spot on 8 nodes through
  std::vector<Lever> pricing;
  for (const auto& l : training_levers()) {
    if (l.group == "pricing-mode" && l.id != "pricing-owned")
      pricing.push_back(l);  // levers_owned_test.cc
  }
  // Keep the run reserved-friendly: the reserved lever must also be accepted to be excluded.
  const std::string text =
      hand_edit(testing::read_text(source_path(kH100)), "pricing", "reservation_reuse", "100%");
  testing::TempDir dir;
  const auto res = run_optimize(dir.write("plan.yaml", text), g, pricing);
  ASSERT_EQ(lever(res, "pricing-spot").status, LeverStatus::kAccepted);
  ASSERT_EQ(lever(res, "pricing-reserved").status, LeverStatus::kAccepted);
  ASSERT_EQ(res.combined.levers.size(), 1u);
  EXPECT_EQ(res.combined.levers.front(), "pricing-spot");  // saves more alone
  ASSERT_EQ(res.combined.skipped.size(), 1u);
  EXPECT_EQ(res.combined.skipped.front().first, "pricing-reserved");
}

// --emit-plan writes the combined plan; `aicost estimate` on that file (here: load_plan and the
// models, as run_plan does) gives the combined total to the cent.
TEST(EmitPlan, EstimatesToTheCombinedTotalToTheCent) {
  for (const char* plan : {kGpt3, kDeepseek, kH100}) {
    const auto& res = result(plan);
    auto editor = config::PlanEditor::open(source_path(plan), testing::builtin_catalog());
    ASSERT_TRUE(editor);
    testing::TempDir dir;
    auto text = editor->emit(res.combined.change, dir.path().string(), "test");
    ASSERT_TRUE(text) << text.error().what();
    const std::string path = dir.write("combined.yaml", *text);
    auto loaded = config::load_plan(path, testing::builtin_catalog());
    ASSERT_TRUE(loaded) << loaded.error().what();
    auto perf = perf::estimate_training(loaded->job);
    ASSERT_TRUE(perf);
    const double total = costing::estimate_cost(loaded->job, *perf, loaded->cost).total.value();
    EXPECT_EQ(std::round(total * 100), std::round(res.combined.total_usd * 100)) << plan;
    EXPECT_GT(res.combined.saving_usd, 0) << plan;
  }
}

}  // namespace
}  // namespace aicost::optimize

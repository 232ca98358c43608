// run_check end to end on the example lab (examples/governance): every waste kind is found, the
// SageMaker sweep is an anomaly with its cause, and alerts recorded as sent are not due again.
#include "aicost/governance/check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "aicost/billing/ingest.h"
#include "aicost/billing/reader.h"
#include "aicost/config/budgets.h"
#include "aicost/core/text.h"
#include "aicost/ledger/report.h"
#include "aicost/report/charts.h"
#include "aicost/report/governance_report.h"
#include "store/backends.h"

namespace aicost::governance {
namespace {

const std::string kDir = std::string(AICOST_SOURCE_DIR) + "/examples/governance/";

// Once per backend (tests/unit/store/backends.h): the same ledger, the same findings.
class ExampleLab : public aicost::testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (const char* f : {"focus-ai-lab-2025-05-06.csv", "dcgm-ai-lab-2025-06-26.prom"}) {
      auto r = billing::ingest_file(store(), kDir + f, {});
      ASSERT_TRUE(r) << r.error().what();
    }
    auto file = config::load_budgets(kDir + "budgets.yaml");
    ASSERT_TRUE(file) << file.error().what();
    file_ = std::move(*file);
    file_.options.as_of = ledger::days_from_civil(2025, 6, 28);
  }
  config::BudgetFile file_;
};

TEST_P(ExampleLab, EveryWasteKindIsFound) {
  auto r = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(r) << r.error().what();
  std::set<std::string> kinds;
  for (const auto& w : r->waste) kinds.insert(waste_kind_name(w.finding.kind));
  EXPECT_EQ(kinds,
            (std::set<std::string>{"idle_gpu", "hung_gpu", "expired_dev_resource", "untagged_spend",
                                   "storage_growth", "log_retention", "duplicate_storage",
                                   "unused_commitment", "low_utilisation_fleet"}));
  for (std::size_t i = 1; i < r->waste.size(); ++i)
    EXPECT_GE(r->waste[i - 1].finding.monthly_saving, r->waste[i].finding.monthly_saving);
  // The serving hosts idle at night belong to the fleet found too big: one finding, not two
  // savings.
  for (const auto& w : r->waste) {
    if (w.finding.kind != WasteKind::kIdleGpu) continue;
    EXPECT_EQ(w.finding.subject.rfind("i-serve", 0), std::string::npos);
  }
  // The dev box past its TTL is also idle and hung: deleting it saves those too, counted once.
  const std::string devbox = "arn:aws:ec2:us-east-1:111122223333:instance/i-devbox";
  int covered = 0;
  for (const auto& w : r->waste) {
    const auto& f = w.finding;
    if (f.kind == WasteKind::kExpiredDevResource && f.subject == devbox) {
      EXPECT_GT(f.monthly_saving, 0);
    }
    if (f.subject != "i-devbox") continue;
    ++covered;
    EXPECT_EQ(f.monthly_saving, 0) << f.message;
    EXPECT_EQ(f.covered_by, "expired_dev_resource " + devbox);
  }
  EXPECT_EQ(covered, 2);  // its idle and its hung GPUs
}

TEST_P(ExampleLab, TheSweepIsAnAnomalyCausedBySageMaker) {
  auto r = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(r) << r.error().what();
  const AnomalyResult* research = nullptr;
  for (const auto& a : r->anomalies)
    if (a.scope == "research") research = &a;
  ASSERT_NE(research, nullptr);
  EXPECT_EQ(research->episode.first_day, ledger::days_from_civil(2025, 6, 23));
  EXPECT_EQ(research->episode.last_day, ledger::days_from_civil(2025, 6, 24));
  ASSERT_FALSE(research->causes.empty());
  EXPECT_EQ(research->causes.front().value, "Amazon SageMaker");
  EXPECT_NEAR(research->causes.front().share, 1.0, 0.01);
}

TEST_P(ExampleLab, RecordedAlertsAreNotDueAgain) {
  auto first = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(first) << first.error().what();
  EXPECT_TRUE(first->gate_failed);
  std::set<std::string> fired;
  std::size_t due = 0;
  for (const auto& b : first->budgets) {
    due += b.due.size();
    for (const auto& a : b.due) fired.insert(a.covers.begin(), a.covers.end());
  }
  for (const auto& a : first->anomalies) fired.insert(a.key());
  for (const auto& w : first->waste) fired.insert(w.key());
  EXPECT_EQ(due, 8u);  // see tests/golden/ledger_check.out
  auto second = run_check(store(), file_.budgets, file_.options, fired);
  ASSERT_TRUE(second);
  for (const auto& b : second->budgets) EXPECT_TRUE(b.due.empty()) << b.budget.name;
  for (const auto& a : second->anomalies) EXPECT_TRUE(a.sent_before);
  for (const auto& w : second->waste) EXPECT_TRUE(w.sent_before);
  EXPECT_TRUE(second->gate_failed);  // the gate is the state, not the news
}

// The run used 4 p5 (32 GPUs) for 12 days at 55.04 USD/h each: 9216 GPU-hours, 63,406.08 USD of
// compute, against a plan of 7,930 GPU-hours and 60,056 USD; its GPUs ran at SM_ACTIVE ~0.36
// against a floor of 0.60.
TEST_P(ExampleLab, TheRunAgainstItsPlan) {
  auto r = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->plans.size(), 1u);
  const auto& p = r->plans[0];
  EXPECT_EQ(p.budget, "atlas-70b-pretrain-r3");
  EXPECT_DOUBLE_EQ(p.actual_gpu_hours, 9216);
  EXPECT_NEAR(p.planned_gpu_hours, 7929.84, 0.01);
  EXPECT_NEAR(p.actual_cost, 12 * 4 * 24 * 55.04, 1e-6);
  EXPECT_DOUBLE_EQ(p.elapsed_days, 12);
  ASSERT_TRUE(p.activity);
  EXPECT_NEAR(*p.activity, 0.36, 0.01);
  ASSERT_FALSE(p.categories.empty());
  EXPECT_EQ(p.categories[0].category, "compute");
  EXPECT_NEAR(p.categories[0].variance(), 12 * 4 * 24 * 55.04 - p.categories[0].planned,
              1e-6);  // 12 of 10.3 days: all planned
  bool floor = false;
  for (const auto& w : p.warnings) floor |= w.find("below the floor 0.60") != std::string::npos;
  EXPECT_TRUE(floor);
}

// Each budget's spend-by-day chart ends where an independent sum says: the ledger report's
// effective cost of the budget's scope over its period up to the as-of day (not the check's daily
// cube); its cone ends at the check's forecast interval; the research sweep's days are marked.
TEST_P(ExampleLab, TheBurnDownEndsAtTheReportsSumAndTheForecastInterval) {
  auto r = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(r) << r.error().what();
  const auto charts = report::budget_burn_charts(*r);
  ASSERT_EQ(charts.size(), r->budgets.size());  // six budgets, all drawn
  auto layer = [](const nlohmann::json& spec, const std::string& mark, const std::string& y) {
    for (const auto& l : spec["layer"])
      if (l["mark"]["type"] == mark && l["encoding"]["y"]["field"] == y) return l["data"]["values"];
    return nlohmann::json::array();
  };
  for (std::size_t i = 0; i < charts.size(); ++i) {
    const auto& b = r->budgets[i];
    const auto& p = b.status.period;
    ledger::ReportRequest q;
    q.filters = b.budget.scope;
    q.from = p.start;
    q.to = std::min(r->as_of, p.end);
    q.aliases = file_.options.aliases;
    auto rep = ledger::run_report(store(), q);
    ASSERT_TRUE(rep) << rep.error().what();
    double spent = 0;
    for (const auto& t : rep->totals)
      if (t.currency == "USD") spent = static_cast<double>(t.sums.effective) / core::kNanosPerUnit;
    EXPECT_GT(spent, 0) << b.budget.name;
    const auto spec = nlohmann::json::parse(charts[i].spec);
    const auto line = layer(spec, "line", "cumulative");
    ASSERT_FALSE(line.empty()) << b.budget.name;
    EXPECT_NEAR(line.back()["cumulative"].get<double>(), spent, 0.005) << b.budget.name;
    const auto& f = b.status.forecast;
    const auto cone = layer(spec, "area", "low");
    if (f.method == "actual") continue;
    // From predicted_from to the period's end, a point at the end of each predicted day.
    ASSERT_EQ(cone.size(), static_cast<std::size_t>(p.end - f.predicted_from) + 1) << b.budget.name;
    EXPECT_EQ(cone[0]["day"], ledger::day_text(f.predicted_from));
    EXPECT_EQ(cone.back()["day"], ledger::day_text(p.end));
    EXPECT_NEAR(cone.back()["low"].get<double>(), f.low, 0.005) << b.budget.name;
    EXPECT_NEAR(cone.back()["expected"].get<double>(), f.expected, 0.005) << b.budget.name;
    EXPECT_NEAR(cone.back()["high"].get<double>(), f.high, 0.005) << b.budget.name;
    if (b.budget.name == "research") {
      const auto marked = layer(spec, "point", "cumulative");
      ASSERT_EQ(marked.size(), 2u);  // the sweep of 06-23 and 06-24, at the spend after each
      EXPECT_EQ(marked[0]["day"], "2025-06-24");
      EXPECT_EQ(marked[1]["day"], "2025-06-25");
    }
  }
}

TEST_P(ExampleLab, TheTableNamesTheForecastInterval) {
  file_.options.forecast.interval = 0.9;
  auto r = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_NE(report::render_check(*r, report::Format::kTable).find("90% interval"),
            std::string::npos);
}

// The lab's newest charge is on 2025-06-27. As of day D the data is (D - 1) - 06-27 days old, and
// stale from 3 days on: as of 06-30 it is 2 days old (fresh), as of 07-01 3 days (stale).
TEST_P(ExampleLab, DataIsStaleFromTheLimitOnAndFailsTheGateOnlyUnderStrict) {
  file_.budgets.clear();  // no budget gates: only the data can fail the gate
  for (const auto& [day, stale] : {std::pair{30, false}, std::pair{31, true}}) {
    file_.options.as_of = ledger::days_from_civil(2025, 6, 1) + day - 1;  // 06-30, then 07-01
    for (const bool strict : {false, true}) {
      file_.options.strict = strict;
      auto r = run_check(store(), file_.budgets, file_.options, {});
      ASSERT_TRUE(r) << r.error().what();
      ASSERT_TRUE(r->data_through);
      EXPECT_EQ(*r->data_through, ledger::days_from_civil(2025, 6, 27));
      EXPECT_EQ(r->data_stale, stale) << ledger::day_text(r->as_of);
      EXPECT_EQ(r->gate_failed, stale && strict);
      bool warned = false;
      for (const auto& w : r->warnings)
        warned |= w.find("the newest charge is from 2025-06-27, 3 days before 2025-06-30") == 0;
      EXPECT_EQ(warned, stale);
    }
  }
  file_.options.stale_after_days = 4;  // the limit moves the boundary
  auto r = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->data_stale);
}

// Late data is unknown, not zero: with the newest charge on 06-27 and nothing arriving since, a
// check of June as of 06-30 (06-28 and 06-29 not delivered) forecasts each budget's June exactly as
// the check as of 06-28 does. Counting the two late days as zeros would lower every trend forecast.
TEST_P(ExampleLab, LateDaysDoNotChangeTheForecast) {
  auto fresh = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(fresh) << fresh.error().what();
  file_.options.as_of = ledger::days_from_civil(2025, 6, 30);
  auto late = run_check(store(), file_.budgets, file_.options, {});
  ASSERT_TRUE(late) << late.error().what();
  ASSERT_EQ(fresh->budgets.size(), late->budgets.size());
  for (std::size_t i = 0; i < fresh->budgets.size(); ++i) {
    const Forecast& a = fresh->budgets[i].status.forecast;
    const Forecast& b = late->budgets[i].status.forecast;
    EXPECT_NE(a.method, "none") << fresh->budgets[i].budget.name;
    EXPECT_DOUBLE_EQ(a.expected, b.expected) << fresh->budgets[i].budget.name;
    EXPECT_DOUBLE_EQ(a.high, b.high) << fresh->budgets[i].budget.name;
  }
}

TEST_P(ExampleLab, ABudgetWhoseScopeMatchesNothingIsNotAQuietGreen) {
  Budget typo;
  typo.name = "typo";
  typo.amount = 1000 * core::kNanosPerUnit;
  typo.scope = {{{ledger::Dimension::kTag, "team"}, "llm-trian"}};
  file_.options.strict = true;
  auto r = run_check(store(), {typo}, file_.options, {});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->data_stale);
  EXPECT_TRUE(r->gate_failed);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].rfind("budget 'typo': no charge in its scope in 2025-06 so far", 0), 0u)
      << r->warnings[0];
}

// A budget in a currency its scope's charges are not in (a typo such as "MCX", or EUR over a USD
// bill) counts nothing; it must say so, not show 0 spent and "ok".
TEST_P(ExampleLab, ABudgetInACurrencyItsChargesAreNotInIsNotAQuietGreen) {
  Budget eur;
  eur.name = "lab-eur";
  eur.amount = 1000 * core::kNanosPerUnit;
  eur.currency = "EUR";
  file_.options.strict = true;
  auto r = run_check(store(), {eur}, file_.options, {});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_TRUE(r->data_stale);
  EXPECT_TRUE(r->gate_failed);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0].rfind(
                "budget 'lab-eur' is in EUR but its scope's charges in 2025-06 are in USD, so it "
                "counts nothing: give its amount in USD",
                0),
            0u)
      << r->warnings[0];
  // The same budget in USD is read as before: no warning.
  eur.currency = "USD";
  file_.options.strict = false;
  auto usd = run_check(store(), {eur}, file_.options, {});
  ASSERT_TRUE(usd) << usd.error().what();
  EXPECT_TRUE(usd->warnings.empty()) << usd->warnings.front();
}

INSTANTIATE_TEST_SUITE_P(Backends, ExampleLab, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// A ledger with no charges (only telemetry, or nothing yet) is not a green check.
class EmptyLedger : public aicost::testing::BackendTest {};

TEST_P(EmptyLedger, HasNoDataThroughAndIsStale) {
  auto loaded = billing::ingest_file(store(), kDir + "dcgm-ai-lab-2025-06-26.prom", {});
  ASSERT_TRUE(loaded) << loaded.error().what();
  CheckOptions o;
  o.as_of = ledger::days_from_civil(2025, 6, 28);
  o.strict = true;
  auto r = run_check(store(), {}, o, {});
  ASSERT_TRUE(r) << r.error().what();
  EXPECT_FALSE(r->data_through);
  EXPECT_TRUE(r->data_stale);
  EXPECT_TRUE(r->gate_failed);
  ASSERT_FALSE(r->warnings.empty());
  EXPECT_EQ(r->warnings[0].rfind("the ledger has no charges before 2025-06-28", 0), 0u)
      << r->warnings[0];
}

INSTANTIATE_TEST_SUITE_P(Backends, EmptyLedger, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// On the FOCUS sample (real third-party rows, September 2024): the untagged-spend finding for a
// required `environment` tag carries the amounts a sum over the reader's own rows gives.
TEST(RealSample, UntaggedSpendMatchesAnIndependentSum) {
  auto fresh = aicost::testing::fresh_store("sqlite");
  ASSERT_TRUE(fresh.store);
  const std::string sample = std::string(AICOST_SOURCE_DIR) +
                             "/../shared/data/billing-samples/focus-sample-data/focus_sample.csv";
  ASSERT_TRUE(billing::ingest_file(*fresh.store, sample, {}));
  double untagged = 0, taggable = 0;
  billing::Sink sink;
  sink.charge = [&](ledger::Charge&& c) {
    if (c.charge_category != "Usage" && c.charge_category != "Purchase") return core::Status{};
    const double cost = static_cast<double>(c.effective) / static_cast<double>(core::kNanosPerUnit);
    taggable += cost;
    bool has = false;
    for (const auto& t : c.tags)
      has |= ledger::canonical_tag_key(t.key) == "environment" && !t.value.empty();
    if (!has) untagged += cost;
    return core::Status{};
  };
  ASSERT_TRUE(billing::read_file(sample, billing::Format::kFocus, sink));
  ASSERT_GT(untagged / taggable, 0.05);  // the sample leaves 29 % of its rows without tags
  WasteOptions o;
  o.required_tags = {"environment"};
  auto found = find_waste(*fresh.store, o, ledger::days_from_civil(2024, 10, 1), {});
  ASSERT_TRUE(found) << found.error().what();
  const WasteFinding* f = nullptr;
  for (const auto& w : *found)
    if (w.kind == WasteKind::kUntaggedSpend) f = &w;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "environment");
  EXPECT_NE(f->message.find(core::group_digits(untagged, 2) + " USD of " +
                            core::group_digits(taggable, 2) + " USD"),
            std::string::npos)
      << f->message;
}

TEST(PlanCategory, FocusServiceCategoriesMapToThePlansCategories) {
  EXPECT_EQ(plan_category("Compute"), "compute");
  EXPECT_EQ(plan_category("AI and Machine Learning"), "compute");
  EXPECT_EQ(plan_category("Storage"), "storage");
  EXPECT_EQ(plan_category("Networking"), "network");
  EXPECT_EQ(plan_category("Management and Governance"), "monitoring");
  EXPECT_EQ(plan_category("Analytics"), "other");
}

}  // namespace
}  // namespace aicost::governance

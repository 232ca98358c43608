// The change journal on its example (examples/journal, README there), on both store backends: the
// planted -20 % is found with an interval that holds it, the change that did nothing is
// no_effect, the guardrail breach is a stop-loss that `ledger check` gates on and alerts once,
// and the change a week old is too early. The expected effects are Welch's interval computed
// here, by hand, from the daily unit costs the generator planted (truth.json), not from the ledger.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "aicost/billing/ingest.h"
#include "aicost/core/stats.h"
#include "aicost/governance/check.h"
#include "aicost/governance/journal.h"
#include "aicost/ledger/report.h"
#include "store/backends.h"

namespace aicost::governance {
namespace {

const std::string kDir = std::string(AICOST_SOURCE_DIR) + "/examples/journal/";

ledger::Day day(const std::string& iso) {
  return ledger::days_from_civil(std::stoi(iso.substr(0, 4)), std::stoul(iso.substr(5, 2)),
                                 std::stoul(iso.substr(8, 2)));
}

struct HandWelch {
  double effect, lo, hi;
};

// Welch's 95 % interval of the relative change of the mean, written out again.
HandWelch hand_welch(const std::vector<double>& b, const std::vector<double>& a) {
  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / v.size();
  };
  const auto var = [&](const std::vector<double>& v) {
    const double m = mean(v);
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return s / (v.size() - 1);
  };
  const double vb = var(b) / b.size(), va = var(a) / a.size();
  const double df = (vb + va) * (vb + va) / (vb * vb / (b.size() - 1) + va * va / (a.size() - 1));
  const double half = core::student_t_quantile(0.975, df) * std::sqrt(vb + va) / mean(b);
  const double effect = mean(a) / mean(b) - 1;
  return {effect, effect - half, effect + half};
}

class JournalExample : public aicost::testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    for (const char* f : {"focus-training-runs-2025-04.csv", "dcgm-run-r5-2025-04.prom"}) {
      auto r = billing::ingest_file(store(), kDir + f, {});
      ASSERT_TRUE(r) << r.error().what();
    }
    std::ifstream in(kDir + "truth.json");
    ASSERT_TRUE(in) << "examples/journal/truth.json is missing";
    truth_ = nlohmann::json::parse(in);
    change_ = day(truth_["change_day"]);
    add(change_, "r3", "pricing-reserved");
    add(change_, "r4", "comm-overlap");
    add(change_, "r5", "data-loader", {{ledger::GuardrailKind::kMinGpuActivity, 0.4}});
    add(day("2025-05-12"), "r3", "checkpoint-interval");
  }
  void add(ledger::Day d, const std::string& run, const std::string& lever,
           std::vector<ledger::Guardrail> g = {}) {
    ledger::Change c;
    c.day = d;
    c.scope = {{{ledger::Dimension::kTag, "run"}, run}};
    c.lever = lever;
    c.guardrails = std::move(g);
    ASSERT_TRUE(store().add_change(c));
  }
  // The planted daily cost per GPU-hour of `run` over [from, to).
  std::vector<double> planted(const std::string& run, ledger::Day from, ledger::Day to) {
    std::vector<double> out;
    for (const auto& [d, v] : truth_["cost_per_gpu_hour"][run].items())
      if (day(d) >= from && day(d) < to) out.push_back(v.get<double>());
    return out;
  }
  nlohmann::json truth_;
  ledger::Day change_ = 0;
  const ledger::Day as_of_ = ledger::days_from_civil(2025, 5, 19);
};

TEST_P(JournalExample, FindsThePlantedEffectsAndTheBreach) {
  auto r = evaluate_changes(store(), {as_of_, 14, 0.95, {}});
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->size(), 4u);
  const auto& r3 = (*r)[0];
  const auto& r4 = (*r)[1];
  const auto& r5 = (*r)[2];
  const auto& late = (*r)[3];

  // r3: a savings plan, -20 % a GPU-hour planted.
  EXPECT_EQ(r3.metric, UnitMetric::kPerGpuHour);
  ASSERT_TRUE(r3.effect);
  const auto want3 =
      hand_welch(planted("r3", change_ - 14, change_), planted("r3", change_, change_ + 14));
  // The export rounds each day's cost to 1e-6 USD: the ledger's unit costs differ in the 9th digit.
  EXPECT_NEAR(r3.effect->effect, want3.effect, 1e-7);
  EXPECT_NEAR(r3.effect->lo, want3.lo, 1e-7);
  EXPECT_NEAR(r3.effect->hi, want3.hi, 1e-7);
  EXPECT_LT(r3.effect->lo, truth_["planted_effect"]["r3"].get<double>());
  EXPECT_GT(r3.effect->hi, truth_["planted_effect"]["r3"].get<double>());
  EXPECT_EQ(r3.verdict, Verdict::kKept);

  // r4: nothing changed.
  ASSERT_TRUE(r4.effect);
  const auto want4 =
      hand_welch(planted("r4", change_ - 14, change_), planted("r4", change_, change_ + 14));
  EXPECT_NEAR(r4.effect->effect, want4.effect, 1e-7);
  EXPECT_LT(r4.effect->lo, 0);
  EXPECT_GT(r4.effect->hi, 0);
  EXPECT_EQ(r4.verdict, Verdict::kNoEffect);

  // r5: the GPUs busy 25 % instead of 60 %, under a 40 % guardrail.
  EXPECT_EQ(r5.metric, UnitMetric::kPerUsefulGpuHour);
  ASSERT_EQ(r5.guardrails.size(), 1u);
  EXPECT_NEAR(*r5.guardrails[0].before, truth_["activity"]["before"].get<double>(), 0.01);
  EXPECT_NEAR(*r5.guardrails[0].after, truth_["activity"]["after"].get<double>(), 0.01);
  EXPECT_TRUE(r5.guardrails[0].crossed);
  EXPECT_EQ(r5.verdict, Verdict::kStopLoss);

  // A week after 2025-05-12.
  EXPECT_EQ(late.days_after, 7);
  EXPECT_EQ(late.verdict, Verdict::kTooEarly);
}

// The whole journal is read in two queries and each row handed to the changes whose scope it meets
// (journal_eval.cc): scopes of several terms (one dimension OR, different ones AND), the whole
// ledger and a scope nothing meets measure what a daily report of each scope alone reads
// (ledger::run_report with the telemetry join), measured by the same arithmetic.
TEST_P(JournalExample, EachScopeMeasuresWhatItsOwnReportReads) {
  auto scope = [](std::vector<std::pair<std::string, std::string>> terms) {
    std::vector<ledger::Filter> out;
    for (const auto& [key, value] : terms) {
      auto k = ledger::parse_group_key(key);
      EXPECT_TRUE(k) << key;
      out.push_back({*k, value});
    }
    return out;
  };
  const std::vector<std::vector<ledger::Filter>> scopes = {
      scope({{"tag:run", "r3"}, {"tag:run", "r4"}}),
      scope({{"tag:run", "r5"},
             {"region", "us-east-1"},
             {"service", "Amazon Elastic Compute Cloud"}}),
      {},
      scope({{"tag:run", "r3"}, {"tag:team", "no such team"}}),
      scope({{"resource_name", "i-r3-0"}, {"resource_name", "i-r5-1"}}),
  };
  for (const auto& s : scopes) {
    ledger::Change c;
    c.day = change_;
    c.scope = s;
    c.lever = "comm-overlap";
    c.guardrails = {{ledger::GuardrailKind::kMinGpuActivity, 0.4}};
    ASSERT_TRUE(store().add_change(c));
  }
  const ChangeOptions o{as_of_, 14, 0.95, {}};
  auto r = evaluate_changes(store(), o);
  ASSERT_TRUE(r) << r.error().what();
  ASSERT_EQ(r->size(), 4u + scopes.size());
  // The journal is in the order of the changes' days (then as recorded): each scope's result by its
  // scope.
  auto result = [&](const std::vector<ledger::Filter>& s) -> const ChangeResult& {
    for (const auto& c : *r)
      if (c.change.lever == "comm-overlap" && c.change.scope == s && !c.change.guardrails.empty())
        return c;
    ADD_FAILURE() << "no result for " << ledger::scope_text(s);
    return r->front();
  };
  for (std::size_t i = 0; i < scopes.size(); ++i) {
    const auto& got = result(scopes[i]);
    SCOPED_TRACE(ledger::scope_text(got.change.scope));
    ledger::ReportRequest req;
    req.by = {{ledger::Dimension::kConsumedUnit, {}}};
    req.granularity = ledger::Granularity::kDay;
    req.from = change_ - 14;
    req.to = change_ + 14;
    req.filters = scopes[i];
    req.useful = true;
    auto rep = ledger::run_report(store(), req);
    ASSERT_TRUE(rep) << rep.error().what();
    std::map<ledger::Day, ScopeDay> by_day;
    for (const auto& l : rep->lines) {
      ScopeDay& d = by_day[day(l.period)];
      d.day = day(l.period);
      d.cost += static_cast<double>(l.sums.effective) / static_cast<double>(core::kNanosPerUnit);
      d.gpu_hours += l.sums.gpu_hours;
      d.observed_gpu_hours += l.sums.observed_gpu_hours;
      d.useful_gpu_hours += l.sums.useful_gpu_hours;
    }
    std::vector<ScopeDay> days;
    for (const auto& [d, v] : by_day) days.push_back(v);
    const auto want = measure_change(got.change, days, o);
    EXPECT_EQ(got.metric, want.metric);
    EXPECT_EQ(got.days_before, want.days_before);
    EXPECT_EQ(got.days_after, want.days_after);
    EXPECT_EQ(got.verdict, want.verdict);
    ASSERT_EQ(got.effect.has_value(), want.effect.has_value());
    if (want.effect) {
      EXPECT_NEAR(got.effect->effect, want.effect->effect, 1e-12);
      EXPECT_NEAR(got.effect->lo, want.effect->lo, 1e-12);
    }
    ASSERT_EQ(got.guardrails.size(), 1u);
    ASSERT_EQ(got.guardrails[0].after.has_value(), want.guardrails[0].after.has_value());
    if (want.guardrails[0].after) {
      EXPECT_NEAR(*got.guardrails[0].after, *want.guardrails[0].after, 1e-12);
    }
  }
  // The scopes were not all empty or all alike: the first two are measured, the one nothing meets
  // not.
  EXPECT_TRUE(result(scopes[0]).effect);
  EXPECT_EQ(result(scopes[1]).metric, UnitMetric::kPerUsefulGpuHour);
  EXPECT_EQ(result(scopes[1]).verdict, Verdict::kStopLoss);
  EXPECT_FALSE(result(scopes[3]).effect);
}

TEST_P(JournalExample, CheckGatesOnTheStopLossAndAlertsOncePerCrossing) {
  CheckOptions o;
  o.as_of = as_of_;
  auto first = run_check(store(), {}, o, {});
  ASSERT_TRUE(first) << first.error().what();
  ASSERT_EQ(first->stop_losses.size(), 1u);
  const auto& s = first->stop_losses[0];
  EXPECT_EQ(s.change.change.lever, "data-loader");
  EXPECT_EQ(s.key(), "stop_loss|3|min_gpu_activity");
  EXPECT_FALSE(s.sent_before);
  EXPECT_TRUE(first->gate_failed);
  // Sent: listed and still gating, but not new.
  auto second = run_check(store(), {}, o, {s.key()});
  ASSERT_TRUE(second);
  ASSERT_EQ(second->stop_losses.size(), 1u);
  EXPECT_TRUE(second->stop_losses[0].sent_before);
  EXPECT_TRUE(second->gate_failed);
  // Before the change nothing is at stop-loss.
  o.as_of = change_;
  auto before = run_check(store(), {}, o, {});
  ASSERT_TRUE(before);
  EXPECT_TRUE(before->stop_losses.empty());
  // A guardrails file's limit (`ledger check --guardrails`) holds for every change: r5 also
  // crosses a 2 % cost rise (+140 %), a new crossing with its own key; the others stay within it.
  o.as_of = as_of_;
  o.change_guardrails = {{ledger::GuardrailKind::kMaxUnitCostRise, 0.02}};
  auto filed = run_check(store(), {}, o, {s.key()});
  ASSERT_TRUE(filed);
  ASSERT_EQ(filed->stop_losses.size(), 1u);
  EXPECT_EQ(filed->stop_losses[0].key(), "stop_loss|3|min_gpu_activity,max_cost_rise");
  EXPECT_FALSE(filed->stop_losses[0].sent_before);
}

INSTANTIATE_TEST_SUITE_P(Backends, JournalExample, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost::governance

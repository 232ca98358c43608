// The Vega-Lite specs of `-o html` read as data: what each chart draws, counted from the view.
#include "aicost/report/charts.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "aicost/reliability/analysis.h"
#include "aicost/reliability/simulation.h"
#include "aicost/report/html.h"
#include "aicost/report/reliability_report.h"
#include "report_fixture.h"

namespace aicost::report {
namespace {

using nlohmann::json;

json spec_of(const Chart& c) { return json::parse(c.spec); }

TEST(EstimateCharts, StepBarsAreTheNonZeroCausesAndAddUpToTheStep) {
  const auto plan = testing::make_plan();
  const auto charts = estimate_charts(plan->view("p"));
  ASSERT_EQ(charts.size(), 2u);
  const json step = spec_of(charts[0]);
  EXPECT_EQ(step["$schema"], kVegaLiteSchema);
  EXPECT_EQ(step["mark"]["type"], "bar");
  EXPECT_EQ(step["encoding"]["x"]["title"], "time per step (s)");
  // The fixture sets compute, recompute, TP, PP, bubble, DP and optimizer; CP, EP and data
  // loading are 0 and get no bar. 6.48 + 0.432 + 0.432 + 0.0864 + 0.864 + 0.1728 + 0.1728 = 8.64 s.
  const auto& values = step["data"]["values"];
  ASSERT_EQ(values.size(), 7u);
  double seconds = 0;
  for (const auto& v : values) seconds += v["seconds"].get<double>();
  EXPECT_NEAR(seconds, 8.64, 1e-9);
  EXPECT_EQ(values[0]["cause"], "compute");
  EXPECT_NEAR(values[0]["share"].get<double>(), 0.75, 1e-9);
}

TEST(EstimateCharts, CostBarsAreTheCostLines) {
  const auto plan = testing::make_plan();
  const json cost = spec_of(estimate_charts(plan->view("p"))[1]);
  EXPECT_EQ(cost["encoding"]["x"]["title"], "cost (USD)");
  const auto& values = cost["data"]["values"];
  ASSERT_EQ(values.size(), 9u);  // the fixture's nine lines, 50,000 USD in all
  double usd = 0;
  for (const auto& v : values) usd += v["usd"].get<double>();
  EXPECT_NEAR(usd, 50000, 1e-6);
  EXPECT_EQ(values[7]["category"], "operations");
  EXPECT_EQ(values[7]["nature"], "fixed");
}

// Three plans on the cost-time front (10 d / 300 USD, 20 d / 200 USD, 30 d / 100 USD); the top
// list is the middle one, then a plan off the front.
struct SearchFixture {
  search::SearchSpace space;
  search::SearchResult result;
  SearchFixture() {
    search::GpuOption g;
    g.gpu.id = "test-gpu";
    g.prices.push_back(costing::ComputePricing{});
    space.gpus.push_back(g);
    auto cand = [](int gpus, double days, double usd) {
      search::Candidate c;
      c.gpus = gpus;
      c.parallel.tensor = 1;
      c.parallel.pipeline = 1;
      c.parallel.context = 1;
      c.wall_days = days;
      c.cost_usd = usd;
      return c;
    };
    result.pareto_cost_time = {cand(64, 10, 300), cand(32, 20, 200), cand(16, 30, 100)};
    result.top = {cand(32, 20, 200), cand(24, 25, 250)};
  }
  SearchView view() const {
    SearchView v;
    v.plan_name = "p";
    v.space = &space;
    v.result = &result;
    return v;
  }
};

TEST(SearchCharts, OnePointPerFrontPlanAndTheWinnerMarked) {
  const SearchFixture f;
  const auto charts = search_charts(f.view());
  ASSERT_EQ(charts.size(), 1u);
  const json s = spec_of(charts[0]);
  int front = 0, others = 0, winners = 0;
  for (const auto& p : s["data"]["values"]) {
    if (p["set"] == "Pareto front") ++front;
    if (p["set"] == "other top plans") ++others;
    if (p["winner"].get<bool>()) {
      ++winners;
      EXPECT_EQ(p["wall_days"], 20);
      EXPECT_EQ(p["cost_usd"], 200);
      EXPECT_EQ(p["set"], "Pareto front");
    }
  }
  EXPECT_EQ(front, 3);
  EXPECT_EQ(others, 1);  // the 25-day plan; the winner is drawn once, on the front
  EXPECT_EQ(winners, 1);
  // A layer draws only the winner, with a label.
  bool labelled = false;
  for (const auto& l : s["layer"]) {
    if (l["mark"]["type"] == "text") labelled = l["transform"][0]["filter"] == "datum.winner";
  }
  EXPECT_TRUE(labelled);
  EXPECT_EQ(s["layer"][1]["encoding"]["x"]["title"], "wall time (days, failures included)");
  EXPECT_EQ(s["layer"][1]["encoding"]["y"]["title"], "total cost (USD)");
}

TEST(SearchCharts, AWinnerOffTheFrontIsStillMarked) {
  SearchFixture f;
  std::swap(f.result.top[0], f.result.top[1]);  // the 25-day plan wins (say, on MFU)
  const json s = spec_of(search_charts(f.view())[0]);
  int winners = 0;
  for (const auto& p : s["data"]["values"]) {
    if (!p["winner"].get<bool>()) continue;
    ++winners;
    EXPECT_EQ(p["wall_days"], 25);
    EXPECT_EQ(p["set"], "other top plans");
  }
  EXPECT_EQ(winners, 1);
}

TEST(SearchCharts, NoFeasiblePlanNoChart) {
  SearchFixture f;
  f.result.top.clear();
  EXPECT_TRUE(search_charts(f.view()).empty());
}

TEST(ServingCharts, ReplicasAreTheHourlyMaximumPerPolicy) {
  ServingView v;
  std::vector<serving::DeploymentOption> options(1);
  v.options = &options;
  serving::PolicyResult p;
  p.name = "reactive";
  // 150 minutes: hours [0, 60) peak 3, [60, 120) peak 5, [120, 150) peak 2.
  p.replicas.assign(150, 1);
  p.replicas[10] = 3;
  p.replicas[100] = 5;
  p.replicas[149] = 2;
  v.policies = {p};
  const auto charts = serving_charts(v);  // no option meets the SLA: only the replicas chart
  ASSERT_EQ(charts.size(), 1u);
  const json s = spec_of(charts[0]);
  const auto& values = s["data"]["values"];
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0]["replicas"], 3);
  EXPECT_EQ(values[1]["replicas"], 5);
  EXPECT_EQ(values[2]["replicas"], 2);
  EXPECT_NEAR(values[1]["day"].get<double>(), 1.0 / 24, 1e-6);
}

TEST(AccuracyCharts, OnePointPerRunAndTheEqualityLineAcrossThem) {
  // Three runs; the diagonal spans the smallest and largest of measured and predicted: 50 .. 400.
  const std::vector<perf::AccuracyCase> cases = {{"a", "hopper", 100, 110},
                                                 {"b", "hopper", 400, 380},
                                                 {"c", "ampere", 50, 60},
                                                 {"bad", "ampere", 0, 10}};
  const auto charts = accuracy_charts(cases, "model");
  ASSERT_EQ(charts.size(), 1u);
  const json s = spec_of(charts[0]);
  const auto& line = s["layer"][0]["data"]["values"];
  EXPECT_EQ(line[0]["measured"], 50);
  EXPECT_EQ(line[1]["predicted"], 400);
  const auto& runs = s["layer"][1]["data"]["values"];
  ASSERT_EQ(runs.size(), 3u);  // the run measured at 0 has no place on a log axis
  EXPECT_NEAR(runs[0]["error_pct"].get<double>(), 10, 1e-9);
  EXPECT_EQ(s["layer"][1]["encoding"]["x"]["scale"]["type"], "log");
  EXPECT_TRUE(accuracy_charts({}, "model").empty());
}

// The Monte-Carlo chart: one bar per bin of the simulation (8 runs in 3 bins of half a day from
// 10 days), the runs adding up to the simulated ones, and a rule at P10, median, P90, the runs'
// mean and the closed form, in days.
TEST(ReliabilityCharts, HistogramBarsAreTheSimulationsBinsInDays) {
  reliability::Analysis a;
  a.expected.work = core::Seconds(10 * 86400.0);
  a.expected.lost_work = core::Seconds(0.25 * 86400);  // closed form: 10.25 days
  reliability::SimulationResult sim;
  sim.runs = 8;
  sim.wall_s.p10 = 10.1 * 86400;
  sim.wall_s.p50 = 10.5 * 86400;
  sim.wall_s.p90 = 11.2 * 86400;
  sim.wall_s.mean = 10.6 * 86400;
  sim.wall_histogram = {10 * 86400.0, 0.5 * 86400, {2, 5, 1}};
  ReliabilityView v;
  v.analysis = &a;
  v.simulation = &sim;
  const auto charts = reliability_charts(v);
  ASSERT_EQ(charts.size(), 2u);  // the parts, the histogram (no levers)
  EXPECT_EQ(charts[1].title, "Wall days of 8 simulated runs (Monte Carlo)");
  const json h = spec_of(charts[1]);
  const auto& bars = h["layer"][0];
  EXPECT_EQ(bars["mark"]["type"], "bar");
  EXPECT_EQ(bars["encoding"]["x"]["title"], "wall days of a run");
  EXPECT_EQ(bars["encoding"]["y"]["title"], "simulated runs");
  const auto& bins = bars["data"]["values"];
  ASSERT_EQ(bins.size(), 3u);
  int runs = 0;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    EXPECT_NEAR(bins[i]["from_days"].get<double>(), 10 + 0.5 * static_cast<double>(i), 1e-9);
    EXPECT_NEAR(bins[i]["to_days"].get<double>(), 10.5 + 0.5 * static_cast<double>(i), 1e-9);
    runs += bins[i]["runs"].get<int>();
  }
  EXPECT_EQ(runs, 8);
  const auto& rules = h["layer"][1];
  EXPECT_EQ(rules["mark"]["type"], "rule");
  const std::map<std::string, double> want = {{"P10", 10.1},
                                              {"median", 10.5},
                                              {"P90", 11.2},
                                              {"mean of the runs", 10.6},
                                              {"closed form (expected)", 10.25}};
  ASSERT_EQ(rules["data"]["values"].size(), want.size());
  for (const auto& r : rules["data"]["values"])
    EXPECT_NEAR(r["at_days"].get<double>(), want.at(r["what"].get<std::string>()), 1e-9)
        << r["what"];
}

// Runs that all took the same time (no interrupt drawn): one bar that still has a width.
TEST(ReliabilityCharts, RunsOfOneLengthAreOneVisibleBar) {
  reliability::Analysis a;
  a.expected.work = core::Seconds(10 * 86400.0);
  reliability::SimulationResult sim;
  sim.runs = 4;
  sim.wall_s.p10 = sim.wall_s.p50 = sim.wall_s.p90 = sim.wall_s.mean = 10 * 86400.0;
  sim.wall_histogram = {10 * 86400.0, 0, {4}};
  ReliabilityView v;
  v.analysis = &a;
  v.simulation = &sim;
  const json h = spec_of(reliability_charts(v)[1]);
  const auto& bins = h["layer"][0]["data"]["values"];
  ASSERT_EQ(bins.size(), 1u);
  EXPECT_LT(bins[0]["from_days"].get<double>(), 10);
  EXPECT_GT(bins[0]["to_days"].get<double>(), 10);
  EXPECT_EQ(bins[0]["runs"], 4);
}

// A report of 60 days: a label on every 4th day (ceil(60 / 16)), the first day's first, 15 in
// all, slanted; 12 days: every day, upright.
TEST(LedgerCharts, ManyPeriodsGetEveryKthLabel) {
  auto report = [](int days) {
    ledger::Report r;
    r.request.granularity = ledger::Granularity::kDay;
    r.request.by = {ledger::GroupKey{ledger::Dimension::kService, ""}};
    for (int d = 0; d < days; ++d) {
      ledger::ReportLine l;
      l.period = ledger::day_text(ledger::days_from_civil(2025, 4, 1) + d);
      l.values = {"compute"};
      l.currency = "USD";
      l.sums.effective = 1'000'000'000;
      r.lines.push_back(l);
    }
    r.totals.push_back(r.lines.front());
    return r;
  };
  const json many = spec_of(ledger_report_charts(report(60))[0]);
  const auto& axis = many["encoding"]["x"]["axis"];
  EXPECT_EQ(axis["labelAngle"], -45);
  ASSERT_EQ(axis["values"].size(), 15u);
  EXPECT_EQ(axis["values"][0], "2025-04-01");
  EXPECT_EQ(axis["values"][1], "2025-04-05");
  EXPECT_EQ(axis["values"][14], "2025-05-27");
  EXPECT_EQ(many["data"]["values"].size(), 60u);  // every day still has its bar
  const json few = spec_of(ledger_report_charts(report(12))[0]);
  EXPECT_EQ(few["encoding"]["x"]["axis"]["labelAngle"], 0);
  EXPECT_FALSE(few["encoding"]["x"]["axis"].contains("values"));
}

TEST(HtmlPage, InlinesTheScriptsAndEscapesTheData) {
  const std::string page =
      html_page("a <b> & c",
                {Chart{"t </script>", R"({"data":{"values":[{"x":"</script><p>"}]}})"}}, "1 < 2");
  EXPECT_NE(page.find("<title>a &lt;b&gt; &amp; c</title>"), std::string::npos);
  EXPECT_NE(page.find("<h2>t &lt;/script&gt;</h2>"), std::string::npos);
  EXPECT_NE(page.find("<pre>1 &lt; 2</pre>"), std::string::npos);
  // The spec's "</script>" cannot close its element: it is written "<\/script>".
  EXPECT_NE(page.find(R"("x":"<\/script><p>")"), std::string::npos);
  EXPECT_EQ(page.find(R"("x":"</script>)"), std::string::npos);
  // The three libraries are inline (no src=, no network) and whole.
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_NE(page.find(std::string(vega_lite_js().substr(0, 200))), std::string::npos);
  EXPECT_GT(vega_js().size() + vega_lite_js().size() + vega_embed_js().size(), 800'000u);
  EXPECT_NE(vega_lite_js().find("\"6.5.0\""), std::string_view::npos);
  EXPECT_NE(page.find("vegaEmbed(el, spec, {renderer: 'svg'"), std::string::npos);
  // BSD-3-Clause: the notice and the conditions go with the scripts.
  EXPECT_NE(page.find("Copyright (c) 2015, University of Washington Interactive Data Lab"),
            std::string::npos);
  EXPECT_NE(page.find("Redistribution and use in source and binary forms"), std::string::npos);
}

TEST(HtmlPage, ScriptsAtLoadsTheScriptsInOrderByNamesThatCarryTheirVersions) {
  PageParts parts;
  parts.scripts_at = "/assets/";
  const std::string page = html_page("t", {Chart{"c", "{}"}}, "1", parts);
  // Each script by its name, in the order they must run (vega-lite needs vega, vega-embed both);
  // the 0.84 MB are not in the page, the licences still are.
  const auto vega = page.find(R"(<script src="/assets/vega-6.4.0.min.js"></script>)");
  const auto lite = page.find(R"(<script src="/assets/vega-lite-6.5.0.min.js"></script>)");
  const auto embed = page.find(R"(<script src="/assets/vega-embed-7.3.0.min.js"></script>)");
  ASSERT_NE(vega, std::string::npos);
  ASSERT_NE(lite, std::string::npos);
  ASSERT_NE(embed, std::string::npos);
  EXPECT_LT(vega, lite);
  EXPECT_LT(lite, embed);
  EXPECT_EQ(page.find(std::string(vega_lite_js().substr(0, 200))), std::string::npos);
  EXPECT_LT(page.size(), 64'000u);
  EXPECT_NE(page.find("Copyright (c) 2015, University of Washington Interactive Data Lab"),
            std::string::npos);
  // A name's version is the one the script itself reports (a kept copy is never of another).
  ASSERT_EQ(vega_scripts().size(), 3u);
  for (const auto& s : vega_scripts()) {
    const std::string name(s.name);
    const auto dash = name.find_last_of('-', name.find(".min.js"));
    const std::string version = name.substr(dash + 1, name.find(".min.js") - dash - 1);
    EXPECT_NE(s.text.find("\"" + version + "\""), std::string_view::npos) << name;
  }
}

}  // namespace
}  // namespace aicost::report

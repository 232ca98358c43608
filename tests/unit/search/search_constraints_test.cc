// run_search's constraints on the small case of search_reference.h: a deadline, budget or MFU
// floor no plan meets rejects every candidate, a cancel flag stops the workers, and the closest
// plans of an infeasible search are the brute force's best without each constraint.
#include "aicost/search/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "aicost/costing/cost_model.h"
#include "aicost/perf/estimate.h"
#include "aicost/perf/memory.h"
#include "aicost/workload/training_job.h"
#include "search_reference.h"
#include "test_support.h"

namespace aicost::search {
namespace {

using namespace reference;  // the case and the brute force

TEST(Search, ImpossibleDeadlineRejectsEveryEvaluatedCandidate) {
  const Case c = small_case();
  Constraints k;
  k.deadline_days = 1e-9;
  const SearchResult r = search(c, k);
  EXPECT_EQ(r.feasible, 0u);
  EXPECT_TRUE(r.top.empty());
  EXPECT_TRUE(r.pareto_cost_time.empty());
  EXPECT_TRUE(r.pareto_cost_gpus.empty());
  EXPECT_GT(r.evaluated, 0u);
  EXPECT_EQ(rejected(r, Rejection::kMissesDeadline), static_cast<double>(r.evaluated));
}

TEST(Search, BudgetBelowTheCheapestPlanRejectsAll) {
  const Case c = small_case();
  const SearchResult free = search(c, Constraints{});
  ASSERT_FALSE(free.top.empty());
  const double cheapest = free.top.front().cost_usd;

  Constraints k;
  k.budget_usd = cheapest * (1 - 1e-9);
  const SearchResult r = search(c, k);
  EXPECT_EQ(r.feasible, 0u);
  EXPECT_TRUE(r.top.empty());
  EXPECT_EQ(rejected(r, Rejection::kOverBudget), static_cast<double>(r.evaluated));

  // The budget is inclusive: exactly the cheapest cost keeps that plan.
  k.budget_usd = cheapest;
  const SearchResult at = search(c, k);
  ASSERT_GE(at.feasible, 1u);
  expect_same(at.top.front(), free.top.front());
}

TEST(Search, MfuFloorAboveEveryPlanRejectsAll) {
  const Case c = small_case();
  const SearchResult best = search(c, Constraints{}, Objective::kBestMfu);
  ASSERT_FALSE(best.top.empty());
  Constraints k;
  k.min_mfu = std::nextafter(best.top.front().mfu, 1.0);
  const SearchResult r = search(c, k);
  EXPECT_EQ(r.feasible, 0u);
  EXPECT_EQ(rejected(r, Rejection::kBelowMfuFloor), static_cast<double>(r.evaluated));
}

// A search whose cancel flag is set stops before its first layout (each worker checks the flag
// before taking one) and says so; with the flag present but clear it runs to the same answer as
// without one.
TEST(Search, CancelFlagStopsTheWorkers) {
  const Case c = small_case();
  const Constraints k = biting_constraints(c);
  SearchOptions opt;
  opt.threads = 2;
  std::atomic<bool> cancel{true};
  opt.cancel = &cancel;
  const SearchResult stopped = run_search(c.base, c.costs, c.space, k, opt);
  EXPECT_TRUE(stopped.cancelled);
  EXPECT_EQ(stopped.evaluated, 0u);
  EXPECT_TRUE(stopped.top.empty());

  cancel = false;
  const SearchResult full = run_search(c.base, c.costs, c.space, k, opt);
  EXPECT_FALSE(full.cancelled);
  EXPECT_EQ(keys(full.top), keys(search(c, k, Objective::kCheapest, 2).top));
  EXPECT_GT(full.evaluated, 0u);
}

// What came closest (SearchOptions::explain_infeasible), against the naive enumeration: with the
// deadline dropped, the fastest of the brute force's feasible plans; with the budget dropped, the
// cheapest; with the MFU floor dropped, the best MFU. A constraint whose removal leaves no plan
// has none, and a search that found plans (or was not asked) explains nothing.
SearchResult explained(const Case& c, const Constraints& k, bool explain = true) {
  SearchOptions opt;
  opt.threads = 2;
  opt.explain_infeasible = explain;
  return run_search(c.base, c.costs, c.space, k, opt);
}

TEST(Search, ClosestPlansAreTheBestOfTheBruteForceWithoutEachConstraint) {
  const Case c = small_case();
  const Naive all = brute_force(c, Constraints{});
  ASSERT_FALSE(all.feasible.empty());
  auto min_of = [&](auto measure) {
    double best = INFINITY;
    for (const auto& x : all.feasible) best = std::min(best, measure(x));
    return best;
  };
  const double fastest = min_of([](const Candidate& x) { return x.wall_days; });
  const double cheapest = min_of([](const Candidate& x) { return x.cost_usd; });
  const double best_mfu = -min_of([](const Candidate& x) { return -x.mfu; });

  Constraints k;
  k.deadline_days = fastest * 0.5;
  k.budget_usd = cheapest * 0.5;
  k.min_mfu = best_mfu * 1.5;
  const SearchResult r = explained(c, k);
  ASSERT_TRUE(r.top.empty());
  ASSERT_EQ(r.closest.size(), 3u);
  // Each alone cannot be met, so dropping one still leaves the other two unmet: no plan.
  for (const auto& x : r.closest) EXPECT_FALSE(x.plan) << static_cast<int>(x.constraint);

  // Only a deadline: dropping it leaves every plan, and the fastest is the answer.
  Constraints d;
  d.deadline_days = fastest * 0.5;
  const SearchResult rd = explained(c, d);
  ASSERT_EQ(rd.closest.size(), 1u);
  EXPECT_EQ(rd.closest[0].constraint, Rejection::kMissesDeadline);
  EXPECT_DOUBLE_EQ(rd.closest[0].limit, fastest * 0.5);
  ASSERT_TRUE(rd.closest[0].plan);
  EXPECT_NEAR(rd.closest[0].reached, fastest, 1e-9 * fastest);
  EXPECT_EQ(rd.closest[0].reached, rd.closest[0].plan->wall_days);

  // A budget and an MFU floor: without the budget, the cheapest plan at or above the floor.
  Constraints bm;
  bm.budget_usd = cheapest * 0.5;
  bm.min_mfu = best_mfu * 0.9;
  double cheapest_above_floor = INFINITY;
  for (const auto& x : all.feasible) {
    if (x.mfu >= *bm.min_mfu) cheapest_above_floor = std::min(cheapest_above_floor, x.cost_usd);
  }
  const SearchResult rb = explained(c, bm);
  ASSERT_EQ(rb.closest.size(), 2u);
  EXPECT_EQ(rb.closest[0].constraint, Rejection::kOverBudget);
  ASSERT_TRUE(rb.closest[0].plan);
  EXPECT_NEAR(rb.closest[0].reached, cheapest_above_floor, 1e-9 * cheapest_above_floor);
  EXPECT_GE(rb.closest[0].plan->mfu, *bm.min_mfu);
  // Without the floor, the best MFU of a plan within half the cheapest cost: there is none.
  EXPECT_EQ(rb.closest[1].constraint, Rejection::kBelowMfuFloor);
  EXPECT_FALSE(rb.closest[1].plan);

  // Not asked, or plans found: nothing to explain.
  EXPECT_TRUE(explained(c, d, false).closest.empty());
  EXPECT_TRUE(explained(c, Constraints{}).closest.empty());
}

}  // namespace
}  // namespace aicost::search

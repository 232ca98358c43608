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

// run_search on a small hand-built case checked against a naive brute-force enumeration
// (search_reference.h): the best plans, the top list, pruning, threads and counts.

namespace aicost::search {
namespace {

using namespace reference;  // the case and the brute force
using workload::OptimizerSharding;
using workload::Recompute;

TEST(Search, NaiveBruteForceMatches) {
  const Case c = small_case();
  const Constraints k = biting_constraints(c);
  const Naive naive = brute_force(c, k);
  // Every constraint bites, and something survives all of them.
  ASSERT_GT(naive.out_of_memory, 0);
  ASSERT_GT(naive.misses_deadline, 0);
  ASSERT_GT(naive.over_budget, 0);
  ASSERT_GT(naive.below_mfu, 0);
  ASSERT_GT(naive.feasible.size(), 10u);

  for (Objective o : {Objective::kCheapest, Objective::kFastest, Objective::kBestMfu}) {
    SCOPED_TRACE(to_string(o));
    const SearchResult r = search(c, k, o);
    EXPECT_EQ(r.enumerated, naive.enumerated);
    EXPECT_EQ(r.feasible, naive.feasible.size());
    EXPECT_EQ(rejected(r, Rejection::kOutOfMemory), naive.out_of_memory);
    EXPECT_EQ(rejected(r, Rejection::kMissesDeadline), naive.misses_deadline);
    EXPECT_EQ(rejected(r, Rejection::kOverBudget), naive.over_budget);
    EXPECT_EQ(rejected(r, Rejection::kBelowMfuFloor), naive.below_mfu);
    ASSERT_FALSE(r.top.empty());
    expect_same(r.top.front(), naive_best(naive.feasible, o));
    // The front does not depend on the objective.
    EXPECT_EQ(keys(r.pareto_cost_time), naive_front(naive.feasible));
    // Every front point is one of the feasible candidates, with the same numbers.
    for (const auto& p : r.pareto_cost_time) {
      auto it = std::find_if(naive.feasible.begin(), naive.feasible.end(),
                             [&](const Candidate& x) { return x.key() == p.key(); });
      ASSERT_NE(it, naive.feasible.end());
      expect_same(p, *it);
    }
  }
}

// Sequences of 8192 (4x the small case's): a CP ring inside one node then hides each K/V hop
// behind its step of the attention (perf/layer_time.cc), so CP2 with micro-batch 2 runs exactly
// as CP1 with micro-batch 1 on twice the data-parallel ranks, and the cheapest plans come in such
// pairs. At 2048 the hops are exposed and the first equivalent plans (ZeRO-1 on one DP rank) rank
// past 500, too deep for the list to show the grouping.
TEST(Search, TopListIsTheNaiveSortedPrefix) {
  Case c = small_case();
  c.base.seq_length = 4 * kSeq;
  const Constraints k = biting_constraints(c);
  Naive naive = brute_force(c, k);
  std::sort(naive.feasible.begin(), naive.feasible.end(),
            [](const Candidate& a, const Candidate& b) {
              return std::make_tuple(a.cost_usd, a.wall_days, a.key()) <
                     std::make_tuple(b.cost_usd, b.wall_days, b.key());
            });
  // Plans with the same outputs (GPU, count, price, batch and every number) are one entry: the
  // first of them in this order (the smallest key) with the others as its aliases.
  auto same = [](const Candidate& a, const Candidate& b) {
    return std::make_tuple(a.gpu_option, a.price_option, a.gpus, a.global_batch, a.step_time_s,
                           a.wall_days, a.gpu_hours, a.cost_usd, a.mfu, a.memory_gib) ==
           std::make_tuple(b.gpu_option, b.price_option, b.gpus, b.global_batch, b.step_time_s,
                           b.wall_days, b.gpu_hours, b.cost_usd, b.mfu, b.memory_gib);
  };
  std::vector<Candidate> firsts;
  std::vector<std::vector<Candidate>> others;
  for (const auto& x : naive.feasible) {
    auto it =
        std::find_if(firsts.begin(), firsts.end(), [&](const Candidate& f) { return same(f, x); });
    if (it == firsts.end()) {
      firsts.push_back(x);
      others.emplace_back();
    } else {
      others[it - firsts.begin()].push_back(x);
    }
  }
  const SearchResult r = search(c, k, Objective::kCheapest, 1, true, 25);
  ASSERT_EQ(r.top.size(), 25u);
  expect_same(r.top, std::vector<Candidate>(firsts.begin(), firsts.begin() + 25));
  ASSERT_EQ(r.top_aliases.size(), 25u);
  size_t aliases = 0, rings = 0;
  for (size_t i = 0; i < 25; ++i) {
    expect_same(r.top_aliases[i], others[i]);
    aliases += others[i].size();
    for (const auto& a : others[i])
      rings += a.parallel.context > 1 || firsts[i].parallel.context > 1;
  }
  EXPECT_GT(aliases, 0u);  // the case has equivalent layouts, so the grouping is exercised
  EXPECT_GT(rings, 0u);    // among them CP rings inside a node, equal to their CP1 twins
  // Threads split the candidates differently; the groups come out the same.
  expect_same(search(c, k, Objective::kCheapest, 4, true, 25), r);
}

TEST(Search, PruningNeverChangesTheAnswer) {
  const Case c = small_case();
  const Constraints k = biting_constraints(c);
  for (Objective o : {Objective::kCheapest, Objective::kFastest, Objective::kBestMfu}) {
    SCOPED_TRACE(to_string(o));
    const SearchResult pruned = search(c, k, o, 1, true, 50);
    const SearchResult full = search(c, k, o, 1, false, 50);
    ASSERT_GT(pruned.feasible, 0u);
    expect_same(pruned, full);
  }
}

// Without a budget, pruning prices only the candidates that can still rank (a cost lower bound
// against the thread's best-k list and both fronts), and tests the deadline once per estimate,
// on the failure-free compute time first. The whole result (counts, list, fronts, every number)
// must equal the search that prices every candidate, and pruning must really skip pricing, or
// this test would prove nothing. A reserved price with reuse (whole terms in the bound) and a
// memory margin (tight plans, which rank last and stay off the fronts) exercise every branch.
TEST(Search, SkippingPricesNeverChangesTheAnswer) {
  Case c = small_case();
  c.base.memory_margin = 0.1;
  costing::ComputePricing reserved = c.space.gpus[0].prices[1];
  reserved.term = core::hours(8760);
  reserved.term_reuse = 0.5;
  c.space.gpus[0].prices.push_back(reserved);
  const Constraints biting = biting_constraints(c);
  Constraints none;
  none.memory_headroom = kHeadroom;
  Constraints deadline = none;
  deadline.deadline_days = biting.deadline_days;
  Constraints mfu = none;
  mfu.min_mfu = biting.min_mfu;
  Constraints both = deadline;
  both.min_mfu = biting.min_mfu;
  uint64_t priced_pruned = 0, priced_full = 0;
  for (const Constraints& k : {none, deadline, mfu, both}) {
    for (Objective o : {Objective::kCheapest, Objective::kFastest, Objective::kBestMfu}) {
      for (int top : {1, 10}) {
        SCOPED_TRACE(std::string(to_string(o)) + " top " + std::to_string(top) +
                     (k.deadline_days ? " deadline" : "") + (k.min_mfu ? " mfu" : ""));
        const SearchResult pruned = search(c, k, o, 1, true, top);
        const SearchResult full = search(c, k, o, 1, false, top);
        ASSERT_GT(full.feasible, static_cast<uint64_t>(top));
        expect_same(pruned, full);
        EXPECT_EQ(full.priced, full.evaluated);
        EXPECT_LE(pruned.priced, full.priced);
        priced_pruned += pruned.priced;
        priced_full += full.priced;
      }
    }
  }
  EXPECT_LT(priced_pruned, priced_full / 2);
  // Each thread bounds against its own list and fronts; the merged answer is the same.
  const SearchResult two = search(c, deadline, Objective::kCheapest, 2, true, 3);
  expect_same(two, search(c, deadline, Objective::kCheapest, 1, false, 3));
}

// A case built so that the memory lower bound is tight: TP 1, PP = layers (one layer per stage),
// DP x micro-batch = the whole batch (one micro-batch in flight). There, full recomputation keeps
// the layer inputs *plus* one layer's full activations for the recompute (perf/memory.cc), i.e.
// more than selective recomputation, so "the most aggressive recompute" is not a memory lower
// bound. With the capacity set between the two, selective fits and full does not.
// So the prune step must bound memory with the minimum over the listed recompute modes, not with
// Recompute::kFull: bounding with kFull reported 0 feasible plans here, where the unpruned search
// finds the selective one.
TEST(Search, PruningKeepsAPlanThatFitsOnlyWithSelectiveRecompute) {
  Case c = small_case();
  c.space.gpus.resize(1);
  c.space.gpus[0].prices.resize(1);
  c.space.tensor = {1};
  c.space.pipeline = {kLayers};
  c.space.virtual_pipeline = {1};
  c.space.context = {1};
  c.space.micro_batch = {8};
  c.space.sequence_parallel = {false};
  c.space.sharding = {OptimizerSharding::kZero1};
  c.space.recompute = {Recompute::kSelective, Recompute::kFull};
  c.space.gpu_counts = {64};  // DP 8 x micro-batch 8 = 64: one micro-batch per step

  workload::TrainingJob j = job_of(c.base, c.space, Candidate{0, 0, 64, kBatch, {}});
  j.parallel.pipeline = kLayers;
  j.parallel.micro_batch = 8;
  j.parallel.sharding = OptimizerSharding::kZero1;
  j.parallel.recompute = Recompute::kSelective;
  ASSERT_TRUE(workload::validate(j, nullptr));
  const double selective = perf::estimate_memory(j).total().value();
  j.parallel.recompute = Recompute::kFull;
  const double full = perf::estimate_memory(j).total().value();
  if (!(full > selective)) GTEST_SKIP() << "full recompute is not heavier here; nothing to test";
  Constraints k;
  k.memory_headroom = 1 - (selective + full) / 2 / c.space.gpus[0].gpu.memory.value();
  ASSERT_GT(k.memory_headroom, 0);

  const SearchResult full_scan = search(c, k, Objective::kCheapest, 1, false);
  ASSERT_EQ(full_scan.feasible, 1u);  // selective fits, full does not
  EXPECT_EQ(full_scan.top.front().parallel.recompute, Recompute::kSelective);
  const SearchResult pruned = search(c, k, Objective::kCheapest, 1, true);
  expect_same(pruned, full_scan);
}

TEST(Search, SameResultForAnyThreadCount) {
  const Case c = small_case();
  const Constraints k = biting_constraints(c);
  const SearchResult one = search(c, k, Objective::kCheapest, 1, true, 40);
  ASSERT_GT(one.feasible, 40u);
  for (int threads : {2, 3, 8}) {
    SCOPED_TRACE(threads);
    expect_same(search(c, k, Objective::kCheapest, threads, true, 40), one);
  }
}

TEST(Search, CountsAddUp) {
  const Case c = small_case();
  const Constraints k = biting_constraints(c);
  for (bool prune : {true, false}) {
    const SearchResult r = search(c, k, Objective::kCheapest, 2, prune);
    double total = static_cast<double>(r.feasible);
    for (double x : r.rejected) total += x;
    EXPECT_EQ(total, r.enumerated) << "prune " << prune;
    // Every evaluated candidate is either feasible or rejected by a constraint.
    EXPECT_EQ(static_cast<double>(r.evaluated),
              r.feasible + rejected(r, Rejection::kMissesDeadline) +
                  rejected(r, Rejection::kOverBudget) + rejected(r, Rejection::kBelowMfuFloor));
    for (double x : r.rejected) EXPECT_GT(x, 0);  // each reason occurs in this case
  }
}

TEST(Search, ReturnedPlansReestimateToTheSameNumbers) {
  const Case c = small_case();
  const Constraints k = biting_constraints(c);
  auto near = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::abs(b); };
  for (Objective o : {Objective::kCheapest, Objective::kFastest, Objective::kBestMfu}) {
    const SearchResult r = search(c, k, o, 2, true, 10);
    ASSERT_EQ(r.top.size(), 10u);
    for (const auto& cand : r.top) {
      const auto job = job_of(c.base, c.space, cand);
      const auto in = costs_of(c.costs, c.space, cand);
      ASSERT_TRUE(workload::validate(job, nullptr));
      auto est = perf::estimate_training(job);
      ASSERT_TRUE(est);
      const auto cost = costing::estimate_cost(job, *est, in);
      EXPECT_PRED2(near, est->step_time.value(), cand.step_time_s);
      EXPECT_PRED2(near, core::in_days(cost.wall_time), cand.wall_days);
      EXPECT_PRED2(near, cost.gpu_hours, cand.gpu_hours);
      EXPECT_PRED2(near, cost.total.value(), cand.cost_usd);
      EXPECT_PRED2(near, est->mfu, cand.mfu);
      EXPECT_PRED2(near, core::in_gib(est->memory.total()), cand.memory_gib);
      EXPECT_LE(est->memory.total().value(), job.cluster.gpu.memory.value() * (1 - kHeadroom));
    }
  }
}

}  // namespace
}  // namespace aicost::search

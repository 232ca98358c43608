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
#include "test_support.h"

// run_search on a small hand-built case (8-layer dense model, 2 GPU types, 8..64 GPUs, batch 64)
// checked against a naive brute-force enumeration written here, independently of the search's
// enumerator, pruning and thread pool.

namespace aicost::search {
namespace {

using workload::OptimizerSharding;
using workload::Recompute;

constexpr int kLayers = 8, kHidden = 1024, kHeads = 16, kSeq = 2048, kBatch = 64;
constexpr int kMinGpus = 8, kMaxGpus = 64;
constexpr double kHeadroom = 0.92;  // ~6.4 GB usable: the larger layouts run out of memory

GpuOption gpu_option(const std::string& id, std::vector<double> usd_per_hour) {
  const auto& cat = testing::builtin_catalog();
  auto g = cat.gpu(id);
  EXPECT_TRUE(g) << id;
  auto eff = cat.efficiency((*g)->generation);
  EXPECT_TRUE(eff) << (*g)->generation;
  GpuOption o{**g, **eff, {}};
  for (double p : usd_per_hour) {
    costing::ComputePricing price;
    price.per_gpu = core::usd_per_hour(p);
    price.basis = "test";
    o.prices.push_back(price);
  }
  return o;
}

struct Case {
  workload::TrainingJob base;
  costing::CostInputs costs;
  SearchSpace space;
};

// 8 layers, hidden 1024, 16 heads (MHA), f = 4h; 1e10 tokens of 2048; batch 64 sequences.
// A100 80GB at two prices, H100 80GB at one; 8..64 GPUs in whole nodes of 8.
Case small_case() {
  Case c;
  auto m =
      workload::Model::create(testing::dense_spec(kLayers, kHidden, kHeads, 4 * kHidden, 32000));
  EXPECT_TRUE(m) << (m ? "" : m.error().what());
  c.base.model = *m;
  c.base.tokens = 1e10;
  c.base.seq_length = kSeq;
  c.base.global_batch = kBatch;
  c.costs.storage.checkpoint_write_bandwidth = core::gb_per_s(100);
  c.space.gpus = {gpu_option("a100-sxm4-80gb", {1.50, 1.90}), gpu_option("h100-sxm-80gb", {2.70})};
  c.space.min_gpus = kMinGpus;
  c.space.max_gpus = kMaxGpus;
  c.space.global_batches = {kBatch};
  // The base runs on the first GPU option's reference system, as a plan file would set it.
  c.base.cluster = workload::Cluster::of(c.space.gpus[0].gpu, 8);
  c.base.efficiency = c.space.gpus[0].efficiency;
  return c;
}

SearchResult search(const Case& c, const Constraints& k, Objective o = Objective::kCheapest,
                    int threads = 1, bool prune = true, int top = 10) {
  SearchOptions opt;
  opt.objective = o;
  opt.threads = threads;
  opt.prune = prune;
  opt.top = top;
  return run_search(c.base, c.costs, c.space, k, opt);
}

// --- The naive reference -------------------------------------------------------------------

struct Naive {
  double enumerated = 0;
  double out_of_memory = 0, misses_deadline = 0, over_budget = 0, below_mfu = 0;
  std::vector<Candidate> feasible;
};

// Every combination of the option lists, one at a time, through validate / memory / step /
// cost; constraints applied in the documented order (deadline, budget, MFU floor).
Naive brute_force(const Case& c, const Constraints& k) {
  Naive out;
  const auto& model = c.base.model;
  const Recompute modes[] = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  const OptimizerSharding shards[] = {OptimizerSharding::kNone, OptimizerSharding::kZero1};
  for (int g = 0; g < static_cast<int>(c.space.gpus.size()); ++g) {
    const auto& opt = c.space.gpus[g];
    for (int tp : workload::divisors(kHeads)) {
      if (model.kv_heads() % tp != 0 && tp % model.kv_heads() != 0) continue;
      for (int pp : workload::divisors(kLayers)) {
        const std::vector<int> vpps =
            pp == 1 ? std::vector<int>{1} : workload::divisors(kLayers / pp);
        for (int vpp : vpps)
          for (int cp : workload::divisors(c.base.seq_length)) {
            if (c.base.seq_length / cp < 128) continue;
            for (int dp : workload::divisors(kBatch))
              for (int mbs = 1; mbs <= 8; ++mbs)
                for (Recompute rc : modes)
                  for (bool sp : {false, true})
                    for (OptimizerSharding sh : shards) {
                      const double n_prices = static_cast<double>(opt.prices.size());
                      out.enumerated += n_prices;
                      const int n = tp * pp * cp * dp;
                      if (n < kMinGpus || n > kMaxGpus || n % 8 != 0) continue;
                      if (sp && tp == 1) continue;
                      workload::TrainingJob j = c.base;
                      j.cluster = workload::Cluster::of(opt.gpu, n);
                      j.efficiency = opt.efficiency;
                      j.global_batch = kBatch;
                      j.parallel.tensor = tp;
                      j.parallel.pipeline = pp;
                      j.parallel.virtual_pipeline = vpp;
                      j.parallel.context = cp;
                      j.parallel.micro_batch = mbs;
                      j.parallel.recompute = rc;
                      j.parallel.sequence_parallel = sp;
                      j.parallel.sharding = sh;
                      if (!workload::validate(j, nullptr)) continue;
                      const double capacity = opt.gpu.memory.value() * (1 - k.memory_headroom);
                      if (perf::estimate_memory(j).total().value() > capacity) {
                        out.out_of_memory += n_prices;
                        continue;
                      }
                      auto est = perf::estimate_training(j);
                      EXPECT_TRUE(est);
                      if (!est) continue;
                      for (int p = 0; p < static_cast<int>(opt.prices.size()); ++p) {
                        costing::CostInputs in = c.costs;
                        in.compute = opt.prices[p];
                        const auto cost = costing::estimate_cost(j, *est, in);
                        Candidate cand;
                        cand.gpu_option = g;
                        cand.price_option = p;
                        cand.gpus = n;
                        cand.global_batch = kBatch;
                        cand.parallel = j.parallel;
                        cand.step_time_s = est->step_time.value();
                        cand.wall_days = core::in_days(cost.wall_time);
                        cand.gpu_hours = cost.gpu_hours;
                        cand.cost_usd = cost.total.value();
                        cand.mfu = est->mfu;
                        cand.memory_gib = core::in_gib(est->memory.total());
                        if (k.deadline_days && cand.wall_days > *k.deadline_days) {
                          ++out.misses_deadline;
                        } else if (k.budget_usd && cand.cost_usd > *k.budget_usd) {
                          ++out.over_budget;
                        } else if (k.min_mfu && cand.mfu < *k.min_mfu) {
                          ++out.below_mfu;
                        } else {
                          out.feasible.push_back(cand);
                        }
                      }
                    }
          }
      }
    }
  }
  return out;
}

// The naive best: the minimum of (primary, secondary, key) by a linear scan.
Candidate naive_best(const std::vector<Candidate>& all, Objective o) {
  auto rank = [&](const Candidate& c) {
    switch (o) {
      case Objective::kCheapest: return std::make_tuple(c.cost_usd, c.wall_days, c.key());
      case Objective::kFastest: return std::make_tuple(c.wall_days, c.cost_usd, c.key());
      case Objective::kBestMfu: return std::make_tuple(-c.mfu, c.cost_usd, c.key());
    }
    return std::make_tuple(0.0, 0.0, c.key());
  };
  Candidate best = all.front();
  for (const auto& c : all) {
    if (rank(c) < rank(best)) best = c;
  }
  return best;
}

// The naive cost/wall-days front: candidates no other is at least as good as in both metrics
// and strictly better in one (exact duplicates: the smallest key stays), as a set of keys.
std::set<std::array<int, 14>> naive_front(const std::vector<Candidate>& all) {
  std::set<std::array<int, 14>> out;
  for (const auto& c : all) {
    bool dominated = false;
    for (const auto& d : all) {
      if (d.cost_usd <= c.cost_usd && d.wall_days <= c.wall_days &&
          (d.cost_usd < c.cost_usd || d.wall_days < c.wall_days || d.key() < c.key())) {
        dominated = true;
        break;
      }
    }
    if (!dominated) out.insert(c.key());
  }
  return out;
}

std::set<std::array<int, 14>> keys(const std::vector<Candidate>& v) {
  std::set<std::array<int, 14>> out;
  for (const auto& c : v) out.insert(c.key());
  return out;
}

void expect_same(const Candidate& a, const Candidate& b) {
  EXPECT_EQ(a.key(), b.key());
  EXPECT_EQ(a.step_time_s, b.step_time_s);
  EXPECT_EQ(a.wall_days, b.wall_days);
  EXPECT_EQ(a.gpu_hours, b.gpu_hours);
  EXPECT_EQ(a.cost_usd, b.cost_usd);
  EXPECT_EQ(a.mfu, b.mfu);
  EXPECT_EQ(a.memory_gib, b.memory_gib);
}

void expect_same(const std::vector<Candidate>& a, const std::vector<Candidate>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(a[i], b[i]);
  }
}

void expect_same(const SearchResult& a, const SearchResult& b) {
  EXPECT_EQ(a.enumerated, b.enumerated);
  EXPECT_EQ(a.evaluated, b.evaluated);
  EXPECT_EQ(a.feasible, b.feasible);
  EXPECT_EQ(a.rejected, b.rejected);
  EXPECT_EQ(a.layouts, b.layouts);
  expect_same(a.top, b.top);
  ASSERT_EQ(a.top_aliases.size(), b.top_aliases.size());
  for (size_t i = 0; i < a.top_aliases.size(); ++i) expect_same(a.top_aliases[i], b.top_aliases[i]);
  expect_same(a.pareto_cost_time, b.pareto_cost_time);
  expect_same(a.pareto_cost_gpus, b.pareto_cost_gpus);
}

double rejected(const SearchResult& r, Rejection why) { return r.rejected[static_cast<int>(why)]; }

// Constraints that each reject part of the space: the deadline at the 70th percentile of wall
// days, the budget at the 80th percentile of cost, the MFU floor at the 20th percentile of MFU
// (all over the unconstrained feasible set), and a memory headroom that leaves ~6.4 GB.
Constraints biting_constraints(const Case& c) {
  Constraints none;
  none.memory_headroom = kHeadroom;
  const Naive all = brute_force(c, none);
  EXPECT_GT(all.feasible.size(), 100u);
  auto quantile = [&](auto field, double q) {
    std::vector<double> v;
    for (const auto& x : all.feasible) v.push_back(field(x));
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * (v.size() - 1))];
  };
  Constraints k;
  k.memory_headroom = kHeadroom;
  k.deadline_days = quantile([](const Candidate& x) { return x.wall_days; }, 0.7);
  k.budget_usd = quantile([](const Candidate& x) { return x.cost_usd; }, 0.8);
  k.min_mfu = quantile([](const Candidate& x) { return x.mfu; }, 0.2);
  return k;
}

// --- Tests ---------------------------------------------------------------------------------

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

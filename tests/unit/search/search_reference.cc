// The reference of the search tests: search_reference.h.
#include "search_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "aicost/perf/estimate.h"
#include "aicost/perf/memory.h"
#include "test_support.h"

namespace aicost::search::reference {

using workload::OptimizerSharding;
using workload::Recompute;

GpuOption gpu_option(const std::string& id, const std::vector<double>& usd_per_hour) {
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

SearchResult search(const Case& c, const Constraints& k, Objective o, int threads, bool prune,
                    int top) {
  SearchOptions opt;
  opt.objective = o;
  opt.threads = threads;
  opt.prune = prune;
  opt.top = top;
  return run_search(c.base, c.costs, c.space, k, opt);
}

// --- The naive reference -------------------------------------------------------------------

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

}  // namespace aicost::search::reference

#include "searcher.h"

#include <algorithm>

#include "aicost/perf/memory.h"

namespace aicost::search {

using workload::OptimizerSharding;
using workload::Recompute;

workload::TrainingJob with_gpu(const workload::TrainingJob& base, const GpuOption& g) {
  workload::TrainingJob j = base;
  if (g.gpu.id != base.cluster.gpu.id) j.cluster = workload::Cluster::of(g.gpu, 0);
  j.efficiency = g.efficiency;
  return j;
}

namespace {

bool count_allowed(const SearchSpace& s, int n, int gpus_per_node) {
  if (n < s.min_gpus || n > s.max_gpus) return false;
  if (!s.gpu_counts.empty() &&
      std::find(s.gpu_counts.begin(), s.gpu_counts.end(), n) == s.gpu_counts.end()) {
    return false;
  }
  if (!s.whole_nodes) return true;
  return n < gpus_per_node ? gpus_per_node % n == 0 : n % gpus_per_node == 0;
}

// TP/PP/CP/EP rules of workload::validate, for option lists a user wrote by hand.
bool layout_divides(const workload::TrainingJob& base, const Layout& l, int etp) {
  const auto& m = base.model;
  if (m.heads() % l.tp != 0) return false;
  if (!m.spec().multi_latent_attention && m.kv_heads() % l.tp != 0 && l.tp % m.kv_heads() != 0) {
    return false;
  }
  if (l.pp > m.layers() || base.seq_length % l.cp != 0) return false;
  if (m.is_moe()) {
    if (m.spec().num_moe_experts % l.ep != 0) return false;
    if ((l.gpus() / l.pp) % (etp * l.ep) != 0) return false;
  } else if (l.ep != 1) {
    return false;
  }
  return true;
}

}  // namespace

Searcher::Searcher(const workload::TrainingJob& base, const costing::CostInputs& costs,
                   const SearchSpace& space, const Constraints& constraints,
                   const SearchOptions& options)
    : base_(base),
      space_(space),
      constraints_(constraints),
      options_(options),
      dims_(resolve(base, space)) {
  for (size_t g = 0; g < space.gpus.size(); ++g) {
    jobs_.push_back(with_gpu(base, space.gpus[g]));
    std::vector<costing::CostInputs> per_price;
    for (const auto& price : space.gpus[g].prices) {
      costing::CostInputs c = costs;
      c.compute = price;
      per_price.push_back(std::move(c));
    }
    costs_.push_back(std::move(per_price));
  }
}

// Candidates below one layout: (vpp, mbs, sp, recompute, sharding, price).
double Searcher::inner_size(const Layout& l) const {
  return static_cast<double>(virtual_pipeline_options(base_, space_, l.pp).size()) *
         dims_.micro_batch.size() * dims_.sequence_parallel.size() * dims_.recompute.size() *
         dims_.sharding.size() * space_.gpus[l.gpu].prices.size();
}

// Enumerates layouts, counting the combinations that fail divisibility or the GPU count.
std::vector<Layout> Searcher::layouts(std::array<double, kRejectionCount>& rejected,
                                      double& enumerated) {
  std::vector<Layout> out;
  for (int g = 0; g < static_cast<int>(space_.gpus.size()); ++g) {
    const int per_node = space_.gpus[g].gpu.gpus_per_node;
    for (int b = 0; b < static_cast<int>(space_.global_batches.size()); ++b) {
      for (int tp : dims_.tensor)
        for (int pp : dims_.pipeline)
          for (int cp : dims_.context)
            for (int dp : workload::divisors(space_.global_batches[b]))
              for (int ep : dims_.expert) {
                const Layout l{g, b, tp, pp, cp, dp, ep};
                const double size = inner_size(l);
                enumerated += size;
                const int etp =
                    base_.parallel.expert_tensor > 0 ? base_.parallel.expert_tensor : tp;
                if (!layout_divides(base_, l, etp)) {
                  rejected[static_cast<int>(Rejection::kDoesNotDivide)] += size;
                } else if (!count_allowed(space_, l.gpus(), per_node)) {
                  rejected[static_cast<int>(Rejection::kGpuCount)] += size;
                } else {
                  out.push_back(l);
                }
              }
    }
  }
  return out;
}

void Searcher::evaluate(const Layout& l, workload::TrainingJob& job, Partial& out) const {
  const int batch = space_.global_batches[l.batch];
  job.global_batch = batch;
  job.cluster.gpus = l.gpus();
  auto& p = job.parallel;
  p.tensor = l.tp;
  p.pipeline = l.pp;
  p.context = l.cp;
  p.expert = l.ep;
  const auto& prices = costs_[l.gpu];
  const double per_combo =
      static_cast<double>(dims_.recompute.size() * dims_.sharding.size() * prices.size());
  // Valid options per dimension (their validity is independent of each other).
  std::vector<int> vpps, mbss;
  std::vector<bool> sps;
  const auto vpp_all = virtual_pipeline_options(base_, space_, l.pp);
  for (int v : vpp_all) {
    if (valid_virtual_pipeline(base_, l.pp, v)) vpps.push_back(v);
  }
  for (int b : dims_.micro_batch) {
    if (b > 0 && batch % (l.dp * b) == 0) mbss.push_back(b);
  }
  for (bool s : dims_.sequence_parallel) {
    if (!s || l.tp > 1) sps.push_back(s);
  }
  const double valid = static_cast<double>(vpps.size() * mbss.size() * sps.size());
  const double all = static_cast<double>(vpp_all.size() * dims_.micro_batch.size() *
                                         dims_.sequence_parallel.size());
  out.rejected[static_cast<int>(Rejection::kDoesNotDivide)] += (all - valid) * per_combo;
  if (valid == 0) return;

  const double capacity = job.cluster.gpu.memory.value() * (1 - constraints_.memory_headroom);
  // Over the capacity by no more than the memory model's own error is "tight": kept, marked.
  const double tight_capacity = capacity * (1 + job.memory_margin);
  auto fits = [&](const workload::TrainingJob& j) {
    return perf::estimate_memory(j).total().value() <= tight_capacity;
  };
  if (options_.prune) {
    // Memory lower bound of the whole layout: the smallest micro-batch, SP on where allowed
    // and the most aggressive sharding listed (memory only grows as these relax); virtual
    // pipeline size and recompute mode are not monotone in memory (interleaving adds in-flight
    // activations; full recompute needs one layer's full activations while it recomputes),
    // so each of their combinations is tried.
    p.micro_batch = *std::min_element(mbss.begin(), mbss.end());
    p.sequence_parallel = std::find(sps.begin(), sps.end(), true) != sps.end();
    p.sharding =
        *std::max_element(dims_.sharding.begin(), dims_.sharding.end(),
                          [](auto a, auto b) { return static_cast<int>(a) < static_cast<int>(b); });
    bool any = false;
    for (int v : vpps) {
      for (Recompute r : dims_.recompute) {
        p.virtual_pipeline = v;
        p.recompute = r;
        if (fits(job)) {
          any = true;
          break;
        }
      }
      if (any) break;
    }
    if (!any) {
      out.rejected[static_cast<int>(Rejection::kOutOfMemory)] += valid * per_combo;
      return;
    }
  }
  for (int v : vpps)
    for (int b : mbss)
      for (bool s : sps)
        for (Recompute r : dims_.recompute)
          for (OptimizerSharding z : dims_.sharding) {
            p.virtual_pipeline = v;
            p.micro_batch = b;
            p.sequence_parallel = s;
            p.recompute = r;
            p.sharding = z;
            const perf::MemoryBreakdown memory = perf::estimate_memory(job);
            if (memory.total().value() > tight_capacity) {
              out.rejected[static_cast<int>(Rejection::kOutOfMemory)] += prices.size();
              continue;
            }
            auto est = perf::estimate_training(job, memory);
            if (!est) continue;  // no peak for the precision: not reachable for listed GPUs
            Candidate c;
            c.gpu_option = l.gpu;
            c.gpus = l.gpus();
            c.global_batch = batch;
            c.parallel = p;
            c.step_time_s = est->step_time.value();
            c.mfu = est->mfu;
            c.memory_gib = core::in_gib(est->memory.total());
            c.memory_tight = est->memory.total().value() > capacity;
            if (options_.prune) {
              place(job, *est, c, out);
            } else {
              place_unbounded(job, *est, c, out);
            }
          }
}

// Prices every candidate of one estimated layout point and applies the constraints in order:
// the reference `place` must agree with (SearchOptions::prune off).
void Searcher::place_unbounded(const workload::TrainingJob& job, const perf::TrainingEstimate& est,
                               Candidate c, Partial& out) const {
  const auto& prices = costs_[c.gpu_option];
  for (size_t k = 0; k < prices.size(); ++k) {
    ++out.evaluated;
    c.price_option = static_cast<int>(k);
    price(job, est, costing::failure_overhead(job, est, prices[k]), c, out);
    if (auto why = reject(c)) {
      out.rejected[static_cast<int>(*why)] += 1;
      continue;
    }
    keep(c, out);
  }
}

// The same answer as place_unbounded with less work (tests compare the two):
// - the wall time does not depend on the price (costing::failure_overhead does not read it),
//   so the deadline is tested once for all prices, and before the failure model when the
//   failure-free compute time alone misses it (failures only add time);
// - without a budget a price decides nothing but the rank, so a candidate whose cost lower
//   bound (costing::cost_lower_bound) cannot enter the best-k list nor either front of this
//   thread is counted feasible without being priced. Skipping it leaves the thread's list and
//   fronts exactly as inserting it would (TopK::rejects_above, ParetoFront::dominates_above),
//   and the merged result does not depend on how candidates were split among threads.
void Searcher::place(const workload::TrainingJob& job, const perf::TrainingEstimate& est,
                     Candidate c, Partial& out) const {
  const auto& prices = costs_[c.gpu_option];
  const double n = static_cast<double>(prices.size());
  out.evaluated += prices.size();
  const auto& k = constraints_;
  // Wall days >= compute days, less a rounding of the loss terms (they come from subtractions).
  const double days_floor = core::in_days(est.compute_time) * (1 - 1e-9);
  if (k.deadline_days && days_floor > *k.deadline_days) {
    out.rejected[static_cast<int>(Rejection::kMissesDeadline)] += n;
    return;
  }
  std::optional<costing::FailureOverhead> failures;
  auto known_failures = [&]() -> const costing::FailureOverhead& {
    if (!failures) failures = costing::failure_overhead(job, est, prices[0]);
    return *failures;
  };
  if (k.deadline_days) {
    c.wall_days = core::in_days(est.compute_time + known_failures().total());
    if (c.wall_days > *k.deadline_days) {
      out.rejected[static_cast<int>(Rejection::kMissesDeadline)] += n;
      return;
    }
  }
  for (size_t i = 0; i < prices.size(); ++i) {
    c.price_option = static_cast<int>(i);
    if (k.budget_usd) {
      price(job, est, known_failures(), c, out);
      if (auto why = reject(c)) {
        out.rejected[static_cast<int>(*why)] += 1;
        continue;
      }
      keep(c, out);
      continue;
    }
    if (k.min_mfu && c.mfu < *k.min_mfu) {
      out.rejected[static_cast<int>(Rejection::kBelowMfuFloor)] += 1;
      continue;
    }
    Candidate bound = c;
    const core::Seconds wall = failures ? est.compute_time + failures->total() : est.compute_time;
    bound.wall_days = failures ? c.wall_days : days_floor;
    bound.cost_usd = costing::cost_lower_bound(job, wall, prices[i]).value();
    if (out.rejects_above(bound)) {
      ++out.feasible;
      continue;
    }
    price(job, est, known_failures(), c, out);
    keep(c, out);
  }
}

// The cost and wall time of `c` at its price.
void Searcher::price(const workload::TrainingJob& job, const perf::TrainingEstimate& est,
                     const costing::FailureOverhead& failures, Candidate& c, Partial& out) const {
  ++out.priced;
  const auto cost =
      costing::estimate_cost(job, est, costs_[c.gpu_option][c.price_option], failures);
  c.wall_days = core::in_days(cost.wall_time);
  c.gpu_hours = cost.gpu_hours;
  c.cost_usd = cost.total.value();
}

void Searcher::keep(const Candidate& c, Partial& out) {
  ++out.feasible;
  out.top.insert(c);
  if (!c.memory_tight) {  // the fronts hold plans that fit
    out.cost_time.insert(c);
    out.cost_gpus.insert(c);
  }
}

std::optional<Rejection> Searcher::reject(const Candidate& c) const {
  if (constraints_.deadline_days && c.wall_days > *constraints_.deadline_days) {
    return Rejection::kMissesDeadline;
  }
  if (constraints_.budget_usd && c.cost_usd > *constraints_.budget_usd) {
    return Rejection::kOverBudget;
  }
  if (constraints_.min_mfu && c.mfu < *constraints_.min_mfu) return Rejection::kBelowMfuFloor;
  return std::nullopt;
}

}  // namespace aicost::search

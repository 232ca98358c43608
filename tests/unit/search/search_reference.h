// The reference of the search tests (search_test.cc, search_constraints_test.cc): a small
// hand-built case (8-layer dense model, 2 GPU types, 8..64 GPUs, batch 64) and a naive brute-force
// enumeration written here, independently of the search's enumerator, pruning and thread pool.
#pragma once

#include <array>
#include <set>
#include <string>
#include <vector>

#include "aicost/costing/cost_model.h"
#include "aicost/search/search.h"
#include "aicost/workload/training_job.h"

namespace aicost::search::reference {

inline constexpr int kLayers = 8, kHidden = 1024, kHeads = 16, kSeq = 2048, kBatch = 64;
inline constexpr int kMinGpus = 8, kMaxGpus = 64;
inline constexpr double kHeadroom = 0.92;  // ~6.4 GB usable: the larger layouts run out of memory

// A catalogued GPU at the given prices (USD per GPU-hour).
GpuOption gpu_option(const std::string& id, const std::vector<double>& usd_per_hour);

struct Case {
  workload::TrainingJob base;
  costing::CostInputs costs;
  SearchSpace space;
};

// 8 layers, hidden 1024, 16 heads (MHA), f = 4h; 1e10 tokens of 2048; batch 64 sequences.
// A100 80GB at two prices, H100 80GB at one; 8..64 GPUs in whole nodes of 8.
Case small_case();

struct Naive {
  double enumerated = 0;
  double out_of_memory = 0, misses_deadline = 0, over_budget = 0, below_mfu = 0;
  std::vector<Candidate> feasible;
};

// run_search on the case.
SearchResult search(const Case& c, const Constraints& k, Objective o = Objective::kCheapest,
                    int threads = 1, bool prune = true, int top = 10);

// Every combination of the option lists, one at a time, through validate / memory / step /
// cost; constraints applied in the documented order (deadline, budget, MFU floor).
Naive brute_force(const Case& c, const Constraints& k);
// The naive best: the minimum of (primary, secondary, key) by a linear scan.
Candidate naive_best(const std::vector<Candidate>& all, Objective o);
// The naive cost/wall-days front: candidates no other is at least as good as in both metrics
// and strictly better in one (exact duplicates: the smallest key stays), as a set of keys.
std::set<std::array<int, 14>> naive_front(const std::vector<Candidate>& all);
std::set<std::array<int, 14>> keys(const std::vector<Candidate>& v);

// Field by field, with gtest expectations.
void expect_same(const Candidate& a, const Candidate& b);
void expect_same(const std::vector<Candidate>& a, const std::vector<Candidate>& b);
void expect_same(const SearchResult& a, const SearchResult& b);

double rejected(const SearchResult& r, Rejection why);

// Constraints that each reject part of the space: the deadline at the 70th percentile of wall
// days, the budget at the 80th percentile of cost, the MFU floor at the 20th percentile of MFU
// (all over the unconstrained feasible set), and a memory headroom that leaves ~6.4 GB.
Constraints biting_constraints(const Case& c);

}  // namespace aicost::search::reference

// Private to search: best-k lists and Pareto fronts that give the same answer whatever the order
// candidates arrive in (ties are broken by Candidate::key()).
#pragma once

#include <vector>

#include "aicost/search/search.h"

namespace aicost::search {

// a before b under the objective; a strict total order. Plans that fit come before tight ones.
bool better(const Candidate& a, const Candidate& b, Objective objective);

// Same GPU, count, price and batch, and the same number in every output: the same plan to a
// reader, whatever its layout (CP2 with micro-batch 1 and CP4 with micro-batch 2, say).
bool same_outputs(const Candidate& a, const Candidate& b);

// The `k` best candidates with distinct outputs, best first. A candidate with the same outputs as
// one kept (same_outputs) joins it as an alias instead of taking a place; of such a group the
// smallest key() is kept and the others listed, by key, whatever the order they came in.
class TopK {
 public:
  TopK(int k, Objective objective) : k_(k), objective_(objective) {}
  void insert(const Candidate& c);
  void merge(const TopK& other);
  const std::vector<Candidate>& items() const { return items_; }
  const std::vector<std::vector<Candidate>>& aliases() const {
    return aliases_;
  }  // parallel to items()
  // True when insert(c) would leave the list unchanged for every candidate c that equals
  // `bound` except for a cost_usd and a wall_days at least bound's (bound holds lower bounds of
  // those two, the other fields exactly): the list is full and its last entry ranks before c.
  bool rejects_above(const Candidate& bound) const;

 private:
  int k_;
  Objective objective_;
  std::vector<Candidate> items_;
  std::vector<std::vector<Candidate>> aliases_;
};

// Candidates that no other candidate dominates in (cost, second metric); lower is better in both.
// Dominance: a <= b in both metrics and a is smaller in one of them or in key() — a strict
// partial order, so the front is the same set whatever the insertion order.
class ParetoFront {
 public:
  enum class Metric { kWallDays, kGpus };
  explicit ParetoFront(Metric second) : second_(second) {}
  void insert(const Candidate& c);
  void merge(const ParetoFront& other);
  // True when a point of the front dominates every candidate c that equals `bound` except for a
  // cost_usd and a wall_days at least bound's: a point strictly cheaper than the bound and no
  // worse in the second metric dominates c, so insert(c) would leave the front unchanged.
  bool dominates_above(const Candidate& bound) const;
  // Sorted by cost, then the second metric.
  std::vector<Candidate> sorted() const;

 private:
  bool dominates(const Candidate& a, const Candidate& b) const;
  double metric(const Candidate& c) const;
  Metric second_;
  std::vector<Candidate> points_;
};

}  // namespace aicost::search

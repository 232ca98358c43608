#include "pareto.h"

#include <algorithm>

namespace aicost::search {

bool better(const Candidate& a, const Candidate& b, Objective objective) {
  // A plan that fits ranks before a tight one (over the memory limit within the model's error).
  if (a.memory_tight != b.memory_tight) return !a.memory_tight;
  auto by = [&](double x, double y, double x2, double y2) {
    if (x != y) return x < y;
    if (x2 != y2) return x2 < y2;
    return a.key() < b.key();
  };
  switch (objective) {
    case Objective::kCheapest: return by(a.cost_usd, b.cost_usd, a.wall_days, b.wall_days);
    case Objective::kFastest: return by(a.wall_days, b.wall_days, a.cost_usd, b.cost_usd);
    case Objective::kBestMfu: return by(-a.mfu, -b.mfu, a.cost_usd, b.cost_usd);
  }
  return a.key() < b.key();
}

bool same_outputs(const Candidate& a, const Candidate& b) {
  return a.gpu_option == b.gpu_option && a.price_option == b.price_option && a.gpus == b.gpus &&
         a.global_batch == b.global_batch && a.step_time_s == b.step_time_s &&
         a.wall_days == b.wall_days && a.gpu_hours == b.gpu_hours && a.cost_usd == b.cost_usd &&
         a.mfu == b.mfu && a.memory_gib == b.memory_gib && a.memory_tight == b.memory_tight;
}

void TopK::insert(const Candidate& c) {
  if (k_ <= 0) return;
  for (size_t i = 0; i < items_.size(); ++i) {
    if (!same_outputs(c, items_[i])) continue;
    // The group ranks where its smallest key does; same outputs, so only the key moves it.
    auto& group = aliases_[i];
    Candidate alias = c;
    if (c.key() < items_[i].key()) std::swap(alias, items_[i]);
    group.insert(
        std::upper_bound(group.begin(), group.end(), alias,
                         [](const Candidate& x, const Candidate& y) { return x.key() < y.key(); }),
        alias);
    while (i > 0 && better(items_[i], items_[i - 1], objective_)) {
      std::swap(items_[i], items_[i - 1]);
      std::swap(aliases_[i], aliases_[i - 1]);
      --i;
    }
    return;
  }
  if (static_cast<int>(items_.size()) == k_ && !better(c, items_.back(), objective_)) return;
  auto at = std::upper_bound(
      items_.begin(), items_.end(), c,
      [&](const Candidate& x, const Candidate& y) { return better(x, y, objective_); });
  aliases_.insert(aliases_.begin() + (at - items_.begin()), std::vector<Candidate>{});
  items_.insert(at, c);
  if (static_cast<int>(items_.size()) > k_) {
    items_.pop_back();
    aliases_.pop_back();
  }
}

bool TopK::rejects_above(const Candidate& bound) const {
  if (k_ <= 0) return true;
  if (static_cast<int>(items_.size()) < k_) return false;
  const Candidate& last = items_.back();
  // Mirrors better(c, last): a plan that fits ranks first, then the objective's metrics.
  if (bound.memory_tight != last.memory_tight) return bound.memory_tight;
  switch (objective_) {
    case Objective::kCheapest: return bound.cost_usd > last.cost_usd;
    case Objective::kFastest: return bound.wall_days > last.wall_days;
    case Objective::kBestMfu:
      return bound.mfu < last.mfu || (bound.mfu == last.mfu && bound.cost_usd > last.cost_usd);
  }
  return false;
}

void TopK::merge(const TopK& other) {
  for (size_t i = 0; i < other.items_.size(); ++i) {
    insert(other.items_[i]);
    for (const auto& a : other.aliases_[i]) insert(a);
  }
}

double ParetoFront::metric(const Candidate& c) const {
  return second_ == Metric::kWallDays ? c.wall_days : static_cast<double>(c.gpus);
}

bool ParetoFront::dominates(const Candidate& a, const Candidate& b) const {
  const double ma = metric(a), mb = metric(b);
  if (a.cost_usd > b.cost_usd || ma > mb) return false;
  return a.cost_usd < b.cost_usd || ma < mb || a.key() < b.key();
}

bool ParetoFront::dominates_above(const Candidate& bound) const {
  const double m = metric(bound);
  return std::any_of(points_.begin(), points_.end(), [&](const Candidate& p) {
    return p.cost_usd < bound.cost_usd && metric(p) <= m;
  });
}

void ParetoFront::insert(const Candidate& c) {
  for (const auto& p : points_) {
    if (dominates(p, c)) return;
  }
  std::erase_if(points_, [&](const Candidate& p) { return dominates(c, p); });
  points_.push_back(c);
}

void ParetoFront::merge(const ParetoFront& other) {
  for (const auto& c : other.points_) insert(c);
}

std::vector<Candidate> ParetoFront::sorted() const {
  std::vector<Candidate> out = points_;
  std::sort(out.begin(), out.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.cost_usd != b.cost_usd) return a.cost_usd < b.cost_usd;
    if (metric(a) != metric(b)) return metric(a) < metric(b);
    return a.key() < b.key();
  });
  return out;
}

}  // namespace aicost::search

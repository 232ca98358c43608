// The storage detectors (waste.h): storage growing too fast, logs kept beyond retention, and the
// same dataset or checkpoint stored more than once.
#include <algorithm>
#include <cstddef>
#include <set>
#include <tuple>

#include "aicost/core/text.h"
#include "aicost/governance/waste.h"
#include "waste_common.h"

namespace aicost::governance {
namespace {

using ledger::Day;
using waste::money;
using waste::percent;
using waste::rate;
using waste::sorted;

std::string gb(double v) { return core::group_digits(v, v < 100 ? 1 : 0) + " GB"; }

}  // namespace

std::vector<WasteFinding> storage_growth(const std::vector<StorageSeries>& series,
                                         const StorageGrowthOptions& o) {
  std::vector<WasteFinding> out;
  for (const StorageSeries& s : series) {
    if (s.daily_cost.empty()) continue;
    Day last = s.daily_cost.front().first;
    for (const auto& p : s.daily_cost) last = std::max(last, p.first);
    const Day from = last - std::max(o.window_days, 1) + 1;
    // x = day − last, so the intercept is the fitted value on the last day.
    std::vector<std::pair<double, double>> pts;
    for (const auto& [day, cost] : s.daily_cost)
      if (day >= from) pts.push_back({static_cast<double>(day - last), cost});
    const double n = static_cast<double>(pts.size());
    double mx = 0, my = 0, x0 = 0;
    for (const auto& [x, y] : pts) {
      mx += x / n;
      my += y / n;
      x0 = std::min(x0, x);
    }
    double sxx = 0, sxy = 0;
    for (const auto& [x, y] : pts) {
      sxx += (x - mx) * (x - mx);
      sxy += (x - mx) * (y - my);
    }
    if (sxx <= 0) continue;  // fewer than 2 distinct days
    const double slope = sxy / sxx, today = my - slope * mx, start = today + slope * x0;
    if (start <= 0) continue;
    const double growth = slope * kDaysPerMonth / start;
    if (growth <= o.max_monthly_growth) continue;
    WasteFinding f{WasteKind::kStorageGrowth, s.scope, s.currency, 0, "", {}};
    f.monthly_saving = std::max(0.0, (growth - o.max_monthly_growth) * today * kDaysPerMonth);
    f.message = "storage " + s.scope + " grows " + percent(growth) + " per 30 days (limit " +
                percent(o.max_monthly_growth) + "), " + money(today, s.currency) +
                "/day now; growth above the limit: " + money(f.monthly_saving, s.currency) +
                "/month";
    f.evidence = {core::sprintf("slope %+.4f %s/day over %.0f days of data", slope,
                                s.currency.c_str(), -x0 + 1),
                  ledger::day_text(last) + ": fitted " + money(today, s.currency) + "/day",
                  ledger::day_text(last + static_cast<Day>(x0)) + ": fitted " +
                      money(start, s.currency) + "/day"};
    out.push_back(std::move(f));
  }
  return sorted(std::move(out));
}

std::vector<WasteFinding> log_retention(const std::vector<LogStorage>& logs,
                                        const LogRetentionOptions& o) {
  std::vector<WasteFinding> out;
  for (const LogStorage& l : logs) {
    const auto& v = l.stored_gb;
    if (v.size() < 2) continue;
    bool drops = false;
    for (std::size_t i = 1; i < v.size(); ++i) drops = drops || v[i].second < v[i - 1].second;
    if (drops || v.back().first - v.front().first <= o.retention_days) continue;
    const Day cutoff = v.back().first - o.retention_days;
    auto at = std::find_if(v.rbegin(), v.rend(), [&](const auto& p) { return p.first <= cutoff; });
    const double excess = at->second;  // exists: v.front() is before the cutoff
    if (excess <= 0) continue;
    WasteFinding f{
        WasteKind::kLogRetention, l.resource_id, l.currency, excess * l.price_per_gb_month, "", {}};
    f.message = "logs " + l.resource_id + ": " + gb(v.back().second) +
                core::sprintf(" stored and nothing deleted over %d days; ~",
                              v.back().first - v.front().first) +
                gb(excess) +
                core::sprintf(" is older than the %d-day retention; ", o.retention_days) +
                (l.price_per_gb_month > 0
                     ? money(f.monthly_saving, l.currency) + "/month at " +
                           rate(l.price_per_gb_month, l.currency) + "/GB-month once expired"
                     : std::string("no price, saving not estimated"));
    f.evidence = {
        ledger::day_text(at->first) + ": " + gb(excess) +
            " already stored before the retention window",
        ledger::day_text(v.back().first) + ": " + gb(v.back().second) + " at the last sample",
        ledger::day_text(v.front().first) + ": " + gb(v.front().second) + " at the first sample"};
    out.push_back(std::move(f));
  }
  return sorted(std::move(out));
}

std::vector<WasteFinding> duplicate_storage(const std::vector<StoredObject>& objects) {
  std::map<std::pair<std::string, std::string>, std::vector<const StoredObject*>> groups;
  for (const StoredObject& o : objects) {
    if (o.content_key.empty()) continue;
    auto& g = groups[{o.content_key, o.currency}];
    if (std::none_of(g.begin(), g.end(),
                     [&](const StoredObject* c) { return c->resource_id == o.resource_id; }))
      g.push_back(&o);
  }
  std::vector<WasteFinding> out;
  for (auto& [key, copies] : groups) {
    if (copies.size() < 2) continue;
    const StoredObject* keep =
        *std::min_element(copies.begin(), copies.end(), [](const auto* a, const auto* b) {
          return std::tie(a->monthly_cost, a->resource_id) <
                 std::tie(b->monthly_cost, b->resource_id);
        });
    WasteFinding f{WasteKind::kDuplicateStorage, key.first, key.second, 0, "", {}};
    double total_gb = 0;
    std::set<std::string> regions;
    for (const StoredObject* c : copies) {
      if (c != keep) f.monthly_saving += c->monthly_cost;
      total_gb += c->stored_gb;
      if (!c->region.empty()) regions.insert(c->region);
    }
    f.message = core::sprintf("'%s' is stored %zu times (", key.first.c_str(), copies.size()) +
                gb(total_gb) + " in all); keeping the cheapest copy (" + keep->resource_id + ", " +
                money(keep->monthly_cost, key.second) + "/month) saves " +
                money(f.monthly_saving, key.second) + "/month";
    if (regions.size() > 1) {
      std::string list;
      for (const std::string& r : regions) list += (list.empty() ? "" : ", ") + r;
      f.message += core::sprintf(
          "; the copies are in %zu regions (%s): a cross-region copy may be a DR replica",
          regions.size(), list.c_str());
    }
    std::stable_sort(copies.begin(), copies.end(), [](const auto* a, const auto* b) {
      return a->monthly_cost > b->monthly_cost;
    });
    for (const StoredObject* c : copies)
      f.evidence.push_back(c->resource_id + " (" + c->service + ", " + c->region +
                           "): " + gb(c->stored_gb) + ", " + money(c->monthly_cost, key.second) +
                           "/month" + (c == keep ? " [keep]" : ""));
    out.push_back(std::move(f));
  }
  return sorted(std::move(out));
}

}  // namespace aicost::governance

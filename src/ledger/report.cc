#include "aicost/ledger/report.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace aicost::ledger {
namespace {

// Group key inside a report: period, values, currency.
using LineKey = std::tuple<std::string, std::vector<std::string>, std::string>;

}  // namespace

core::Result<Granularity> parse_granularity(std::string_view text) {
  if (text == "total" || text.empty()) return Granularity::kTotal;
  if (text == "day" || text == "daily") return Granularity::kDay;
  if (text == "week" || text == "weekly") return Granularity::kWeek;
  if (text == "month" || text == "monthly") return Granularity::kMonth;
  return core::make_error(
      core::ErrorCode::kInvalidInput,
      "unknown granularity '" + std::string(text) + "'; use total, day, week or month");
}

std::string period_label(Granularity g, Day d) {
  switch (g) {
    case Granularity::kTotal: return {};
    case Granularity::kDay: return day_text(d);
    case Granularity::kMonth: return day_text(d).substr(0, 7);
    case Granularity::kWeek: {
      const int weekday = ((d + 3) % 7 + 7) % 7;  // Monday = 0; 1970-01-01 was a Thursday
      const Day thursday = d - weekday + 3;       // the ISO year is the year of the week's Thursday
      const int year = std::stoi(day_text(thursday).substr(0, 4));
      const int week = (thursday - days_from_civil(year, 1, 1)) / 7 + 1;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%04d-W%02d", year, week);
      return buf;
    }
  }
  return {};
}

AggregateQuery aggregate_query(const ReportRequest& r) {
  AggregateQuery q;
  auto tag_key = [&r](const std::string& key) {
    TagKey k{key, {}};
    if (auto it = r.aliases.find(key); it != r.aliases.end()) k.aliases = it->second;
    return k;
  };
  for (const auto& k : r.by) {
    if (k.dim == Dimension::kTag)
      q.tags.push_back(tag_key(k.tag_key));
    else if (std::find(q.dims.begin(), q.dims.end(), k.dim) == q.dims.end())
      q.dims.push_back(k.dim);
  }
  for (const auto& f : r.filters) {
    if (f.key.dim == Dimension::kTag)
      q.tag_filters.push_back({tag_key(f.key.tag_key), f.value});
    else
      q.filters.push_back(f);
  }
  // The untagged share counts taggable spend only (Usage and Purchase), so the category rides
  // along.
  if (!q.tags.empty() &&
      std::find(q.dims.begin(), q.dims.end(), Dimension::kChargeCategory) == q.dims.end())
    q.dims.push_back(Dimension::kChargeCategory);
  q.by_day = r.granularity != Granularity::kTotal;
  q.from = r.from;
  q.to = r.to;
  return q;
}

Report build_report(const ReportRequest& r, const std::vector<AggregateRow>& rows) {
  const AggregateQuery q = aggregate_query(r);
  static const std::string kUntaggedText = kUntagged;
  std::map<LineKey, Sums> lines;
  std::map<std::string, Sums> totals;

  const auto category_pos = static_cast<std::size_t>(
      std::find(q.dims.begin(), q.dims.end(), Dimension::kChargeCategory) - q.dims.begin());
  // Where each entry of r.by sits in an aggregate row: plain dimensions first, then tags in order.
  std::vector<std::size_t> value_pos(r.by.size(), 0);
  for (std::size_t i = 0, tag = 0; i < r.by.size(); ++i)
    value_pos[i] = r.by[i].dim == Dimension::kTag
                       ? q.dims.size() + tag++
                       : static_cast<std::size_t>(
                             std::find(q.dims.begin(), q.dims.end(), r.by[i].dim) - q.dims.begin());

  std::unordered_map<Day, std::string> labels;
  auto label = [&](Day d) -> const std::string& {
    auto [it, fresh] = labels.try_emplace(d);
    if (fresh) it->second = period_label(r.granularity, d);
    return it->second;
  };
  // Untagged share per (tag key of r.by, currency): untagged and all taggable effective cost.
  std::map<std::pair<std::size_t, std::string>, std::pair<core::WideNanos, core::WideNanos>>
      untagged;

  // Lines accumulate in a hash map on a length-prefixed key; ordered afterwards.
  std::unordered_map<std::string, Sums> accumulated;
  std::string key;
  auto append = [&key](std::string_view v) {
    const auto n = static_cast<std::uint32_t>(v.size());
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
    key.append(v);
  };
  for (const auto& row : rows) {
    const bool taggable = category_pos >= q.dims.size() || row.values[category_pos].empty() ||
                          row.values[category_pos] == "Usage" ||
                          row.values[category_pos] == "Purchase";
    key.clear();
    append(label(row.day));
    for (std::size_t i = 0; i < r.by.size(); ++i) {
      const std::string& value = row.values[value_pos[i]];
      if (r.by[i].dim == Dimension::kTag) {
        append(value.empty() ? kUntaggedText : value);
        if (taggable) {
          auto& u = untagged[{i, row.currency}];
          u.second += row.sums.effective;
          if (value.empty()) u.first += row.sums.effective;
        }
      } else {
        append(value);
      }
    }
    append(row.currency);
    accumulated[key] += row.sums;
    totals[row.currency] += row.sums;
  }
  for (const auto& [k, sums] : accumulated) {
    // Unpack the length-prefixed key: period, values..., currency.
    std::vector<std::string> parts;
    for (std::size_t at = 0; at < k.size();) {
      std::uint32_t n = 0;
      std::memcpy(&n, k.data() + at, sizeof n);
      parts.emplace_back(k.substr(at + sizeof n, n));
      at += sizeof n + n;
    }
    std::string currency = std::move(parts.back());
    parts.pop_back();
    std::string period = std::move(parts.front());
    parts.erase(parts.begin());
    lines[{std::move(period), std::move(parts), std::move(currency)}] = sums;
  }

  // Top-N groups by effective cost over all periods; the rest fold into (other).
  if (r.top > 0) {
    std::map<std::pair<std::vector<std::string>, std::string>, core::WideNanos> by_group;
    for (const auto& [key, sums] : lines)
      by_group[{std::get<1>(key), std::get<2>(key)}] += sums.effective;
    std::vector<std::pair<core::WideNanos, std::pair<std::vector<std::string>, std::string>>>
        ranked;
    for (const auto& [g, eff] : by_group) ranked.emplace_back(eff, g);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    if (ranked.size() > r.top) {
      std::map<std::pair<std::vector<std::string>, std::string>, bool> kept;
      for (std::size_t i = 0; i < r.top; ++i) kept[ranked[i].second] = true;
      std::map<LineKey, Sums> folded;
      const std::vector<std::string> other(r.by.size(), kOther);
      for (const auto& [key, sums] : lines) {
        const bool is_kept = kept.count({std::get<1>(key), std::get<2>(key)}) > 0;
        folded[{std::get<0>(key), is_kept ? std::get<1>(key) : other, std::get<2>(key)}] += sums;
      }
      lines = std::move(folded);
    }
  }

  Report out;
  out.request = r;
  for (const auto& [key, sums] : lines)
    out.lines.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), sums});
  std::stable_sort(out.lines.begin(), out.lines.end(),
                   [](const ReportLine& a, const ReportLine& b) {
                     if (a.period != b.period) return a.period < b.period;
                     const bool a_other = !a.values.empty() && a.values.front() == kOther;
                     const bool b_other = !b.values.empty() && b.values.front() == kOther;
                     if (a_other != b_other) return b_other;  // (other) last in its period
                     return a.sums.effective > b.sums.effective;
                   });
  for (const auto& [currency, sums] : totals) out.totals.push_back({"", {}, currency, sums});
  for (const auto& [k, u] : untagged) {
    const double share =
        u.second != 0 ? static_cast<double>(u.first) / static_cast<double>(u.second) : 0.0;
    out.untagged.push_back({r.by[k.first].tag_key, k.second, share, u.first});
  }
  return out;
}

std::optional<double> host_activity(const std::vector<HostActivity>& activity,
                                    const std::string& host, Day day) {
  // activity is sorted by host, day, metric (the store's ORDER BY).
  std::optional<double> best;
  int best_rank = 99;
  auto rank = [](GpuMetric m) {
    return m == GpuMetric::kSmActive ? 0 : m == GpuMetric::kGrEngineActive ? 1 : 2;
  };
  auto it = std::lower_bound(activity.begin(), activity.end(),
                             std::make_pair(std::string_view(host), day),
                             [](const HostActivity& a, const std::pair<std::string_view, Day>& k) {
                               return std::make_pair(std::string_view(a.host), a.day) < k;
                             });
  for (; it != activity.end() && it->host == host && it->day == day; ++it) {
    if (rank(it->metric) < best_rank) {
      best_rank = rank(it->metric);
      best = std::clamp(it->mean, 0.0, 1.0);
    }
  }
  return best;
}

}  // namespace aicost::ledger

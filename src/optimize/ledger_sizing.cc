#include <algorithm>
#include <array>
#include <map>

#include "aicost/core/text.h"
#include "aicost/optimize/ledger_levers.h"

namespace aicost::optimize {

CommitmentFit fit_commitment(std::span<const double> usage, double ratio, double level) {
  CommitmentFit f;
  f.level = level;
  if (usage.empty()) return f;
  double over = 0, covered = 0, total = 0;
  for (const double u : usage) {
    over += std::max(u - level, 0.0);
    covered += std::min(u, level);
    total += u;
  }
  const double n = static_cast<double>(usage.size());
  f.cost = level * ratio + over / n;
  f.on_demand_cost = total / n;
  f.covered = covered / n;
  f.utilisation = level > 0 ? f.covered / level : 1.0;
  f.coverage = total > 0 ? covered / total : 0.0;
  return f;
}

CommitmentFit best_commitment(std::span<const double> usage, double ratio) {
  std::vector<double> levels(usage.begin(), usage.end());
  levels.push_back(0);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  CommitmentFit best = fit_commitment(usage, ratio, 0);
  for (const double c : levels) {
    const auto f = fit_commitment(usage, ratio, c);
    // A relative margin keeps a tie (a step that saves exactly what it costs) at the lower level.
    if (f.cost < best.cost - 1e-12 * std::max(1.0, best.cost)) best = f;
  }
  return best;
}

namespace {

constexpr int kWeek = 168;
constexpr const char* kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

// Hours after Monday 00:00 UTC; 1970-01-01 was a Thursday (weekday 3 counted from Monday).
int hour_of_week(ledger::UnixSeconds t) {
  const auto day = ledger::day_of(t);
  const int weekday = static_cast<int>(((day % 7) + 7 + 3) % 7);
  const auto in_day = t - static_cast<ledger::UnixSeconds>(day) * 86400;
  return weekday * 24 + static_cast<int>(in_day / 3600);
}

}  // namespace

IdleSchedule idle_schedule(std::span<const HostHour> hours, const IdleScheduleOptions& o) {
  std::array<int, kWeek> seen{}, idle{};
  for (const auto& h : hours) {
    const int s = hour_of_week(h.hour);
    ++seen[s];
    if (h.activity < o.idle_below) ++idle[s];
  }
  std::array<bool, kWeek> stop{};
  for (int s = 0; s < kWeek; ++s) {
    stop[s] = seen[s] >= o.min_weeks && idle[s] >= o.idle_share * seen[s];
  }
  IdleSchedule out;
  out.observed_hours = static_cast<int>(hours.size());
  // Runs of stopped hours on the weekly circle: start where a stopped hour follows a running one.
  const bool all = std::all_of(stop.begin(), stop.end(), [](bool b) { return b; });
  if (all) {
    out.stops.push_back({0, kWeek});
  } else {
    for (int s = 0; s < kWeek; ++s) {
      if (!stop[s] || stop[(s + kWeek - 1) % kWeek]) continue;
      int len = 0;
      while (stop[(s + len) % kWeek]) ++len;
      if (len >= o.min_stop_hours) out.stops.push_back({s, len});
    }
  }
  std::array<bool, kWeek> stopped{};
  for (const auto& w : out.stops) {
    out.stopped_hours_per_week += w.hours;
    for (int i = 0; i < w.hours; ++i) stopped[(w.start + i) % kWeek] = true;
  }
  for (const auto& h : hours) {
    if (stopped[hour_of_week(h.hour)] && h.activity >= o.idle_below)
      out.active_in_stop.push_back(h.hour);
  }
  std::sort(out.active_in_stop.begin(), out.active_in_stop.end());
  return out;
}

std::string schedule_text(const std::vector<StopWindow>& stops) {
  if (stops.empty()) return "no stop";
  if (stops.size() == 1 && stops[0].hours == kWeek) return "stopped all week";
  std::string out;
  for (std::size_t i = 0; i < stops.size();) {
    // Consecutive days whose stop starts at the same hour and lasts as long.
    std::size_t j = i + 1;
    while (j < stops.size() && stops[j].hours == stops[i].hours &&
           stops[j].start == stops[j - 1].start + 24)
      ++j;
    const int first = stops[i].start / 24, last = stops[j - 1].start / 24;
    std::string days = kDays[first];
    if (last > first) days += std::string(last == first + 1 ? "," : "-") + kDays[last];
    out += (out.empty() ? "" : ", ") +
           core::sprintf("%s %02d:00 for %d h", days.c_str(), stops[i].start % 24, stops[i].hours);
    i = j;
  }
  return out + " (UTC)";
}

}  // namespace aicost::optimize

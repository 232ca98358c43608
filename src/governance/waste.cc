#include "aicost/governance/waste.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <set>
#include <tuple>

#include "aicost/core/text.h"
#include "waste_common.h"

namespace aicost::governance {
namespace {

using ledger::Day;
using ledger::UnixSeconds;
using waste::money;
using waste::percent;
using waste::rate;
using waste::sorted;

constexpr std::size_t kMaxEvidence = 10;
// Waste savings are per 30-day month (kDaysPerMonth, as the findings say), not the 730-hour
// average month (core::kHoursPerMonth) that plans are priced by.
constexpr double kHoursPer30Days = kDaysPerMonth * 24;

std::string hour_text(UnixSeconds t) {
  const long long in_day = ((t % 86400) + 86400) % 86400;
  return ledger::day_text(ledger::day_of(t)) + core::sprintf("T%02lld:00Z", in_day / 3600);
}

// Keeps the first kMaxEvidence − 1 lines and says how many were left out.
void cap(std::vector<std::string>& lines) {
  if (lines.size() <= kMaxEvidence) return;
  const std::size_t more = lines.size() - (kMaxEvidence - 1);
  lines.resize(kMaxEvidence - 1);
  lines.push_back(core::sprintf("... and %zu more", more));
}

struct IdleRun {
  std::string gpu;
  UnixSeconds first = 0;
  int hours = 0;
  int hung_hours = 0;
  double activity_sum = 0;
};

}  // namespace

namespace waste {

std::string money(double v, const std::string& currency) {
  return core::group_digits(v, 2) + " " + currency;
}
std::string percent(double fraction) { return core::sprintf("%.1f %%", fraction * 100); }
std::string rate(double v, const std::string& currency) {
  return core::sprintf("%.4g ", v) + currency;
}

std::vector<WasteFinding> sorted(std::vector<WasteFinding> out) {
  for (WasteFinding& f : out) cap(f.evidence);
  sort_findings(out);
  return out;
}

}  // namespace waste

const char* waste_kind_name(WasteKind kind) {
  switch (kind) {
    case WasteKind::kIdleGpu: return "idle_gpu";
    case WasteKind::kHungGpu: return "hung_gpu";
    case WasteKind::kExpiredDevResource: return "expired_dev_resource";
    case WasteKind::kUntaggedSpend: return "untagged_spend";
    case WasteKind::kStorageGrowth: return "storage_growth";
    case WasteKind::kLogRetention: return "log_retention";
    case WasteKind::kDuplicateStorage: return "duplicate_storage";
    case WasteKind::kUnusedCommitment: return "unused_commitment";
    case WasteKind::kLowUtilisationFleet: return "low_utilisation_fleet";
  }
  return "unknown";
}

void sort_findings(std::vector<WasteFinding>& findings) {
  // Their numbers sorted, then each finding moved once: a merge sort of the findings themselves
  // moves each (four strings and a vector) at every pass, about 2 % of `ledger check` on the
  // 30M-charge benchmark (150,798 findings).
  if (findings.size() < 2) return;
  std::vector<std::size_t> order(findings.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&findings](std::size_t x, std::size_t y) {
    const WasteFinding &a = findings[x], &b = findings[y];
    return std::tie(b.monthly_saving, a.kind, a.subject) <
           std::tie(a.monthly_saving, b.kind, b.subject);
  });
  std::vector<WasteFinding> sorted;
  sorted.reserve(findings.size());
  for (const std::size_t i : order) sorted.push_back(std::move(findings[i]));
  findings = std::move(sorted);
}

std::vector<WasteFinding> idle_gpus(const std::vector<GpuActivityHour>& hours,
                                    const std::map<std::string, double>& cost_per_gpu_hour_by_host,
                                    const std::string& currency, const IdleGpuOptions& o) {
  std::map<std::pair<std::string, std::string>, std::vector<const GpuActivityHour*>> by_gpu;
  std::map<std::string, std::vector<UnixSeconds>> covered;  // host -> hours with any sample
  // Hours usually come by host and GPU (as Store::gpu_hours gives them): one lookup per GPU.
  std::vector<const GpuActivityHour*>* gpu_hours = nullptr;
  std::vector<UnixSeconds>* host_hours = nullptr;
  for (const GpuActivityHour& h : hours) {
    const GpuActivityHour* prev = gpu_hours ? gpu_hours->back() : nullptr;
    if (!prev || prev->host != h.host) host_hours = &covered[h.host];
    if (!prev || prev->host != h.host || prev->gpu != h.gpu) gpu_hours = &by_gpu[{h.host, h.gpu}];
    gpu_hours->push_back(&h);
    host_hours->push_back(h.hour);
  }
  for (auto& [host, hs] : covered) {
    std::sort(hs.begin(), hs.end());
    hs.erase(std::unique(hs.begin(), hs.end()), hs.end());
  }
  const int min_hours = std::max(o.min_hours, 1);
  std::map<std::string, std::vector<IdleRun>> runs;  // by host
  for (auto& [key, samples] : by_gpu) {
    std::stable_sort(
        samples.begin(), samples.end(),
        [](const GpuActivityHour* a, const GpuActivityHour* b) { return a->hour < b->hour; });
    IdleRun run;
    auto close = [&, &host = key.first] {
      if (run.hours >= min_hours) runs[host].push_back(run);
      run = IdleRun{};
    };
    const GpuActivityHour* prev = nullptr;
    for (const GpuActivityHour* h : samples) {
      if (prev != nullptr && h->hour == prev->hour) continue;
      if (prev == nullptr || h->hour != prev->hour + 3600) close();
      prev = h;
      const std::optional<double> engine = h->sm_active ? h->sm_active : h->gr_engine_active;
      const std::optional<double> activity = engine ? engine : h->gpu_util;
      if (!activity || *activity >= o.idle_below) {
        close();
        continue;
      }
      if (run.hours == 0) run = IdleRun{key.second, h->hour, 0, 0, 0};
      ++run.hours;
      run.activity_sum += *activity;
      if (engine && h->gpu_util && *h->gpu_util >= o.util_busy_above) ++run.hung_hours;
    }
    close();
  }

  std::vector<WasteFinding> out;
  for (auto& [host, host_runs] : runs) {
    const auto price = cost_per_gpu_hour_by_host.find(host);
    const double observed = static_cast<double>(covered[host].size());
    for (const bool hung : {false, true}) {
      std::vector<IdleRun> rs;
      for (const IdleRun& r : host_runs)
        if ((2 * r.hung_hours >= r.hours) == hung) rs.push_back(r);
      if (rs.empty()) continue;
      std::stable_sort(rs.begin(), rs.end(),
                       [](const IdleRun& a, const IdleRun& b) { return a.hours > b.hours; });
      std::set<std::string> gpus;
      int gpu_hours = 0;
      for (const IdleRun& r : rs) {
        gpus.insert(r.gpu);
        gpu_hours += r.hours;
      }
      WasteFinding f{hung ? WasteKind::kHungGpu : WasteKind::kIdleGpu, host, currency, 0, "", {}};
      std::string what =
          hung ? core::sprintf(
                     "hung (GPU_UTIL >= %.2f while SM/engine activity < %.2f: a stuck job "
                     "that looks busy)",
                     o.util_busy_above, o.idle_below)
               : core::sprintf("idle (activity < %.2f)", o.idle_below);
      f.message = core::sprintf(
          "host %s: %zu GPU%s %s for %d GPU-hours in %.0f h observed, longest run %d h; ",
          host.c_str(), gpus.size(), gpus.size() == 1 ? "" : "s", what.c_str(), gpu_hours, observed,
          rs.front().hours);
      if (price == cost_per_gpu_hour_by_host.end()) {
        f.message += "no price for this host, saving not estimated";
      } else {
        f.monthly_saving = gpu_hours * price->second * kHoursPer30Days / observed;
        f.message += money(f.monthly_saving, currency) + "/month at " +
                     rate(price->second, currency) + "/GPU-hour, extrapolated to 30 days";
      }
      for (const IdleRun& r : rs) {
        std::string line = core::sprintf(
            "gpu %s: %s to %s, %d h, mean activity %.3f", r.gpu.c_str(), hour_text(r.first).c_str(),
            hour_text(r.first + 3600LL * r.hours).c_str(), r.hours, r.activity_sum / r.hours);
        if (hung)
          line += core::sprintf(", %d h with GPU_UTIL >= %.2f", r.hung_hours, o.util_busy_above);
        if (price != cost_per_gpu_hour_by_host.end())
          line += ", " + money(r.hours * price->second, currency);
        f.evidence.push_back(line);
      }
      out.push_back(std::move(f));
    }
  }
  return sorted(std::move(out));
}

const std::pair<const std::string, std::string>* dev_tag(
    const std::map<std::string, std::string>& tags, const TtlOptions& o) {
  for (const std::string& k : o.env_keys) {
    const auto tag = tags.find(k);
    if (tag == tags.end()) continue;
    const auto same = [&tag](const std::string& v) { return core::iequals(v, tag->second); };
    return std::any_of(o.dev_values.begin(), o.dev_values.end(), same) ? &*tag : nullptr;
  }
  return nullptr;
}

std::vector<WasteFinding> expired_dev_resources(const std::vector<ResourceDays>& resources,
                                                Day as_of, const TtlOptions& o) {
  std::vector<WasteFinding> out;
  for (const ResourceDays& r : resources) {
    const auto* tag = dev_tag(r.tags, o);
    if (!tag) continue;
    if (r.first_day > as_of - o.ttl_days || r.last_day < as_of - o.still_charging_within_days)
      continue;
    const int life = std::max(r.last_day - r.first_day + 1, 1);
    WasteFinding f{
        WasteKind::kExpiredDevResource, r.resource_id, r.currency, r.cost_last_30_days, "", {}};
    if (life < kDaysPerMonth) f.monthly_saving = r.cost_last_30_days * kDaysPerMonth / life;
    const std::string name =
        r.resource_name.empty() ? r.service : r.resource_name + ", " + r.service;
    const bool earlier = r.seen_from && r.first_day <= *r.seen_from;
    f.message =
        core::sprintf(
            "%s (%s) tagged %s=%s has charged since %s%s (%s%d days, TTL %d) and still did on %s: ",
            r.resource_id.c_str(), name.c_str(), tag->first.c_str(), tag->second.c_str(),
            ledger::day_text(r.first_day).c_str(), earlier ? " or earlier" : "",
            earlier ? "at least " : "", life, o.ttl_days, ledger::day_text(r.last_day).c_str()) +
        money(f.monthly_saving, r.currency) + "/month if deleted";
    f.evidence = {"cost in the last 30 days: " + money(r.cost_last_30_days, r.currency),
                  "first charge " + ledger::day_text(r.first_day) + ", last charge " +
                      ledger::day_text(r.last_day),
                  "tag " + tag->first + "=" + tag->second};
    out.push_back(std::move(f));
  }
  return sorted(std::move(out));
}

std::vector<WasteFinding> untagged_spend(const std::vector<UntaggedSpend>& spends,
                                         const UntaggedOptions& o) {
  std::vector<WasteFinding> out;
  for (const UntaggedSpend& s : spends) {
    if (s.taggable <= 0 || s.untagged / s.taggable <= o.max_share) continue;
    WasteFinding f{WasteKind::kUntaggedSpend, s.tag_key, s.currency, 0, "", {}};
    f.message =
        "tag " + s.tag_key + ": " + money(s.untagged, s.currency) + " of " +
        money(s.taggable, s.currency) + " (" + percent(s.untagged / s.taggable) + ", limit " +
        percent(o.max_share) +
        core::sprintf(") lacks it over %d days; unattributable rather than wasted, so no saving",
                      s.window_days);
    for (const auto& [what, cost] : s.top_untagged)
      f.evidence.push_back(what + ": " + money(cost, s.currency));
    out.push_back(std::move(f));
  }
  return sorted(std::move(out));
}

std::vector<WasteFinding> unused_commitments(const std::vector<CommitmentUse>& uses,
                                             const CommitmentOptions& o) {
  std::vector<WasteFinding> out;
  for (const CommitmentUse& u : uses) {
    const double total = u.used_cost + u.unused_cost;
    if (u.window_days <= 0 || total <= 0 || u.unused_cost / total <= o.min_unused_share) continue;
    WasteFinding f{WasteKind::kUnusedCommitment,
                   u.commitment_id,
                   u.currency,
                   u.unused_cost * kDaysPerMonth / u.window_days,
                   "",
                   {}};
    f.message = "commitment " + u.commitment_id + ": " + percent(u.unused_cost / total) +
                " unused (" + money(u.unused_cost, u.currency) + " of " + money(total, u.currency) +
                core::sprintf(" over %d days), ", u.window_days) +
                money(f.monthly_saving, u.currency) +
                "/month paid anyway; move workloads onto it or buy less at renewal";
    f.evidence = {core::sprintf("over %d days: used ", u.window_days) +
                  money(u.used_cost, u.currency) + ", unused " + money(u.unused_cost, u.currency)};
    out.push_back(std::move(f));
  }
  return sorted(std::move(out));
}

std::vector<WasteFinding> low_utilisation_fleets(const std::vector<FleetUse>& fleets,
                                                 const FleetOptions& o) {
  std::vector<WasteFinding> out;
  for (const FleetUse& u : fleets) {
    if (u.replicas <= 0 || u.mean_activity >= o.low_below) continue;
    const double need =
        u.replicas * std::max(o.target > 0 ? u.mean_activity / o.target : 1.0, u.peak_activity);
    // The epsilon keeps 10 × 0.3 = 3.0000000000000004 at 3 replicas.
    const int n = std::clamp(static_cast<int>(std::ceil(need - 1e-9)), 1, u.replicas);
    WasteFinding f{WasteKind::kLowUtilisationFleet,
                   u.fleet,
                   u.currency,
                   u.monthly_cost * (1 - static_cast<double>(n) / u.replicas),
                   "",
                   {}};
    f.message =
        core::sprintf("fleet %s: mean activity %.2f (limit %.2f), peak %.2f on %d replicas; ",
                      u.fleet.c_str(), u.mean_activity, o.low_below, u.peak_activity, u.replicas) +
        (n < u.replicas
             ? core::sprintf("%d replica%s would run at mean %.2f, peak %.2f: ", n,
                             n == 1 ? "" : "s", u.mean_activity * u.replicas / n,
                             u.peak_activity * u.replicas / n) +
                   "saves " + money(f.monthly_saving, u.currency) + "/month"
             : std::string("the peak needs every replica, autoscale instead of shrinking"));
    f.evidence = {core::sprintf("%d replicas, mean SM_ACTIVE %.3f, peak %.3f, ", u.replicas,
                                u.mean_activity, u.peak_activity) +
                  money(u.monthly_cost, u.currency) + "/month"};
    out.push_back(std::move(f));
  }
  return sorted(std::move(out));
}

}  // namespace aicost::governance

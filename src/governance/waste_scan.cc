#include "aicost/governance/waste_scan.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "aicost/ledger/report.h"
#include "waste_resources.h"

namespace aicost::governance {
namespace {

using ledger::Dimension;

// Hourly activity per host and GPU, pivoted from the store's rows: those of the activity metrics
// in [from, to) (Store::gpu_hours without memory over those days).
std::vector<GpuActivityHour> pivot(const std::vector<ledger::GpuHour>& rows, ledger::Day from,
                                   ledger::Day to) {
  const ledger::UnixSeconds first = static_cast<ledger::UnixSeconds>(from) * 86400,
                            end = static_cast<ledger::UnixSeconds>(to) * 86400;
  std::vector<GpuActivityHour> out;
  for (const auto& r : rows) {
    if (r.hour < first || r.hour >= end) continue;
    if (r.metric != ledger::GpuMetric::kSmActive &&
        r.metric != ledger::GpuMetric::kGrEngineActive && r.metric != ledger::GpuMetric::kGpuUtil)
      continue;
    if (out.empty() || out.back().host != r.host || out.back().gpu != r.gpu ||
        out.back().hour != r.hour)
      out.push_back({r.host, r.gpu, r.hour, std::nullopt, std::nullopt, std::nullopt});
    auto& h = out.back();
    (r.metric == ledger::GpuMetric::kSmActive         ? h.sm_active
     : r.metric == ledger::GpuMetric::kGrEngineActive ? h.gr_engine_active
                                                      : h.gpu_util) = r.mean();
  }
  return out;
}

double activity(const GpuActivityHour& h) {
  return h.sm_active          ? *h.sm_active
         : h.gr_engine_active ? *h.gr_engine_active
                              : h.gpu_util.value_or(0);
}

}  // namespace

WasteScan::WasteScan(const WasteOptions& options, ledger::Day as_of,
                     const std::map<std::string, std::vector<std::string>>& aliases)
    : o_(options), as_of_(as_of) {
  // Every resource's totals over the window (the TTL's days at least), and storage and log
  // resources by day over the look-back.
  const auto& o = o_;
  const int days = std::max(o.window_days, o.ttl.ttl_days + o.ttl.still_charging_within_days + 1);
  to_month_ = kDaysPerMonth / days;
  std::vector<std::string> tag_keys = o.ttl.env_keys;
  for (const auto* keys : {&o.required_tags, &o.content_tags})
    tag_keys.insert(tag_keys.end(), keys->begin(), keys->end());
  tag_keys.push_back(o.fleet_tag);
  ledger::AggregateQuery q;
  q.dims.assign(std::begin(kResourceDims), std::end(kResourceDims));
  for (const auto& k : tag_keys) {
    ledger::TagKey key{ledger::canonical_tag_key(k), {}};
    if (auto it = aliases.find(key.key); it != aliases.end()) key.aliases = it->second;
    q.tags.push_back(key);
  }
  q.from = as_of - days;
  q.to = as_of;
  // Storage and log resources by day: enough days for the growth fit and for a log store to
  // outlive its retention, no more (storage resources by day are the biggest result).
  ledger::AggregateQuery d;
  d.dims = {Dimension::kResource, Dimension::kResourceName};
  d.by_day = true;
  d.from = as_of - std::max(o.logs.retention_days + 2, o.storage.window_days);
  d.to = as_of;
  for (const char* category : {"Storage", "Management and Governance"}) {
    ledger::Filter f;
    f.key.dim = Dimension::kServiceCategory;
    f.value = category;
    d.filters.push_back(std::move(f));
  }
  // Each resource's (id and name's) storage days, then its groups, folded one resource at a time
  // (waste_resources.h).
  resources_ = std::make_unique<ResourceFold>(o_, as_of, days, *q.from, to_month_, tag_keys);
  queries_ = {std::move(d), std::move(q)};
}

WasteScan::~WasteScan() = default;

void WasteScan::add(std::size_t query, ledger::AggregateRow& row) {
  if (query == 0)
    resources_->daily(row);
  else
    resources_->row(row);
}

core::Result<std::vector<WasteFinding>> find_waste(
    ledger::Store& store, const WasteOptions& o, ledger::Day as_of,
    const std::map<std::string, std::vector<std::string>>& aliases,
    const std::vector<ledger::GpuHour>* telemetry) {
  // One read of the charges where the store can, interleaved on resource and name.
  WasteScan scan(o, as_of, aliases);
  if (auto s = store.aggregate_into(
          scan.queries(),
          [&](std::size_t query, ledger::AggregateRow& row) -> core::Status {
            scan.add(query, row);
            return {};
          },
          WasteScan::kInterleave);
      !s)
    return s.error();
  return scan.finish(store, telemetry);
}

core::Result<std::vector<WasteFinding>> WasteScan::finish(
    ledger::Store& store, const std::vector<ledger::GpuHour>* telemetry) {
  const auto& o = o_;
  const auto as_of = as_of_;
  const double to_month = to_month_;
  auto& resources = *resources_;
  resources.finish();

  std::vector<WasteFinding> out;
  auto add = [&out](std::vector<WasteFinding> f) {
    out.insert(out.end(), std::make_move_iterator(f.begin()), std::make_move_iterator(f.end()));
  };

  // Dev resources past their TTL; untagged spend with its biggest resources.
  auto expired = std::move(resources.expired);
  sort_findings(expired);
  // Their hosts: an idle GPU on one is counted in the resource's finding (below).
  std::unordered_map<std::string, std::string> expired_host;  // host -> the resource's key
  for (const auto& e : expired)
    if (const auto it = resources.expired_hosts.find({e.subject, e.currency});
        it != resources.expired_hosts.end())
      for (const auto& h : it->second)
        if (!h.empty()) expired_host.emplace(h, e.subject);
  add(std::move(expired));
  std::vector<UntaggedSpend> spends;
  for (auto& [key, u] : resources.untagged) spends.push_back(u);
  add(untagged_spend(spends, o.untagged));

  // Storage: growth per bucket and logs kept past retention (found resource by resource), content
  // stored twice.
  add(std::move(resources.storage));
  add(duplicate_storage(resources.objects));

  std::vector<CommitmentUse> use_list;
  for (auto& [k, u] : resources.uses) use_list.push_back(u);
  add(unused_commitments(use_list, o.commitments));

  // GPUs: idle and hung hours priced by their resource's cost per GPU-hour; fleets by tag.
  const ledger::Day lookback = as_of - o.idle_lookback_days;
  std::vector<ledger::GpuHour> read;
  if (!telemetry) {
    auto hours = store.gpu_hours(lookback, as_of);
    if (!hours) return hours.error();
    read = std::move(*hours);
  }
  const auto activity_hours = pivot(telemetry ? *telemetry : read, lookback, as_of);
  std::map<std::string, double> price;
  std::map<std::string, const GpuResource*> by_host;
  std::set<std::string> currencies;
  for (const auto& r : resources.gpus) {
    for (const auto& h : r.hosts) {
      if (h.empty()) continue;
      price.emplace(h, r.cost / r.gpu_hours);
      by_host.emplace(h, &r);
    }
    currencies.insert(r.currency);
  }
  auto idle =
      idle_gpus(activity_hours, price, currencies.size() == 1 ? *currencies.begin() : "", o.idle);
  std::map<std::pair<std::string, std::string>, FleetUse> fleets;
  std::map<std::pair<std::string, std::string>,
           std::map<ledger::UnixSeconds, std::pair<double, int>>>
      fleet_hours;
  for (const auto& r : resources.gpus) {
    if (!r.fleet) continue;
    auto& f = fleets[{*r.fleet, r.currency}];
    f.fleet = o.fleet_tag + "=" + *r.fleet;
    f.currency = r.currency;
    ++f.replicas;
    f.monthly_cost += r.cost * to_month;
  }
  for (const auto& h : activity_hours) {
    const auto it = by_host.find(h.host);
    if (it == by_host.end() || !it->second->fleet) continue;
    auto& slot = fleet_hours[{*it->second->fleet, it->second->currency}][h.hour];
    slot.first += activity(h);
    ++slot.second;
  }
  std::vector<FleetUse> fleet_list;
  for (auto& [key, f] : fleets) {
    const auto it = fleet_hours.find(key);
    if (it == fleet_hours.end() || it->second.empty()) continue;  // no telemetry: no judgement
    double sum = 0, peak = 0;
    for (const auto& [hour, a] : it->second) {
      sum += a.first / a.second;
      peak = std::max(peak, a.first / a.second);
    }
    f.mean_activity = sum / static_cast<double>(it->second.size());
    f.peak_activity = peak;
    fleet_list.push_back(f);
  }
  const auto low = low_utilisation_fleets(fleet_list, o.fleets);
  // An idle host of a fleet found too big is the fleet's finding, not another saving on top.
  std::set<std::string> in_low_fleets;
  for (const auto& f : low)
    for (const auto& [host, r] : by_host)
      if (r->fleet && o.fleet_tag + "=" + *r->fleet == f.subject) in_low_fleets.insert(host);
  std::erase_if(idle, [&](const WasteFinding& f) {
    return f.kind == WasteKind::kIdleGpu && in_low_fleets.count(f.subject);
  });
  // Idle or hung GPUs of a dev resource past its TTL: deleting the resource saves them too.
  for (auto& f : idle) {
    const auto it = expired_host.find(f.subject);
    if (it == expired_host.end()) continue;
    f.covered_by = std::string(waste_kind_name(WasteKind::kExpiredDevResource)) + " " +
                   std::string(it->second);
    f.message += "; counted in the " + f.covered_by + " finding (deleting it stops these GPUs too)";
    f.monthly_saving = 0;
  }
  add(std::move(idle));
  add(low);
  sort_findings(out);
  return out;
}

}  // namespace aicost::governance

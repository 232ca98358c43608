// The reference of waste_scan_test.cc (waste_scan_reference.h): every resource of the window held
// at once, then the detectors.
#include "waste_scan_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace aicost::governance::reference {
namespace {

using ledger::Dimension;

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

bool contains_nocase(const std::string& text, const std::string& part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

struct Resource {
  std::string id, name, service, category, type, region, unit, currency;
  std::map<std::string, std::string> tags;
  ledger::Day first = std::numeric_limits<ledger::Day>::max(),
              last = std::numeric_limits<ledger::Day>::min();
  double cost = 0, gpu_hours = 0;
  std::vector<std::tuple<ledger::Day, double, double>> daily;  // day, cost, quantity
  const std::string& key() const { return id.empty() ? name : id; }
  std::vector<std::string> hosts() const { return {name, id, id.substr(id.find_last_of('/') + 1)}; }
};

}  // namespace

std::vector<WasteFinding> materialised_waste(ledger::Store& store, const WasteOptions& o,
                                             ledger::Day as_of) {
  const int days = std::max(o.window_days, o.ttl.ttl_days + o.ttl.still_charging_within_days + 1);
  const double to_month = kDaysPerMonth / days;
  std::vector<std::string> tag_keys = o.ttl.env_keys;
  for (const auto* keys : {&o.required_tags, &o.content_tags})
    tag_keys.insert(tag_keys.end(), keys->begin(), keys->end());
  tag_keys.push_back(o.fleet_tag);
  ledger::AggregateQuery q;
  q.dims = {Dimension::kResource,        Dimension::kResourceName,   Dimension::kService,
            Dimension::kServiceCategory, Dimension::kResourceType,   Dimension::kRegion,
            Dimension::kConsumedUnit,    Dimension::kChargeCategory, Dimension::kCommitment,
            Dimension::kCommitmentStatus};
  for (const auto& k : tag_keys) q.tags.push_back({ledger::canonical_tag_key(k), {}});
  q.from = as_of - days;
  q.to = as_of;
  ledger::AggregateQuery d;
  d.dims = {Dimension::kResource, Dimension::kResourceName};
  d.by_day = true;
  d.from = as_of - std::max(o.logs.retention_days + 2, o.storage.window_days);
  d.to = as_of;
  for (const char* category : {"Storage", "Management and Governance"})
    d.filters.push_back({{Dimension::kServiceCategory, {}}, category});
  auto rows = store.aggregate(q);
  auto daily = store.aggregate(d);
  EXPECT_TRUE(rows && daily);
  if (!rows || !daily) return {};
  std::deque<Resource> resources;
  auto find = [&](const std::string& key, const std::string& currency) -> Resource* {
    for (auto& r : resources)
      if (r.key() == key && r.currency == currency) return &r;
    return nullptr;
  };
  std::map<std::pair<std::string, std::string>, UntaggedSpend> untagged;
  std::map<std::pair<std::string, std::string>, CommitmentUse> uses;
  for (auto& row : *rows) {
    auto& v = row.values;
    const std::string key = v[0].empty() ? v[1] : v[0];
    Resource* r = find(key, row.currency);
    if (!r) {
      r = &resources.emplace_back();
      r->id = v[0];
      r->name = v[1];
      r->currency = row.currency;
    }
    r->first = std::min(r->first, row.sums.first_day);
    r->last = std::max(r->last, row.sums.last_day);
    if (!r->id.empty() && !v[1].empty()) r->name = v[1];
    r->service = v[2];
    r->category = v[3];
    r->type = v[4];
    r->region = v[5];
    r->unit = v[6];
    for (std::size_t t = 0; t < tag_keys.size(); ++t)
      if (!v[10 + t].empty())
        r->tags.try_emplace(ledger::canonical_tag_key(tag_keys[t]), v[10 + t]);
    const double cost = units(row.sums.effective);
    r->cost += cost;
    r->gpu_hours += row.sums.gpu_hours;
    if (!v[8].empty()) {
      auto& u = uses[{v[8], row.currency}];
      u.commitment_id = v[8];
      u.currency = row.currency;
      u.window_days = days;
      (v[9] == "Unused" ? u.unused_cost : u.used_cost) += cost;
    }
    if (v[7] != "Usage" && v[7] != "Purchase") continue;
    for (std::size_t t = 0; t < o.required_tags.size(); ++t) {
      auto& u = untagged[{o.required_tags[t], row.currency}];
      u.tag_key = o.required_tags[t];
      u.currency = row.currency;
      u.window_days = days;
      u.taggable += cost;
      if (v[10 + o.ttl.env_keys.size() + t].empty()) u.untagged += cost;
    }
  }
  for (const auto& row : *daily) {
    Resource* r = find(row.values[0].empty() ? row.values[1] : row.values[0], row.currency);
    if (!r) continue;
    if (r->daily.empty() || std::get<0>(r->daily.back()) != row.day)
      r->daily.emplace_back(row.day, 0, 0);
    std::get<1>(r->daily.back()) += units(row.sums.effective);
    std::get<2>(r->daily.back()) += row.sums.consumed_quantity;
  }
  std::vector<WasteFinding> out;
  auto add = [&out](std::vector<WasteFinding> f) { out.insert(out.end(), f.begin(), f.end()); };
  std::vector<ResourceDays> lives;
  for (const auto& r : resources)
    if (dev_tag(r.tags, o.ttl))
      lives.push_back({r.key(), r.name, r.service, r.currency, r.tags, r.first, r.last,
                       r.cost * to_month, q.from});
  auto expired = expired_dev_resources(lives, as_of, o.ttl);
  std::map<std::string, std::string> expired_host;
  for (const auto& e : expired)
    if (const Resource* r = find(e.subject, e.currency))
      for (const auto& h : r->hosts())
        if (!h.empty()) expired_host.emplace(h, r->key());
  add(expired);
  std::vector<UntaggedSpend> spends;
  for (auto& [key, u] : untagged) {
    std::vector<const Resource*> top;
    for (const auto& r : resources)
      if (r.currency == u.currency && r.cost > 0 &&
          !r.tags.count(ledger::canonical_tag_key(u.tag_key)))
        top.push_back(&r);
    std::sort(top.begin(), top.end(), [](const Resource* a, const Resource* b) {
      return a->cost != b->cost ? a->cost > b->cost : a->key() < b->key();
    });
    for (std::size_t i = 0; i < top.size() && i < 5; ++i)
      u.top_untagged.push_back(
          {top[i]->id.empty() ? top[i]->service + " (no resource id)" : top[i]->id, top[i]->cost});
    spends.push_back(u);
  }
  add(untagged_spend(spends, o.untagged));
  std::vector<StorageSeries> storage;
  std::vector<LogStorage> logs;
  std::vector<StoredObject> objects;
  for (const auto& r : resources) {
    if (r.daily.empty()) continue;
    const bool is_log = contains_nocase(r.service, "log") || contains_nocase(r.type, "log");
    const bool gb_months = contains_nocase(r.unit, "GB") && contains_nocase(r.unit, "Month");
    const auto& [last_day, last_cost, last_quantity] = r.daily.back();
    if (r.category == "Storage" && !is_log) {
      StorageSeries s{r.id, r.currency, {}};
      for (const auto& [day, cost, quantity] : r.daily) s.daily_cost.push_back({day, cost});
      storage.push_back(s);
    }
    if (is_log && gb_months) {
      LogStorage l{r.id, r.currency, {}, last_quantity > 0 ? last_cost / last_quantity : 0.0};
      for (const auto& [day, cost, quantity] : r.daily)
        l.stored_gb.push_back({day, quantity * kDaysPerMonth});
      logs.push_back(l);
    }
    for (const auto& t : o.content_tags)
      if (auto it = r.tags.find(ledger::canonical_tag_key(t));
          it != r.tags.end() && r.category == "Storage")
        objects.push_back({r.id, r.service, r.region, r.currency, t + "=" + it->second,
                           gb_months ? last_quantity * kDaysPerMonth : 0.0, r.cost * to_month});
  }
  add(storage_growth(storage, o.storage));
  add(log_retention(logs, o.logs));
  add(duplicate_storage(objects));
  std::vector<CommitmentUse> use_list;
  for (auto& [k, u] : uses) use_list.push_back(u);
  add(unused_commitments(use_list, o.commitments));
  // GPUs: the hours pivoted, priced by the first resource of each host.
  auto hours = store.gpu_hours(as_of - o.idle_lookback_days, as_of);
  EXPECT_TRUE(hours);
  std::vector<GpuActivityHour> activity;
  for (const auto& h : *hours) {
    if (activity.empty() || activity.back().host != h.host || activity.back().gpu != h.gpu ||
        activity.back().hour != h.hour)
      activity.push_back({h.host, h.gpu, h.hour, std::nullopt, std::nullopt, std::nullopt});
    (h.metric == ledger::GpuMetric::kSmActive ? activity.back().sm_active
                                              : activity.back().gpu_util) = h.mean();
  }
  std::map<std::string, double> price;
  std::map<std::string, const Resource*> by_host;
  std::set<std::string> currencies;
  for (const auto& r : resources) {
    if (r.gpu_hours <= 0) continue;
    for (const auto& h : r.hosts()) {
      if (h.empty()) continue;
      price.emplace(h, r.cost / r.gpu_hours);
      by_host.emplace(h, &r);
    }
    currencies.insert(r.currency);
  }
  auto idle = idle_gpus(activity, price, currencies.size() == 1 ? *currencies.begin() : "", o.idle);
  std::map<std::pair<std::string, std::string>, FleetUse> fleets;
  // A fleet's (tag value, currency) readings, every GPU's, hour by hour.
  std::map<std::pair<std::string, std::string>, std::map<ledger::UnixSeconds, std::vector<double>>>
      readings;
  const std::string fleet_key = ledger::canonical_tag_key(o.fleet_tag);
  for (const auto& r : resources) {
    const auto tag = r.tags.find(fleet_key);
    if (r.gpu_hours <= 0 || tag == r.tags.end()) continue;
    auto& f = fleets[{tag->second, r.currency}];
    f.fleet = o.fleet_tag + "=" + tag->second;
    f.currency = r.currency;
    ++f.replicas;
    f.monthly_cost += r.cost * to_month;
  }
  for (const auto& h : activity) {
    const auto it = by_host.find(h.host);
    if (it == by_host.end() || !it->second->tags.count(fleet_key)) continue;
    readings[{it->second->tags.at(fleet_key), it->second->currency}][h.hour].push_back(
        h.sm_active ? *h.sm_active : h.gpu_util.value_or(0));
  }
  // A fleet's activity in an hour is its GPUs' mean; its use, the mean and peak of those hours.
  std::vector<FleetUse> fleet_list;
  for (auto& [key, f] : fleets) {
    const auto it = readings.find(key);
    if (it == readings.end()) continue;
    std::vector<double> hourly;
    for (const auto& [hour, gpus] : it->second)
      hourly.push_back(std::accumulate(gpus.begin(), gpus.end(), 0.0) /
                       static_cast<double>(gpus.size()));
    f.mean_activity =
        std::accumulate(hourly.begin(), hourly.end(), 0.0) / static_cast<double>(hourly.size());
    f.peak_activity = std::max(0.0, *std::max_element(hourly.begin(), hourly.end()));
    fleet_list.push_back(f);
  }
  const auto low = low_utilisation_fleets(fleet_list, o.fleets);
  std::set<std::string> in_low_fleets;
  for (const auto& f : low)
    for (const auto& [host, r] : by_host)
      if (r->tags.count(fleet_key) && o.fleet_tag + "=" + r->tags.at(fleet_key) == f.subject)
        in_low_fleets.insert(host);
  std::erase_if(idle, [&](const WasteFinding& f) {
    return f.kind == WasteKind::kIdleGpu && in_low_fleets.count(f.subject);
  });
  for (auto& f : idle) {
    const auto it = expired_host.find(f.subject);
    if (it == expired_host.end()) continue;
    f.covered_by = std::string(waste_kind_name(WasteKind::kExpiredDevResource)) + " " + it->second;
    f.message += "; counted in the " + f.covered_by + " finding (deleting it stops these GPUs too)";
    f.monthly_saving = 0;
  }
  add(idle);
  add(low);
  sort_findings(out);
  return out;
}

}  // namespace aicost::governance::reference

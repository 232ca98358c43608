// find_waste on both stores folds resource by resource as the store hands out its groups
// (waste_resources.h): its findings are those of every resource materialised first, as the
// detectors were fed before (the reference below), on a ledger with the cases that order matters
// for: resources in two currencies, ids with several names, a resource without an id whose name
// is another's id, storage days just outside the resource window, ties in cost, GPUs on dev boxes.
#include "aicost/governance/waste_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <set>
#include <unordered_map>

#include "store/backends.h"

namespace aicost::governance {
namespace {

using ledger::Dimension;

constexpr std::int64_t kUnit = 1'000'000'000;
const ledger::Day kAsOf = ledger::days_from_civil(2024, 10, 1);

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

bool contains_nocase(const std::string& text, const std::string& part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

// ---- The reference: every resource of the window held at once, then the detectors. -------------

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
  std::map<std::pair<std::string, std::string>,
           std::map<ledger::UnixSeconds, std::pair<double, int>>>
      fleet_hours;
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
    auto& slot = fleet_hours[{it->second->tags.at(fleet_key), it->second->currency}][h.hour];
    slot.first += h.sm_active ? *h.sm_active : h.gpu_util.value_or(0);
    ++slot.second;
  }
  std::vector<FleetUse> fleet_list;
  for (auto& [key, f] : fleets) {
    const auto it = fleet_hours.find(key);
    if (it == fleet_hours.end()) continue;
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

// ---- The ledger.
// ---------------------------------------------------------------------------------

class WasteScan : public aicost::testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(
        store().begin_source({"/generated/waste.csv", std::string(64, '8'), 0, "focus-1.2"}, {}));
    std::vector<ledger::Charge> rows;
    const ledger::Day aug30 = ledger::days_from_civil(2024, 8, 30);
    auto charge = [&](const std::string& id, const std::string& name, int day,
                      double cost) -> ledger::Charge& {
      ledger::Charge& c = rows.emplace_back();
      c.line = static_cast<std::int64_t>(rows.size() + 1);
      c.period_start = (static_cast<ledger::UnixSeconds>(aug30) + day) * 86400;
      c.period_end = c.period_start + 86400;
      c.currency = "USD";
      c.resource_id = id;
      c.resource_name = name;
      c.charge_category = "Usage";
      c.billed = c.effective = c.list = static_cast<std::int64_t>(cost * kUnit);
      return c;
    };
    struct Kind {
      const char *service, *category, *unit;
    };
    static const Kind kKinds[] = {{"Amazon EC2", "Compute", "Hours"},
                                  {"Amazon S3", "Storage", "GB-Month"},
                                  {"CloudWatch Logs", "Management and Governance", "GB-Month"},
                                  {"Amazon SageMaker", "AI and Machine Learning", "Hours"}};
    for (int k = 0; k < 160; ++k) {
      const Kind& kind = kKinds[k % 4];
      const bool daily = k % 4 == 1 || k % 4 == 2;
      const std::string id = "res-" + std::to_string(k);
      for (int day = 0; day < 32; ++day) {
        // Storage and logs bill every day (Aug 30 and 31 only in the storage window); others on
        // a few days, dev resources early and late (past their TTL, still charging).
        if (!daily && (day * 7 + k) % 9 != 0 && !(k % 5 == 0 && (day == 3 || day == 31))) continue;
        const std::string name = k % 12 == 0  ? (day % 2 ? "alt-" : "name-") + std::to_string(k)
                                 : k % 6 == 0 ? "name-" + id
                                              : "";
        // Growing storage (a tenth of its cost a day for odd k), logs that only grow, ties
        // elsewhere.
        const double cost = k % 4 == 1   ? (k % 2 ? 2 + 0.2 * day : 3)
                            : k % 4 == 2 ? 0.03 * (1 + 0.1 * day)
                                         : 1 + k % 3;
        ledger::Charge& c = charge(id, name, day, cost);
        c.service_name = kind.service;
        c.service_category = kind.category;
        c.consumed_unit = kind.unit;
        if (k % 4 == 2) c.consumed_quantity = 1 + 0.1 * day;
        if (k % 25 == 7 && day % 2) c.currency = "EUR";
        if (k % 10 == 3) {
          c.commitment_discount_id = "cd-" + std::to_string(k % 2);
          c.commitment_discount_status = day % 3 ? "Used" : "Unused";
        }
        if (k % 13 == 4) c.charge_category = "Credit";
        if (k % 3) c.tags.push_back({"team", k % 2 ? "ads" : "search"});
        if (k % 5 == 0) c.tags.push_back({"env", "dev"});
        if (k % 4 == 1 && k % 3 == 1) c.tags.push_back({"dataset", "ds-" + std::to_string(k % 7)});
      }
    }
    // Without an id: one named as another resource's id (the same resource), one alone.
    for (int day = 2; day < 32; day += 5) {
      ledger::Charge& c = charge("", "res-5", day, 4);
      c.service_name = "Amazon S3";
      c.service_category = "Storage";
      c.consumed_unit = "GB-Month";
      // And a copy with an id that costs the same: the two copies' order is the store's.
      for (const char* id : {"", "bucket-copy"}) {
        ledger::Charge& copy = charge(id, *id ? "" : "lonely-bucket", day, 26.5);
        copy.service_name = "Amazon S3";
        copy.service_category = "Storage";
        copy.tags.push_back({"dataset", "ds-lonely"});
      }
    }
    // GPU hosts: a fleet of four serving replicas, and a dev box.
    for (int k = 0; k < 5; ++k)
      for (int day = 1; day < 32; day += 3) {
        ledger::Charge& c = charge("arn:aws:ec2:us-east-1:1:instance/i-gpu" + std::to_string(k),
                                   "host-" + std::to_string(k), day, 30 + k);
        c.service_name = "Amazon EC2";
        c.service_category = "Compute";
        c.gpu_hours = 8;
        if (k < 4)
          c.tags.push_back({"service", "inference"});
        else
          c.tags.push_back({"env", "dev"});
      }
    ASSERT_TRUE(store().add_charges(rows));
    ASSERT_TRUE(store().commit_source("focus-1.2", 0));
    // A week of hourly SM_ACTIVE: host-1 and the dev box idle, the others lightly busy.
    ASSERT_TRUE(store().begin_source(
        {"/generated/dcgm.prom", std::string(64, '9'), 0, "dcgm-prometheus"}, {}));
    std::vector<ledger::GpuSample> samples;
    for (int k = 0; k < 5; ++k)
      for (int hour = 0; hour < 7 * 24; ++hour) {
        ledger::GpuSample s;
        s.line = static_cast<std::int64_t>(samples.size() + 1);
        s.time = (static_cast<ledger::UnixSeconds>(kAsOf) - 7) * 86400 + hour * 3600;
        s.metric = ledger::GpuMetric::kSmActive;
        s.value = k == 1 || k == 4 ? 0.01 : 0.2 + 0.01 * (hour % 5);
        s.host = "host-" + std::to_string(k);
        s.gpu = "0";
        samples.push_back(s);
      }
    ASSERT_TRUE(store().add_samples(samples));
    ASSERT_TRUE(store().commit_source("dcgm-prometheus", 0));
  }
};

TEST_P(WasteScan, ResourceByResourceFindsWhatEveryResourceAtOnceFinds) {
  WasteOptions o;
  o.ttl.ttl_days = 14;
  auto got = find_waste(store(), o, kAsOf, {});
  ASSERT_TRUE(got) << got.error().what();
  const auto want = materialised_waste(store(), o, kAsOf);
  std::set<std::string> kinds;
  for (const auto& f : want) kinds.insert(waste_kind_name(f.kind));
  // The ledger reaches every detector that reads resources.
  EXPECT_EQ(kinds, (std::set<std::string>{"idle_gpu", "expired_dev_resource", "untagged_spend",
                                          "storage_growth", "log_retention", "duplicate_storage",
                                          "unused_commitment", "low_utilisation_fleet"}));
  ASSERT_EQ(got->size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("finding " + std::to_string(i) + ": " + want[i].message);
    EXPECT_EQ((*got)[i].kind, want[i].kind);
    EXPECT_EQ((*got)[i].subject, want[i].subject);
    EXPECT_EQ((*got)[i].currency, want[i].currency);
    EXPECT_EQ((*got)[i].monthly_saving, want[i].monthly_saving);  // the same sums in the same order
    EXPECT_EQ((*got)[i].message, want[i].message);
    EXPECT_EQ((*got)[i].evidence, want[i].evidence);
    EXPECT_EQ((*got)[i].covered_by, want[i].covered_by);
  }
}

// `aicost optimize --db` hands the scan the 28 days of telemetry its levers read (with FB_USED):
// the scan keeps the rows of its week's look-back and of the activity metrics, and finds what its
// own read finds. Here the weeks before the look-back differ (host-1 busy, host-0 idle), every
// host has FB_USED rows (read as activity, host-1 would look hung), and host-2's last week comes
// from two sources (summed in the same order by both reads).
TEST_P(WasteScan, TelemetryReadBeforeFindsWhatItsOwnReadFinds) {
  for (int source = 0; source < 2; ++source) {
    ASSERT_TRUE(store().begin_source(
        {"/generated/dcgm-" + std::to_string(source) + ".prom",
         std::string(64, static_cast<char>('a' + source)), 0, "dcgm-prometheus"},
        {}));
    std::vector<ledger::GpuSample> samples;
    for (int k = 0; k < 5; ++k)
      for (int hour = 0; hour < 28 * 24; ++hour) {
        ledger::GpuSample s;
        s.line = static_cast<std::int64_t>(samples.size() + 1);
        s.time = (static_cast<ledger::UnixSeconds>(kAsOf) - 28) * 86400 + hour * 3600 + 60 * source;
        s.host = "host-" + std::to_string(k);
        s.gpu = "0";
        if (source == 0) {
          s.metric = ledger::GpuMetric::kFbUsed;
          s.value = 40e9;
        } else if (hour < 21 * 24) {
          s.metric = ledger::GpuMetric::kSmActive;
          s.value = k == 1 ? 0.9 : k == 0 ? 0.0 : 0.3;
        } else {
          if (k != 2) continue;
          s.metric = ledger::GpuMetric::kSmActive;
          s.value = 0.1 + 0.001 * (hour % 7);
        }
        samples.push_back(s);
      }
    ASSERT_TRUE(store().add_samples(samples));
    ASSERT_TRUE(store().commit_source("dcgm-prometheus", 0));
  }
  WasteOptions o;
  o.ttl.ttl_days = 14;
  const auto hours = store().gpu_hours(kAsOf - 28, kAsOf, true);
  ASSERT_TRUE(hours) << hours.error().what();
  ASSERT_TRUE(std::any_of(hours->begin(), hours->end(), [](const ledger::GpuHour& h) {
    return h.metric == ledger::GpuMetric::kFbUsed;
  }));
  auto shared = find_waste(store(), o, kAsOf, {}, &*hours);
  ASSERT_TRUE(shared) << shared.error().what();
  auto own = find_waste(store(), o, kAsOf, {});
  ASSERT_TRUE(own) << own.error().what();
  // The telemetry reaches findings: the dev box's idle GPU and the fleet's activity.
  for (const auto kind : {WasteKind::kIdleGpu, WasteKind::kLowUtilisationFleet})
    EXPECT_TRUE(std::any_of(own->begin(), own->end(), [kind](const WasteFinding& f) {
      return f.kind == kind;
    })) << waste_kind_name(kind);
  ASSERT_EQ(shared->size(), own->size());
  for (std::size_t i = 0; i < own->size(); ++i) {
    SCOPED_TRACE("finding " + std::to_string(i) + ": " + (*own)[i].message);
    EXPECT_EQ((*shared)[i].kind, (*own)[i].kind);
    EXPECT_EQ((*shared)[i].subject, (*own)[i].subject);
    EXPECT_EQ((*shared)[i].monthly_saving, (*own)[i].monthly_saving);
    EXPECT_EQ((*shared)[i].message, (*own)[i].message);
    EXPECT_EQ((*shared)[i].evidence, (*own)[i].evidence);
    EXPECT_EQ((*shared)[i].covered_by, (*own)[i].covered_by);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, WasteScan, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aicost::governance

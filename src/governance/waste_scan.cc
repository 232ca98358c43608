#include "aicost/governance/waste_scan.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>
#include <limits>
#include <set>
#include <unordered_map>

#include "aicost/ledger/report.h"

namespace aicost::governance {
namespace {

using ledger::Dimension;

double units(core::WideNanos n) { return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit); }

bool contains_nocase(const std::string& text, const std::string& part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

// The resource query's columns.
constexpr Dimension kDims[] = {Dimension::kResource,       Dimension::kResourceName,    Dimension::kService,
                               Dimension::kServiceCategory, Dimension::kResourceType,   Dimension::kRegion,
                               Dimension::kConsumedUnit,    Dimension::kChargeCategory, Dimension::kCommitment,
                               Dimension::kCommitmentStatus};
enum Col { kResource, kName, kService, kCategory, kType, kRegion, kUnit, kChargeCategory, kCommitment, kStatus, kDimCount };

struct DayUse {
  ledger::Day day;
  double cost, quantity;  // consumed quantity
};

struct Resource {
  std::string id, name, service, category, type, region, unit, currency;
  std::map<std::string, std::string> tags;
  ledger::Day first = std::numeric_limits<ledger::Day>::max(), last = std::numeric_limits<ledger::Day>::min();
  double cost = 0, gpu_hours = 0;  // over the resource query's days
  std::vector<DayUse> daily;       // storage and logs, days ascending
  const std::string& key() const { return id.empty() ? name : id; }
};

// Resources by key and currency. Their addresses stay put (a deque) and their keys and currencies
// never change, so the index holds views of their own strings.
class Resources {
 public:
  explicit Resources(std::size_t expected) { index_.reserve(expected); }
  Resource* find(std::string_view key, std::string_view currency) const {
    const auto it = index_.find({key, currency});
    return it == index_.end() ? nullptr : it->second;
  }
  Resource& add(std::string id, std::string name, std::string currency) {
    Resource& r = all_.emplace_back();
    r.id = std::move(id);
    r.name = std::move(name);
    r.currency = std::move(currency);
    index_.emplace(std::pair<std::string_view, std::string_view>{r.key(), r.currency}, &r);
    return r;
  }
  auto begin() const { return all_.begin(); }
  auto end() const { return all_.end(); }

 private:
  struct Hash {
    std::size_t operator()(const std::pair<std::string_view, std::string_view>& k) const {
      return std::hash<std::string_view>()(k.first) * 31 + std::hash<std::string_view>()(k.second);
    }
  };
  std::deque<Resource> all_;  // in the order of the rows that made them
  std::unordered_map<std::pair<std::string_view, std::string_view>, Resource*, Hash> index_;
};

// Hourly activity per host and GPU, pivoted from the store's rows.
std::vector<GpuActivityHour> pivot(const std::vector<ledger::GpuHour>& rows) {
  std::vector<GpuActivityHour> out;
  for (const auto& r : rows) {
    if (out.empty() || out.back().host != r.host || out.back().gpu != r.gpu || out.back().hour != r.hour)
      out.push_back({r.host, r.gpu, r.hour, std::nullopt, std::nullopt, std::nullopt});
    auto& h = out.back();
    (r.metric == ledger::GpuMetric::kSmActive         ? h.sm_active
     : r.metric == ledger::GpuMetric::kGrEngineActive ? h.gr_engine_active
                                                      : h.gpu_util) = r.mean();
  }
  return out;
}

double activity(const GpuActivityHour& h) {
  return h.sm_active ? *h.sm_active : h.gr_engine_active ? *h.gr_engine_active : h.gpu_util.value_or(0);
}

// The telemetry host a resource is: its name, its id, or the id's last path part.
std::array<std::string_view, 3> host_names(const Resource& r) {
  const std::string_view id = r.id;
  return {r.name, id, id.substr(id.find_last_of('/') + 1)};
}

}  // namespace

core::Result<std::vector<WasteFinding>> find_waste(ledger::Store& store, const WasteOptions& o, ledger::Day as_of,
                                                   const std::map<std::string, std::vector<std::string>>& aliases) {
  // Every resource's totals over the window (the TTL's days at least), and storage and log
  // resources by day over the look-back.
  const int days = std::max(o.window_days, o.ttl.ttl_days + o.ttl.still_charging_within_days + 1);
  const double to_month = kDaysPerMonth / days;
  std::vector<std::string> tag_keys = o.ttl.env_keys;
  for (const auto* keys : {&o.required_tags, &o.content_tags}) tag_keys.insert(tag_keys.end(), keys->begin(), keys->end());
  tag_keys.push_back(o.fleet_tag);
  ledger::AggregateQuery q;
  q.dims.assign(std::begin(kDims), std::end(kDims));
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
  const ledger::AggregateQuery both[] = {q, d};
  auto answers = store.aggregate_each(both);  // one read of the charges where the store can
  if (!answers) return answers.error();
  auto& rows = (*answers)[0];
  const auto& daily = (*answers)[1];

  Resources resources(rows.size());
  std::map<std::pair<std::string, std::string>, UntaggedSpend> untagged;  // by tag key and currency
  std::map<std::pair<std::string, std::string>, CommitmentUse> uses;      // by commitment and currency
  std::vector<std::string> canonical_tags;
  for (const auto& k : tag_keys) canonical_tags.push_back(ledger::canonical_tag_key(k));
  Resource* r = nullptr;  // the previous row's: rows come sorted by resource
  for (auto& row : rows) {
    auto& v = row.values;
    const std::string& key = v[kResource].empty() ? v[kName] : v[kResource];
    if (!r || r->key() != key || r->currency != row.currency) {
      r = resources.find(key, row.currency);
      if (!r) r = &resources.add(std::move(v[kResource]), std::move(v[kName]), row.currency);
    }
    r->first = std::min(r->first, row.sums.first_day);
    r->last = std::max(r->last, row.sums.last_day);
    // A resource's attributes are its last row's (moved: not read again), its id and the name
    // that is its key excepted (they stay); its tags the first value of each key.
    if (!r->id.empty() && !v[kName].empty()) r->name = std::move(v[kName]);
    r->service = std::move(v[kService]);
    r->category = std::move(v[kCategory]);
    r->type = std::move(v[kType]);
    r->region = std::move(v[kRegion]);
    r->unit = std::move(v[kUnit]);
    for (std::size_t t = 0; t < tag_keys.size(); ++t)
      if (!v[kDimCount + t].empty()) r->tags.try_emplace(canonical_tags[t], v[kDimCount + t]);  // read again below
    const double cost = units(row.sums.effective);
    r->cost += cost;
    r->gpu_hours += row.sums.gpu_hours;
    if (!v[kCommitment].empty()) {
      auto& u = uses[{v[kCommitment], row.currency}];
      u.commitment_id = v[kCommitment];
      u.currency = row.currency;
      u.window_days = days;
      (v[kStatus] == "Unused" ? u.unused_cost : u.used_cost) += cost;
    }
    const bool taggable = v[kChargeCategory] == "Usage" || v[kChargeCategory] == "Purchase";
    for (std::size_t t = 0; t < o.required_tags.size() && taggable; ++t) {
      auto& u = untagged[{o.required_tags[t], row.currency}];
      u.tag_key = o.required_tags[t];
      u.currency = row.currency;
      u.window_days = days;
      u.taggable += cost;
      if (v[kDimCount + o.ttl.env_keys.size() + t].empty()) u.untagged += cost;
    }
  }

  // The daily rows come by resource, then day (ascending).
  r = nullptr;
  for (const auto& row : daily) {
    const std::string& key = row.values[0].empty() ? row.values[1] : row.values[0];
    if (!r || r->key() != key || r->currency != row.currency) r = resources.find(key, row.currency);
    if (!r) continue;  // nothing charged in the window
    if (r->daily.empty() || r->daily.back().day != row.day) r->daily.push_back({row.day, 0, 0});
    r->daily.back().cost += units(row.sums.effective);
    r->daily.back().quantity += row.sums.consumed_quantity;
  }

  std::vector<WasteFinding> out;
  auto add = [&out](std::vector<WasteFinding> f) {
    out.insert(out.end(), std::make_move_iterator(f.begin()), std::make_move_iterator(f.end()));
  };

  // Dev resources past their TTL; untagged spend with its biggest resources.
  std::vector<ResourceDays> lives;  // the dev resources: no other can be expired
  for (const auto& r : resources)
    if (dev_tag(r.tags, o.ttl))
      lives.push_back({r.key(), r.name, r.service, r.currency, r.tags, r.first, r.last, r.cost * to_month, q.from});
  auto expired = expired_dev_resources(lives, as_of, o.ttl);
  // Their hosts: an idle GPU on one is counted in the resource's finding (below).
  std::unordered_map<std::string_view, std::string_view> expired_host;  // host -> the resource's key
  for (const auto& e : expired)
    if (const Resource* it = resources.find(e.subject, e.currency))
      for (const auto h : host_names(*it))
        if (!h.empty()) expired_host.emplace(h, it->key());
  add(std::move(expired));
  std::vector<UntaggedSpend> spends;
  for (auto& [key, u] : untagged) {
    // The five costliest resources without the tag (texts made for those five only).
    const std::string tag = ledger::canonical_tag_key(u.tag_key);
    std::vector<const Resource*> top;
    for (const auto& r : resources)
      if (r.currency == u.currency && r.cost > 0 && !r.tags.count(tag)) top.push_back(&r);
    const auto five = top.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(top.size(), 5));
    std::partial_sort(top.begin(), five, top.end(), [](const Resource* a, const Resource* b) {
      return a->cost != b->cost ? a->cost > b->cost : a->key() < b->key();  // ties in a fixed order
    });
    for (auto r = top.begin(); r != five; ++r)
      u.top_untagged.push_back({(*r)->id.empty() ? (*r)->service + " (no resource id)" : (*r)->id, (*r)->cost});
    spends.push_back(u);
  }
  add(untagged_spend(spends, o.untagged));

  // Storage: growth per bucket, logs kept past retention, content stored twice.
  std::vector<StorageSeries> storage;
  std::vector<LogStorage> logs;
  std::vector<StoredObject> objects;
  for (const auto& r : resources) {
    if (r.daily.empty()) continue;
    const bool is_log = contains_nocase(r.service, "log") || contains_nocase(r.type, "log");
    const bool gb_months = contains_nocase(r.unit, "GB") && contains_nocase(r.unit, "Month");
    if (r.category == "Storage" && !is_log) {
      StorageSeries s{r.id, r.currency, {}};
      for (const auto& d : r.daily) s.daily_cost.push_back({d.day, d.cost});
      storage.push_back(std::move(s));
    }
    // A day's GB-Months times the days of a month is the volume stored that day (30-day month).
    const auto& last = r.daily.back();
    if (is_log && gb_months) {
      LogStorage l{r.id, r.currency, {}, last.quantity > 0 ? last.cost / last.quantity : 0.0};
      for (const auto& d : r.daily) l.stored_gb.push_back({d.day, d.quantity * kDaysPerMonth});
      logs.push_back(std::move(l));
    }
    for (const auto& t : o.content_tags)
      if (auto it = r.tags.find(ledger::canonical_tag_key(t)); it != r.tags.end() && r.category == "Storage")
        objects.push_back({r.id, r.service, r.region, r.currency, t + "=" + it->second,
                           gb_months ? last.quantity * kDaysPerMonth : 0.0, r.cost * to_month});
  }
  add(storage_growth(storage, o.storage));
  add(log_retention(logs, o.logs));
  add(duplicate_storage(objects));

  std::vector<CommitmentUse> use_list;
  for (auto& [k, u] : uses) use_list.push_back(u);
  add(unused_commitments(use_list, o.commitments));

  // GPUs: idle and hung hours priced by their resource's cost per GPU-hour; fleets by tag.
  auto hours = store.gpu_hours(as_of - o.idle_lookback_days, as_of);
  if (!hours) return hours.error();
  const auto activity_hours = pivot(*hours);
  std::map<std::string, double> price;
  std::map<std::string, const Resource*> by_host;
  std::set<std::string> currencies;
  for (const auto& r : resources) {
    if (r.gpu_hours <= 0) continue;
    for (const auto& h : host_names(r)) {
      if (h.empty()) continue;
      price.emplace(h, r.cost / r.gpu_hours);
      by_host.emplace(h, &r);
    }
    currencies.insert(r.currency);
  }
  auto idle = idle_gpus(activity_hours, price, currencies.size() == 1 ? *currencies.begin() : "", o.idle);
  std::map<std::pair<std::string, std::string>, FleetUse> fleets;
  std::map<std::pair<std::string, std::string>, std::map<ledger::UnixSeconds, std::pair<double, int>>> fleet_hours;
  for (const auto& r : resources) {
    const auto tag = r.tags.find(ledger::canonical_tag_key(o.fleet_tag));
    if (r.gpu_hours <= 0 || tag == r.tags.end()) continue;
    auto& f = fleets[{tag->second, r.currency}];
    f.fleet = o.fleet_tag + "=" + tag->second;
    f.currency = r.currency;
    ++f.replicas;
    f.monthly_cost += r.cost * to_month;
  }
  for (const auto& h : activity_hours) {
    const auto it = by_host.find(h.host);
    if (it == by_host.end()) continue;
    const auto tag = it->second->tags.find(ledger::canonical_tag_key(o.fleet_tag));
    if (tag == it->second->tags.end()) continue;
    auto& slot = fleet_hours[{tag->second, it->second->currency}][h.hour];
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
      if (auto t = r->tags.find(ledger::canonical_tag_key(o.fleet_tag)); t != r->tags.end() &&
                                                                          o.fleet_tag + "=" + t->second == f.subject)
        in_low_fleets.insert(host);
  std::erase_if(idle, [&](const WasteFinding& f) { return f.kind == WasteKind::kIdleGpu && in_low_fleets.count(f.subject); });
  // Idle or hung GPUs of a dev resource past its TTL: deleting the resource saves them too.
  for (auto& f : idle) {
    const auto it = expired_host.find(f.subject);
    if (it == expired_host.end()) continue;
    f.covered_by = std::string(waste_kind_name(WasteKind::kExpiredDevResource)) + " " + std::string(it->second);
    f.message += "; counted in the " + f.covered_by + " finding (deleting it stops these GPUs too)";
    f.monthly_saving = 0;
  }
  add(std::move(idle));
  add(low);
  sort_findings(out);
  return out;
}

}  // namespace aicost::governance

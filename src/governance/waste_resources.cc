#include "waste_resources.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace aicost::governance {
namespace {

enum Col {
  kResource,
  kName,
  kService,
  kCategory,
  kType,
  kRegion,
  kUnit,
  kChargeCategory,
  kCommitment,
  kStatus,
  kDimCount
};

double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}

bool contains_nocase(const std::string& text, const std::string& part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

constexpr std::size_t kTopUntagged = 5;

}  // namespace

ResourceFold::ResourceFold(const WasteOptions& o, ledger::Day as_of, int days, ledger::Day from,
                           double to_month, std::vector<std::string> tag_keys)
    : o_(o),
      as_of_(as_of),
      days_(days),
      from_(from),
      to_month_(to_month),
      tag_keys_(std::move(tag_keys)) {
  for (const auto& k : tag_keys_) canonical_tags_.push_back(ledger::canonical_tag_key(k));
}

void ResourceFold::start_run(const std::string& id, const std::string& name) {
  // A run: the rows of one resource id or, without one, of one name.
  if (in_run_ && id == run_id_ && (!id.empty() || name == run_name_)) return;
  close_run();
  in_run_ = true;
  run_id_ = id;
  run_name_ = id.empty() ? name : std::string();
}

void ResourceFold::daily(const ledger::AggregateRow& row) {
  start_run(row.values[0], row.values[1]);
  days_of_run_.push_back(
      {row.day, row.currency, units(row.sums.effective), row.sums.consumed_quantity});
}

void ResourceFold::row(ledger::AggregateRow& row) {
  auto& v = row.values;
  start_run(v[kResource], v[kName]);
  const std::string& key = v[kResource].empty() ? v[kName] : v[kResource];
  Resource* r = nullptr;
  for (Resource* m : members_)
    if (m->currency == row.currency) r = m;
  if (!r) {
    // A resource without an id, of this name, may be this one (keys compare as text).
    if (const auto it = open_index_.find({key, row.currency}); it != open_index_.end()) {
      r = it->second;
    } else {
      r = &run_.emplace_back();
      r->id = v[kResource];
      r->name = v[kName];
      r->currency = row.currency;
    }
    members_.push_back(r);
  }
  r->first = std::min(r->first, row.sums.first_day);
  r->last = std::max(r->last, row.sums.last_day);
  // A resource's attributes are its last group's (moved: not read again), its id and the name
  // that is its key excepted (they stay); its tags the first value of each key.
  if (!r->id.empty() && !v[kName].empty()) r->name = std::move(v[kName]);
  r->service = std::move(v[kService]);
  r->category = std::move(v[kCategory]);
  r->type = std::move(v[kType]);
  r->region = std::move(v[kRegion]);
  r->unit = std::move(v[kUnit]);
  for (std::size_t t = 0; t < tag_keys_.size(); ++t)
    if (!v[kDimCount + t].empty())
      r->tags.try_emplace(canonical_tags_[t], v[kDimCount + t]);  // read again below
  const double cost = units(row.sums.effective);
  r->cost += cost;
  r->gpu_hours += row.sums.gpu_hours;
  if (!v[kCommitment].empty()) {
    auto& u = uses[{v[kCommitment], row.currency}];
    u.commitment_id = v[kCommitment];
    u.currency = row.currency;
    u.window_days = days_;
    (v[kStatus] == "Unused" ? u.unused_cost : u.used_cost) += cost;
  }
  const bool taggable = v[kChargeCategory] == "Usage" || v[kChargeCategory] == "Purchase";
  for (std::size_t t = 0; t < o_.required_tags.size() && taggable; ++t) {
    auto& u = untagged[{o_.required_tags[t], row.currency}];
    u.tag_key = o_.required_tags[t];
    u.currency = row.currency;
    u.window_days = days_;
    u.taggable += cost;
    if (v[kDimCount + o_.ttl.env_keys.size() + t].empty()) u.untagged += cost;
  }
}

// The days go to the run's resource in their currency; a day without one is nothing charged in
// the window (or, of a name without an id, may be a later id's).
void ResourceFold::attach(std::vector<DailyRow>& rows) {
  for (DailyRow& d : rows) {
    if (d.used) continue;
    Resource* r = nullptr;
    for (Resource* m : members_)
      if (m->currency == d.currency) r = m;
    if (!r) continue;
    d.used = true;
    if (r->daily.empty() || r->daily.back().day != d.day) r->daily.push_back({d.day, 0, 0});
    r->daily.back().cost += d.cost;
    r->daily.back().quantity += d.quantity;
  }
}

void ResourceFold::close_run() {
  if (!in_run_) return;
  // The days of the key without an id come first in the store's order, then the id's.
  const std::string& key = run_id_.empty() ? run_name_ : run_id_;
  if (run_id_.empty()) {
    auto& days = idless_days_[key];
    days = std::move(days_of_run_);
    attach(days);
  } else {
    if (const auto it = idless_days_.find(key); it != idless_days_.end()) attach(it->second);
    attach(days_of_run_);
  }
  for (Resource& r : run_) {
    if (run_id_.empty()) {
      // Open to the end: an id equal to its name would be the same resource.
      Resource& kept = open_.emplace_back(std::move(r));
      open_index_[{kept.key(), kept.currency}] = &kept;
    } else {
      close(r, closed_);
    }
  }
  run_.clear();
  members_.clear();
  days_of_run_.clear();
  in_run_ = false;
}

void ResourceFold::close(Resource& r, Out& out) {
  const std::string_view id = r.id;
  const std::vector<std::string> hosts{r.name, r.id,
                                       std::string(id.substr(id.find_last_of('/') + 1))};
  // Dev resources past their TTL.
  if (dev_tag(r.tags, o_.ttl)) {
    auto found = expired_dev_resources({{r.key(), r.name, r.service, r.currency, r.tags, r.first,
                                         r.last, r.cost * to_month_, from_}},
                                       as_of_, o_.ttl);
    if (!found.empty()) expired_hosts[{r.key(), r.currency}] = hosts;
    for (auto& f : found) out.expired.push_back(std::move(f));
  }
  // Its place among the costliest resources without each required tag.
  if (r.cost > 0) {
    for (const auto& tag : o_.required_tags) {
      if (r.tags.count(ledger::canonical_tag_key(tag))) continue;
      auto& top = top_[{tag, r.currency}];
      auto worse_first = [](const Untagged& a, const Untagged& b) {
        return a.cost != b.cost ? a.cost > b.cost : a.key < b.key;  // ties in a fixed order
      };
      Untagged u{r.cost, r.key(), r.id.empty() ? r.service + " (no resource id)" : r.id};
      if (top.size() < kTopUntagged) {
        top.push_back(std::move(u));
        std::push_heap(top.begin(), top.end(), worse_first);
      } else if (worse_first(u, top.front())) {
        std::pop_heap(top.begin(), top.end(), worse_first);
        top.back() = std::move(u);
        std::push_heap(top.begin(), top.end(), worse_first);
      }
    }
  }
  // Storage: growth per bucket, logs kept past retention, content stored twice.
  if (!r.daily.empty()) {
    const bool is_log = contains_nocase(r.service, "log") || contains_nocase(r.type, "log");
    const bool gb_months = contains_nocase(r.unit, "GB") && contains_nocase(r.unit, "Month");
    if (r.category == "Storage" && !is_log) {
      StorageSeries s{r.id, r.currency, {}};
      for (const auto& d : r.daily) s.daily_cost.push_back({d.day, d.cost});
      for (auto& f : storage_growth({s}, o_.storage)) out.storage.push_back(std::move(f));
    }
    // A day's GB-Months times the days of a month is the volume stored that day (30-day month).
    const auto& last = r.daily.back();
    if (is_log && gb_months) {
      LogStorage l{r.id, r.currency, {}, last.quantity > 0 ? last.cost / last.quantity : 0.0};
      for (const auto& d : r.daily) l.stored_gb.push_back({d.day, d.quantity * kDaysPerMonth});
      for (auto& f : log_retention({l}, o_.logs)) out.storage.push_back(std::move(f));
    }
    for (const auto& t : o_.content_tags)
      if (auto it = r.tags.find(ledger::canonical_tag_key(t));
          it != r.tags.end() && r.category == "Storage")
        out.objects.push_back({r.id, r.service, r.region, r.currency, t + "=" + it->second,
                               gb_months ? last.quantity * kDaysPerMonth : 0.0,
                               r.cost * to_month_});
  }
  // GPUs: priced by cost per GPU-hour, grouped into fleets by a tag.
  if (r.gpu_hours > 0) {
    GpuResource& g = out.gpus.emplace_back();
    g.hosts = hosts;
    g.key = r.key();
    g.currency = r.currency;
    g.cost = r.cost;
    g.gpu_hours = r.gpu_hours;
    if (const auto tag = r.tags.find(ledger::canonical_tag_key(o_.fleet_tag)); tag != r.tags.end())
      g.fleet = tag->second;
  }
}

void ResourceFold::finish() {
  close_run();
  for (Resource& r : open_) close(r, opened_);
  open_.clear();
  open_index_.clear();
  // Those without an id came first in the store's order.
  auto both = [](auto& first, auto& then) {
    auto all = std::move(first);
    all.insert(all.end(), std::make_move_iterator(then.begin()),
               std::make_move_iterator(then.end()));
    return all;
  };
  expired = both(opened_.expired, closed_.expired);
  storage = both(opened_.storage, closed_.storage);
  objects = both(opened_.objects, closed_.objects);
  gpus = both(opened_.gpus, closed_.gpus);
  for (auto& [key, u] : untagged) {
    auto it = top_.find(key);
    if (it == top_.end()) continue;
    auto& top = it->second;
    std::sort(top.begin(), top.end(), [](const Untagged& a, const Untagged& b) {
      return a.cost != b.cost ? a.cost > b.cost : a.key < b.key;
    });
    for (const auto& t : top) u.top_untagged.push_back({t.shown, t.cost});
  }
}

}  // namespace aicost::governance

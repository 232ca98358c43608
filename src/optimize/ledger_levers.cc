// The ledger levers read from a store: idle schedules from hourly telemetry priced by the bill,
// commitments sized from each instance family's daily usage (docs/OPTIMIZE.md "Ledger").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "aicost/core/text.h"
#include "aicost/optimize/ledger_levers.h"
#include "ledger_levers_internal.h"

namespace aicost::optimize {

namespace detail {

void priced(LeverResult& r, double saving, const LedgerBaseline& b, const std::string& currency) {
  r.saving_usd = saving;
  if (currency == b.currency && b.monthly > 0) {
    r.saving_pct = saving / b.monthly;
    r.total_usd = b.monthly - saving;
  } else {
    r.saving_pct = 0;
  }
}

}  // namespace detail

namespace {

using detail::kHoursPerMonth;
using detail::priced;
using ledger::Dimension;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool hour_unit(const std::string& unit) { return lower(unit).rfind("hour", 0) == 0; }
// The host a resource runs on: the last segment of its id (an ARN's "instance/i-...").
std::string host_of(const std::string& resource) { return resource.substr(resource.find_last_of('/') + 1); }
double units(core::WideNanos n) { return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit); }
std::string money(double x, const std::string& currency) { return core::group_digits(x) + " " + currency; }
std::string num(double x) { return core::sprintf("%.4g", x); }
std::string rate(double x, const std::string& currency) { return num(x) + " " + currency; }
std::string pct(double x) { return core::sprintf("%.1f %%", 100 * x); }
std::string hour_text(ledger::UnixSeconds t) {
  const auto d = ledger::day_of(t);
  return ledger::day_text(d) + core::sprintf(" %02d:00", static_cast<int>((t - d * 86400LL) / 3600));
}

LeverResult lever(const char* id, std::string subject) {
  LeverResult r;
  r.id = id;
  r.category = "ledger";
  r.subject = std::move(subject);
  return r;
}

// ---- Baseline ----------------------------------------------------------------------------------

core::Result<LedgerBaseline> baseline(ledger::Store& store, ledger::Day from, ledger::Day to) {
  ledger::AggregateQuery q;
  q.from = from;
  q.to = to;
  auto rows = store.aggregate(q);
  if (!rows) return rows.error();
  LedgerBaseline b;
  b.from = from;
  b.to = to;
  core::WideNanos best = -1;
  for (const auto& r : *rows) {
    if (r.sums.effective <= best) continue;
    best = r.sums.effective;
    b.currency = r.currency;
    const ledger::Day first = std::max(from, r.sums.first_day);
    b.monthly = units(r.sums.effective) * kHoursPerMonth / (24.0 * std::max(1, to - first));
  }
  return b;
}

// ---- Idle schedules ----------------------------------------------------------------------------

struct HostPrice {
  double cost = 0, hours = 0;
  std::string currency, resource;
};

using HostPrices = std::map<std::string, HostPrice>;

// Charges in hours by resource over the telemetry's window: each host's price per hour.
ledger::AggregateQuery host_price_query(ledger::Day from, ledger::Day to) {
  ledger::AggregateQuery q;
  q.dims = {Dimension::kResource, Dimension::kConsumedUnit};
  q.from = from;
  q.to = to;
  return q;
}

void add_price(HostPrices& out, const ledger::AggregateRow& r) {
  if (r.values[0].empty() || !hour_unit(r.values[1])) return;
  auto& p = out[host_of(r.values[0])];
  p.cost += units(r.sums.effective);
  p.hours += r.sums.consumed_quantity;
  p.currency = r.currency;
  p.resource = r.values[0];
}

// Per host, per hour: the busiest GPU's activity (SM_ACTIVE, else GR_ENGINE_ACTIVE, else GPU_UTIL).
std::map<std::string, std::vector<HostHour>> host_hours(const std::vector<ledger::GpuHour>& rows) {
  std::map<std::string, std::map<ledger::UnixSeconds, double>> by_host;
  for (std::size_t i = 0; i < rows.size();) {
    // rows of one (host, gpu, hour), metrics in enum order
    std::size_t j = i;
    std::optional<double> sm, gr, util;
    while (j < rows.size() && rows[j].host == rows[i].host && rows[j].gpu == rows[i].gpu && rows[j].hour == rows[i].hour) {
      if (rows[j].samples > 0) {
        if (rows[j].metric == ledger::GpuMetric::kSmActive) sm = rows[j].mean();
        if (rows[j].metric == ledger::GpuMetric::kGrEngineActive) gr = rows[j].mean();
        if (rows[j].metric == ledger::GpuMetric::kGpuUtil) util = rows[j].mean();
      }
      ++j;
    }
    const auto a = sm ? sm : gr ? gr : util;
    if (a) {
      auto [it, fresh] = by_host[rows[i].host].emplace(rows[i].hour, *a);
      if (!fresh) it->second = std::max(it->second, *a);
    }
    i = j;
  }
  std::map<std::string, std::vector<HostHour>> out;
  for (const auto& [host, hours] : by_host)
    for (const auto& [t, a] : hours) out[host].push_back({t, a});
  return out;
}

// The hosts whose telemetry idles on a weekly pattern, by host; a not-applicable lever without telemetry.
core::Result<std::map<std::string, IdleSchedule>> find_schedules(ledger::Store& store, const LedgerOptions& o,
                                                                 std::vector<LeverResult>& out) {
  auto rows = store.gpu_hours(o.as_of - o.idle_window_days, o.as_of);
  if (!rows) return rows.error();
  const auto hosts = host_hours(*rows);
  std::map<std::string, IdleSchedule> schedules;
  if (hosts.empty()) {
    auto r = lever("idle-schedule", "");
    r.status = LeverStatus::kNotApplicable;
    r.why = "no GPU telemetry in the " + std::to_string(o.idle_window_days) + " days before " +
            ledger::day_text(o.as_of) + " (load a dcgm-exporter scrape)";
    out.push_back(std::move(r));
    return schedules;
  }
  for (const auto& [host, hours] : hosts) {
    auto s = idle_schedule(hours, o.idle);
    if (!s.stops.empty()) schedules.emplace(host, std::move(s));
  }
  return schedules;
}

// A lever per host with a schedule, priced from its resource's charges (`prices`, by host).
void idle_levers(const std::map<std::string, IdleSchedule>& schedules, const HostPrices& prices, const LedgerOptions& o,
                 const LedgerBaseline& b, std::vector<LeverResult>& out, std::map<std::string, std::string>& stopped_hosts) {
  for (const auto& [host, s] : schedules) {
    auto r = lever("idle-schedule", host);
    const std::string text = schedule_text(s.stops);
    r.change = {{"schedule." + host, "stop " + text}};
    const auto p = prices.find(host);
    if (p == prices.end() || p->second.hours <= 0) {
      r.status = LeverStatus::kNotPriced;
      r.why = "host " + host + " idles " + std::to_string(s.stopped_hours_per_week) +
              " h a week, but no charge in hours names it (a resource id ending in " + host + ")";
      out.push_back(std::move(r));
      continue;
    }
    stopped_hosts[host] = p->second.resource;
    const double hourly = p->second.cost / p->second.hours;
    priced(r, s.stopped_hours_per_week * hourly * kHoursPerMonth / 168.0, b, p->second.currency);
    r.risk.level = s.active_in_stop.empty() ? RiskLevel::kLow : RiskLevel::kMedium;
    r.risk.kinds = {"availability"};
    if (s.active_in_stop.empty()) {
      r.risk.why = "no hour inside the stop had GPU activity in the " + std::to_string(o.idle_window_days) + " days read";
    } else {
      r.risk.why = std::to_string(s.active_in_stop.size()) + " hours inside the stop had GPU activity in the " +
                   std::to_string(o.idle_window_days) + " days read (first " + hour_text(s.active_in_stop.front()) +
                   " UTC): a job running then would be stopped";
    }
    r.rollout.validation = "stop " + host + " on the schedule for one week, with a way to start it by hand";
    r.rollout.metric = "instance-hours billed for " + host + " and jobs queued or killed during the stop";
    r.rollout.stop_loss = "drop the schedule if a job is killed or waits more than an hour for the host";
    r.notes.push_back(core::sprintf("%d of 168 hours a week stopped, at %s per hour (%s: %s over %.0f h billed)",
                                    s.stopped_hours_per_week, rate(hourly, p->second.currency).c_str(),
                                    p->second.resource.c_str(), money(p->second.cost, p->second.currency).c_str(),
                                    p->second.hours));
    r.notes.push_back(core::sprintf("an hour of the week is stopped when the host's busiest GPU was below %.0f %% "
                                    "activity in at least %.0f %% of the %d weeks read",
                                    100 * o.idle.idle_below, 100 * o.idle.idle_share, o.idle_window_days / 7));
    out.push_back(std::move(r));
  }
}

// ---- Commitments -------------------------------------------------------------------------------

struct Family {
  std::string provider, sku, region, currency;
  std::map<ledger::Day, double> hours;  // used instance-hours per day (Unused commitment rows excluded)
  double od_cost = 0, od_hours = 0;     // PricingCategory "Standard" (on demand)
  ledger::Day first = 0;
  int excluded = 0;  // resources left out: an idle schedule stops them
  std::set<std::string> excluded_resources;
};

struct Held {  // an existing commitment, by CommitmentDiscountId
  std::string family;
  double used_hours = 0, unused_hours = 0, used_cost = 0, unused_cost = 0;
  std::string currency;
};

std::string family_key(const std::string& sku, const std::string& region, const std::string& currency) {
  return sku + " " + region + " " + currency;
}

const catalog::Instance* catalog_instance(const catalog::Catalog& cat, const std::string& provider, const std::string& sku) {
  for (const auto& i : cat.instances())
    if (lower(i.name) == lower(sku) && lower(i.provider) == lower(provider)) return &i;
  return nullptr;
}

struct Usage {
  std::map<std::string, Family> families;  // by family_key
  std::map<std::string, Held> held;        // by CommitmentDiscountId
};

// By family and day, without the resource (the groups stay few on a large ledger).
ledger::AggregateQuery usage_query(const LedgerOptions& o) {
  ledger::AggregateQuery q;
  q.dims = {Dimension::kProvider,         Dimension::kSku,             Dimension::kRegion,      Dimension::kCommitment,
            Dimension::kCommitmentStatus, Dimension::kPricingCategory, Dimension::kConsumedUnit};
  q.by_day = true;
  q.from = o.as_of - o.window_days;
  q.to = o.as_of;
  ledger::Filter usage_rows;
  usage_rows.key.dim = Dimension::kChargeCategory;
  usage_rows.value = "Usage";
  q.filters.push_back(std::move(usage_rows));
  return q;
}

// A row of usage_query (sign +1), or of it with the resource added for a resource an idle schedule
// stops (sign -1: taken out of its family's usage).
void add_usage(Usage& u, const ledger::AggregateRow& r, double sign) {
  const auto& v = r.values;
  if (v[1].empty() || !hour_unit(v[6])) return;
  const std::string key = family_key(v[1], v[2], r.currency);
  auto& f = u.families[key];
  const bool unused = lower(v[4]) == "unused";
  if (sign < 0) {
    if (unused) return;
    f.excluded_resources.insert(v[7]);
  } else {
    if (f.sku.empty()) {
      f.provider = v[0], f.sku = v[1], f.region = v[2], f.currency = r.currency;
      f.first = r.day;
    }
    f.first = std::min(f.first, r.day);
    if (!v[3].empty()) {
      auto& h = u.held[v[3]];
      h.currency = r.currency;
      (unused ? h.unused_hours : h.used_hours) += r.sums.consumed_quantity;
      (unused ? h.unused_cost : h.used_cost) += units(r.sums.effective);
      if (h.family.empty() || !unused) h.family = key;
    }
    if (unused) return;
  }
  f.hours[r.day] += sign * r.sums.consumed_quantity;
  if (lower(v[5]) == "standard") {
    f.od_cost += sign * units(r.sums.effective);
    f.od_hours += sign * r.sums.consumed_quantity;
  }
}

// The resources of `stopped_hosts`, read on their own (filtered), out of their families.
core::Status take_out_stopped(ledger::Store& store, const LedgerOptions& o,
                              const std::map<std::string, std::string>& stopped_hosts, Usage& u) {
  if (stopped_hosts.empty()) return {};
  auto q = usage_query(o);
  q.dims.push_back(Dimension::kResource);
  for (const auto& [host, resource] : stopped_hosts) {
    ledger::Filter f;
    f.key.dim = Dimension::kResource;
    f.value = resource;
    q.filters.push_back(std::move(f));
  }
  const ledger::AggregateQuery qs[] = {q};
  return store.aggregate_into(qs, [&](std::size_t, ledger::AggregateRow& r) -> core::Status {
    add_usage(u, r, -1);
    return {};
  });
}

void commitment_levers(const catalog::Catalog& cat, const LedgerOptions& o, const LedgerBaseline& b, Usage& u,
                       std::vector<LeverResult>& out, std::map<std::string, std::string>& counted,
                       std::vector<std::string>& warnings) {
  std::vector<std::string> uncatalogued;
  auto& families = u.families;
  auto& held = u.held;
  for (auto& [key, f] : families) {
    auto r = lever("commitment", f.sku + " " + f.region);
    const std::string instances_of = f.sku + " in " + f.region;
    double total_hours = 0;
    for (const auto& [day, h] : f.hours) total_hours += h;
    if (total_hours < 1e-6) {
      r.status = LeverStatus::kNotApplicable;
      r.why = core::sprintf("every charge of %s is on a host an idle schedule stops (%zu resources): size a "
                            "commitment once the schedule runs", instances_of.c_str(), f.excluded_resources.size());
      out.push_back(std::move(r));
      continue;
    }
    const auto* inst = catalog_instance(cat, f.provider, f.sku);
    const auto od_cat = inst ? inst->price(catalog::PricingMode::kOnDemand) : std::nullopt;
    const auto ri_cat = inst ? inst->price(catalog::PricingMode::kReserved1y) : std::nullopt;
    if (!inst) {
      // Any SKU billed in hours (a database, a notebook) is not an instance family: one warning.
      uncatalogued.push_back(f.sku + " " + f.region);
      continue;
    }
    if (!od_cat || !ri_cat) {
      r.status = LeverStatus::kNotPriced;
      r.why = "the catalog has no reserved-1y or on-demand price for " + inst->id;
      out.push_back(std::move(r));
      continue;
    }
    const double ratio = core::per_hour(*ri_cat) / core::per_hour(*od_cat);
    double price = f.od_hours > 0 ? f.od_cost / f.od_hours : core::per_hour(*od_cat);
    if (f.od_hours <= 0 && f.currency != "USD") {
      r.status = LeverStatus::kNotPriced;
      r.why = "no on-demand " + instances_of + " charge to price it, and the catalog's price is in USD, not " + f.currency;
      out.push_back(std::move(r));
      continue;
    }
    // Daily usage in instances, from the family's first day in the window (a day without charges is 0).
    std::vector<double> usage;
    for (ledger::Day d = f.first; d < o.as_of; ++d) {
      const auto it = f.hours.find(d);
      usage.push_back(it == f.hours.end() ? 0.0 : it->second / 24.0);
    }
    const double days = static_cast<double>(usage.size());
    double existing = 0;
    std::vector<std::string> held_notes;
    for (const auto& [id, h] : held) {
      if (h.family != key) continue;
      counted[id] = "commitment " + r.subject;
      const double total = h.used_hours + h.unused_hours;
      existing += total / (24.0 * days);
      held_notes.push_back(core::sprintf(
          "existing commitment %s: %s instances, utilisation %s, unused %s a month (%s over %.0f days)", id.c_str(),
          num(total / (24.0 * days)).c_str(), pct(total > 0 ? h.used_hours / total : 0).c_str(),
          money(h.unused_cost * kHoursPerMonth / (24.0 * days), h.currency).c_str(),
          money(h.unused_cost, h.currency).c_str(), days));
    }
    const auto best = best_commitment(usage, ratio);
    const auto now = fit_commitment(usage, ratio, existing);
    const double saving = (now.cost - best.cost) * price * kHoursPerMonth;
    std::vector<double> less(usage);
    for (auto& u : less) u *= 1 - o.usage_drop;
    const double saving_less =
        (fit_commitment(less, ratio, existing).cost - fit_commitment(less, ratio, best.level).cost) * price * kHoursPerMonth;
    auto sorted = usage;
    std::sort(sorted.begin(), sorted.end());
    r.notes.push_back(core::sprintf("usage of %s over %.0f days from %s: mean %s, min %s, max %s instances", instances_of.c_str(),
                                    days, ledger::day_text(f.first).c_str(), num(now.on_demand_cost).c_str(),
                                    num(sorted.front()).c_str(), num(sorted.back()).c_str()));
    r.notes.push_back("on demand " + rate(price, f.currency) + " per instance-hour " +
                      (f.od_hours > 0 ? std::string("(the bill's on-demand rows)")
                                      : "(the catalog's " + inst->id + ": the bill has no on-demand row)") +
                      "; committed " + rate(price * ratio, f.currency) + " (" + pct(1 - ratio) +
                      " off: the catalog's reserved-1y / on-demand of " + inst->id + ", " + inst->provenance.version + ")");
    r.notes.push_back("break-even utilisation " + pct(ratio) + ": the share of the term a committed instance must run");
    for (auto& n : held_notes) r.notes.push_back(std::move(n));
    if (!f.excluded_resources.empty())
      r.notes.push_back(core::sprintf("%zu resources left out: an idle schedule stops them", f.excluded_resources.size()));
    if (best.level <= existing + 1e-9) {
      r.status = LeverStatus::kNoSaving;
      priced(r, 0, b, f.currency);
      r.why = "the commitment held (" + num(existing) + " instances) is at or above the optimum (" + num(best.level) +
              ")" + (best.level < existing - 1e-9
                         ? ": at renewal commit " + num(best.level) + ", saving " + money(saving, f.currency) + " a month"
                         : "");
      out.push_back(std::move(r));
      continue;
    }
    priced(r, saving, b, f.currency);
    r.change = {{"commitment." + f.sku + "." + f.region,
                 num(best.level) + " instances, 1 year" +
                     (existing > 0 ? " (" + num(best.level - existing) + " more than held)" : std::string())}};
    r.notes.push_back("coverage " + pct(best.coverage) + " of the instance-hours, utilisation of the commitment " +
                      pct(best.utilisation));
    const bool pays = saving_less > 0;
    r.notes.push_back(core::sprintf("at %.0f %% less usage the commitment %s %s a month%s", 100 * o.usage_drop,
                                    pays ? "still pays: it saves" : "no longer pays: it costs",
                                    money(std::abs(saving_less), f.currency).c_str(), pays ? "" : " more than on demand"));
    r.risk.level = pays ? RiskLevel::kMedium : RiskLevel::kHigh;
    r.risk.kinds = {"cost-commitment"};
    r.risk.why = "paid for a year used or not; " +
                 core::sprintf("at %.0f %% less usage it %s", 100 * o.usage_drop, pays ? "still pays" : "costs more than on demand");
    r.rollout.validation = "commit the part every day of the window used first (" + num(sorted.front()) +
                           " instances), the rest after a month if usage holds";
    r.rollout.metric = "commitment utilisation (CommitmentDiscountStatus Used / Unused) and cost per instance-hour";
    r.rollout.stop_loss = "do not renew, or sell the rest, if utilisation stays below the break-even " + pct(ratio);
    out.push_back(std::move(r));
  }
  if (!uncatalogued.empty()) {
    std::string some;
    for (std::size_t i = 0; i < uncatalogued.size() && i < 3; ++i) some += (i ? ", " : "") + uncatalogued[i];
    warnings.push_back(core::sprintf("%zu SKUs billed in hours are no catalogued instance (data/instances.yaml), so no "
                                     "commitment is sized for them: %s%s",
                                     uncatalogued.size(), some.c_str(), uncatalogued.size() > 3 ? ", ..." : ""));
  }
}

}  // namespace

core::Result<LedgerOptimizeResult> optimize_ledger(ledger::Store& store, const catalog::Catalog& catalog,
                                                   const LedgerOptions& o) {
  LedgerOptimizeResult res;
  res.guardrails = o.guardrails;
  auto b = baseline(store, o.as_of - o.window_days, o.as_of);
  if (!b) return b.error();
  res.baseline = *b;
  // The charges are read once for the hosts' prices and the families' usage (one scan where the
  // store can), then once more, filtered, for the resources an idle schedule stops.
  auto schedules = find_schedules(store, o, res.levers);
  if (!schedules) return schedules.error();
  std::vector<ledger::AggregateQuery> qs = {usage_query(o)};
  if (!schedules->empty()) qs.push_back(host_price_query(o.as_of - o.idle_window_days, o.as_of));
  Usage usage;
  HostPrices prices;
  if (auto s = store.aggregate_into(qs, [&](std::size_t query, ledger::AggregateRow& r) -> core::Status {
        if (query == 0) add_usage(usage, r, +1);
        else add_price(prices, r);
        return {};
      });
      !s)
    return s.error();
  std::map<std::string, std::string> stopped;  // host -> its resource
  idle_levers(*schedules, prices, o, res.baseline, res.levers, stopped);
  if (auto s = take_out_stopped(store, o, stopped, usage); !s) return s.error();
  std::map<std::string, std::string> counted;
  for (const auto& [h, resource] : stopped) counted[h] = "idle-schedule " + h;
  commitment_levers(catalog, o, res.baseline, usage, res.levers, counted, res.warnings);
  if (o.waste_findings) {
    if (auto s = detail::waste_levers(store, o, res.baseline, counted, res.levers, res.warnings); !s) return s.error();
  }
  if (res.baseline.currency.empty()) res.warnings.push_back("no charge in the window: nothing to size");
  // Red lines: a ledger lever can only be riskier than allowed.
  for (auto& r : res.levers) {
    // Only a priced proposal is still unjudged (not-applicable is the default status).
    if (r.status != LeverStatus::kNotApplicable || !r.saving_usd) continue;
    if (static_cast<int>(r.risk.level) > static_cast<int>(o.guardrails.max_risk)) {
      r.status = LeverStatus::kRejected;
      r.red_line = {false, std::string("risk ") + to_string(r.risk.level) + " above the allowed " +
                               to_string(o.guardrails.max_risk)};
    } else {
      r.status = LeverStatus::kAccepted;
    }
  }
  std::stable_sort(res.levers.begin(), res.levers.end(), [](const LeverResult& a, const LeverResult& b) {
    const int ra = status_rank(a.status), rb = status_rank(b.status);
    if (ra != rb) return ra < rb;
    if (ra == 0) return *a.saving_usd > *b.saving_usd;
    return false;
  });
  // Each lever is about its own resources (the commitment leaves out hosts a schedule stops), so
  // the accepted savings add up.
  auto& c = res.combined;
  c.total_usd = res.baseline.monthly;
  for (const auto& r : res.levers) {
    if (r.status != LeverStatus::kAccepted) continue;
    c.levers.push_back(r.subject.empty() ? r.id : r.id + " " + r.subject);
    c.steps.push_back({r.id, 0, *r.saving_usd, 0, false});
    c.saving_usd += *r.saving_usd;
    c.risk = std::max(c.risk, r.risk.level);
    c.change = merge(c.change, r.change);
  }
  c.sum_of_savings = c.saving_usd;
  c.total_usd -= c.saving_usd;
  double running = res.baseline.monthly;
  for (auto& st : c.steps) st.total_usd = (running -= st.saving_usd);
  return res;
}

}  // namespace aicost::optimize

// The commitment lever: each instance family's daily usage over the window, the commitment that
// minimises committed plus on-demand cost (ledger_sizing.cc), commitments held (docs/OPTIMIZE.md
// "Ledger").
#include <algorithm>
#include <cmath>

#include "aicost/core/text.h"
#include "ledger_levers_internal.h"

namespace aicost::optimize::detail {

namespace {

using ledger::Dimension;

std::string family_key(const std::string& sku, const std::string& region,
                       const std::string& currency) {
  return sku + " " + region + " " + currency;
}

}  // namespace

const catalog::Instance* catalog_instance(const catalog::Catalog& cat, const std::string& provider,
                                          const std::string& sku) {
  for (const auto& i : cat.instances())
    if (core::ascii_lower(i.name) == core::ascii_lower(sku) &&
        core::ascii_lower(i.provider) == core::ascii_lower(provider))
      return &i;
  return nullptr;
}

ledger::AggregateQuery usage_query(const LedgerOptions& o) {
  ledger::AggregateQuery q;
  q.dims = {Dimension::kProvider,         Dimension::kSku,
            Dimension::kRegion,           Dimension::kCommitment,
            Dimension::kCommitmentStatus, Dimension::kPricingCategory,
            Dimension::kConsumedUnit};
  q.by_day = true;
  q.from = o.as_of - o.window_days;
  q.to = o.as_of;
  ledger::Filter usage_rows;
  usage_rows.key.dim = Dimension::kChargeCategory;
  usage_rows.value = "Usage";
  q.filters.push_back(std::move(usage_rows));
  return q;
}

void add_usage(Usage& u, const ledger::AggregateRow& r, double sign) {
  const auto& v = r.values;
  if (v[1].empty() || !hour_unit(v[6])) return;
  const std::string key = family_key(v[1], v[2], r.currency);
  auto& f = u.families[key];
  const bool unused = core::ascii_lower(v[4]) == "unused";
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
  if (core::ascii_lower(v[5]) == "standard") {
    f.od_cost += sign * units(r.sums.effective);
    f.od_hours += sign * r.sums.consumed_quantity;
  }
}

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

void commitment_levers(const catalog::Catalog& cat, const LedgerOptions& o, const LedgerBaseline& b,
                       Usage& u, std::vector<LeverResult>& out,
                       std::map<std::string, std::string>& counted,
                       std::vector<std::string>& warnings) {
  std::vector<std::string> uncatalogued;
  auto& families = u.families;
  auto& held = u.held;
  const auto moved_count = [&u](const Family& f) {
    return static_cast<std::size_t>(
        std::count_if(f.excluded_resources.begin(), f.excluded_resources.end(),
                      [&u](const std::string& r) { return u.moved.count(r) > 0; }));
  };
  for (auto& [key, f] : families) {
    auto r = lever("commitment", f.sku + " " + f.region);
    const std::string instances_of = f.sku + " in " + f.region;
    double total_hours = 0;
    for (const auto& [day, h] : f.hours) total_hours += h;
    if (total_hours < 1e-6) {
      r.status = LeverStatus::kNotApplicable;
      const auto moved = moved_count(f);
      r.why = moved == 0 ? core::sprintf(
                               "every charge of %s is on a host an idle schedule stops (%zu "
                               "resources): size a "
                               "commitment once the schedule runs",
                               instances_of.c_str(), f.excluded_resources.size())
                         : core::sprintf(
                               "every charge of %s is on a host an idle schedule stops or "
                               "rightsize moves (%zu "
                               "resources): size a commitment once they run",
                               instances_of.c_str(), f.excluded_resources.size());
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
      r.why = "no on-demand " + instances_of +
              " charge to price it, and the catalog's price is in USD, not " + f.currency;
      out.push_back(std::move(r));
      continue;
    }
    // Daily usage in instances, from the family's first day in the window (a day without charges is
    // 0).
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
      held_notes.push_back(
          core::sprintf("existing commitment %s: %s instances, utilisation %s, unused %s a month "
                        "(%s over %.0f days)",
                        id.c_str(), num(total / (24.0 * days)).c_str(),
                        pct(total > 0 ? h.used_hours / total : 0).c_str(),
                        money(h.unused_cost * kHoursPerMonth / (24.0 * days), h.currency).c_str(),
                        money(h.unused_cost, h.currency).c_str(), days));
    }
    const auto best = best_commitment(usage, ratio);
    const auto now = fit_commitment(usage, ratio, existing);
    const double saving = (now.cost - best.cost) * price * kHoursPerMonth;
    std::vector<double> less(usage);
    for (auto& u : less) u *= 1 - o.usage_drop;
    const double saving_less = (fit_commitment(less, ratio, existing).cost -
                                fit_commitment(less, ratio, best.level).cost) *
                               price * kHoursPerMonth;
    auto sorted = usage;
    std::sort(sorted.begin(), sorted.end());
    r.notes.push_back(core::sprintf(
        "usage of %s over %.0f days from %s: mean %s, min %s, max %s instances",
        instances_of.c_str(), days, ledger::day_text(f.first).c_str(),
        num(now.on_demand_cost).c_str(), num(sorted.front()).c_str(), num(sorted.back()).c_str()));
    r.notes.push_back("on demand " + rate(price, f.currency) + " per instance-hour " +
                      (f.od_hours > 0
                           ? std::string("(the bill's on-demand rows)")
                           : "(the catalog's " + inst->id + ": the bill has no on-demand row)") +
                      "; committed " + rate(price * ratio, f.currency) + " (" + pct(1 - ratio) +
                      " off: the catalog's reserved-1y / on-demand of " + inst->id + ", " +
                      inst->provenance.version + ")");
    r.notes.push_back("break-even utilisation " + pct(ratio) +
                      ": the share of the term a committed instance must run");
    for (auto& n : held_notes) r.notes.push_back(std::move(n));
    const auto moved = moved_count(f);
    if (f.excluded_resources.size() > moved)
      r.notes.push_back(core::sprintf("%zu resources left out: an idle schedule stops them",
                                      f.excluded_resources.size() - moved));
    if (moved > 0)
      r.notes.push_back(core::sprintf(
          "%zu resources left out: rightsize moves them to a smaller instance", moved));
    if (best.level <= existing + 1e-9) {
      r.status = LeverStatus::kNoSaving;
      priced(r, 0, b, f.currency);
      r.why =
          "the commitment held (" + num(existing) + " instances) is at or above the optimum (" +
          num(best.level) + ")" +
          (best.level < existing - 1e-9 ? ": at renewal commit " + num(best.level) + ", saving " +
                                              money(saving, f.currency) + " a month"
                                        : "");
      out.push_back(std::move(r));
      continue;
    }
    priced(r, saving, b, f.currency);
    r.change = {{"commitment." + f.sku + "." + f.region,
                 num(best.level) + " instances, 1 year" +
                     (existing > 0 ? " (" + num(best.level - existing) + " more than held)"
                                   : std::string())}};
    r.notes.push_back("coverage " + pct(best.coverage) +
                      " of the instance-hours, utilisation of the commitment " +
                      pct(best.utilisation));
    const bool pays = saving_less > 0;
    r.notes.push_back(core::sprintf(
        "at %.0f %% less usage the commitment %s %s a month%s", 100 * o.usage_drop,
        pays ? "still pays: it saves" : "no longer pays: it costs",
        money(std::abs(saving_less), f.currency).c_str(), pays ? "" : " more than on demand"));
    r.risk.level = pays ? RiskLevel::kMedium : RiskLevel::kHigh;
    r.risk.kinds = {"cost-commitment"};
    r.risk.why = "paid for a year used or not; " +
                 core::sprintf("at %.0f %% less usage it %s", 100 * o.usage_drop,
                               pays ? "still pays" : "costs more than on demand");
    r.rollout.validation = "commit the part every day of the window used first (" +
                           num(sorted.front()) +
                           " instances), the rest after a month if usage holds";
    r.rollout.metric =
        "commitment utilisation (CommitmentDiscountStatus Used / Unused) and cost per "
        "instance-hour";
    r.rollout.stop_loss =
        "do not renew, or sell the rest, if utilisation stays below the break-even " + pct(ratio);
    out.push_back(std::move(r));
  }
  if (!uncatalogued.empty()) {
    std::string some;
    for (std::size_t i = 0; i < uncatalogued.size() && i < 3; ++i)
      some += (i ? ", " : "") + uncatalogued[i];
    warnings.push_back(core::sprintf(
        "%zu SKUs billed in hours are no catalogued instance (data/instances.yaml), so no "
        "commitment is sized for them: %s%s",
        uncatalogued.size(), some.c_str(), uncatalogued.size() > 3 ? ", ..." : ""));
  }
}

}  // namespace aicost::optimize::detail

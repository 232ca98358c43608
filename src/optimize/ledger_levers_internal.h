// Shared by the ledger levers' sources (ledger_levers.cc, ledger_commitment.cc,
// ledger_rightsize.cc, ledger_waste.cc).
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aicost/core/quantity.h"
#include "aicost/core/text.h"
#include "aicost/governance/waste.h"
#include "aicost/optimize/ledger_levers.h"

namespace aicost::optimize::detail {

using core::kHoursPerMonth;

inline bool hour_unit(const std::string& unit) {
  return core::ascii_lower(unit).rfind("hour", 0) == 0;
}
// The host a resource runs on: the last segment of its id (an ARN's "instance/i-...").
inline std::string host_of(const std::string& resource) {
  return resource.substr(resource.find_last_of('/') + 1);
}
inline double units(core::WideNanos n) {
  return static_cast<double>(n) / static_cast<double>(core::kNanosPerUnit);
}
inline std::string money(double x, const std::string& currency) {
  return core::group_digits(x) + " " + currency;
}
inline std::string num(double x) { return core::sprintf("%.4g", x); }
inline std::string rate(double x, const std::string& currency) { return num(x) + " " + currency; }
inline std::string pct(double x) { return core::sprintf("%.1f %%", 100 * x); }
inline std::string hour_text(ledger::UnixSeconds t) {
  const auto d = ledger::day_of(t);
  return ledger::day_text(d) +
         core::sprintf(" %02d:00", static_cast<int>((t - d * 86400LL) / 3600));
}

inline LeverResult lever(const char* id, std::string subject) {
  LeverResult r;
  r.id = id;
  r.category = "ledger";
  r.subject = std::move(subject);
  return r;
}

// ---- Commitments (ledger_commitment.cc)
// ----------------------------------------------------------

struct Family {  // an instance family (SKU) in a region, in one currency
  std::string provider, sku, region, currency;
  std::map<ledger::Day, double>
      hours;  // used instance-hours per day (Unused commitment rows excluded)
  double od_cost = 0, od_hours = 0;  // PricingCategory "Standard" (on demand)
  ledger::Day first = 0;
  std::set<std::string> excluded_resources;  // stopped by an idle schedule
};

struct Held {  // an existing commitment, by CommitmentDiscountId
  std::string family;
  double used_hours = 0, unused_hours = 0, used_cost = 0, unused_cost = 0;
  std::string currency;
};

struct Usage {
  std::map<std::string, Family> families;  // by family_key
  std::map<std::string, Held> held;        // by CommitmentDiscountId
  std::set<std::string> moved;  // resources rightsize moves (the other excluded ones are stopped)
};

// The catalog's instance of a billed SKU (by name and provider, any case); nullptr when none.
const catalog::Instance* catalog_instance(const catalog::Catalog& cat, const std::string& provider,
                                          const std::string& sku);

// The usage of every family by day over the window, without the resource (few groups).
ledger::AggregateQuery usage_query(const LedgerOptions& o);
// A row of usage_query (sign +1), or of it with the resource added for a resource an idle schedule
// stops (sign -1: taken out of its family's usage).
void add_usage(Usage& u, const ledger::AggregateRow& r, double sign);
// The resources of `stopped_hosts` (host -> resource), read on their own (filtered), out of their
// families.
core::Status take_out_stopped(ledger::Store& store, const LedgerOptions& o,
                              const std::map<std::string, std::string>& stopped_hosts, Usage& u);
// A commitment lever per family; `counted` gets the commitments held (id -> the lever).
void commitment_levers(const catalog::Catalog& cat, const LedgerOptions& o, const LedgerBaseline& b,
                       Usage& u, std::vector<LeverResult>& out,
                       std::map<std::string, std::string>& counted,
                       std::vector<std::string>& warnings);

// ---- Hosts: prices from the bill, GPU use from the telemetry (ledger_levers.cc,
// ledger_rightsize.cc)

struct HostPrice {  // a host's charges in hours over the telemetry's window
  double cost = 0, hours = 0;
  std::string currency, resource, provider, sku;
};

using HostPrices = std::map<std::string, HostPrice>;  // by host

// Each host's GpuUse over `rows` (sorted by host, GPU, hour, metric).
std::map<std::string, GpuUse> gpu_uses(const std::vector<ledger::GpuHour>& rows);

// A rightsize lever per host whose use fits a cheaper catalogued instance, leaving out the hosts
// in `counted` (stopped by a schedule); adds the hosts it moves to `counted` and to `moved` (host
// -> resource).
void rightsize_levers(const catalog::Catalog& cat, const LedgerOptions& o, const LedgerBaseline& b,
                      const std::map<std::string, GpuUse>& uses, const HostPrices& prices,
                      std::map<std::string, std::string>& counted, std::vector<LeverResult>& out,
                      std::map<std::string, std::string>& moved,
                      std::vector<std::string>& warnings);

// Sets a lever's monthly saving, its share of the baseline and the spend after it (when in the
// baseline's currency).
void priced(LeverResult& r, double saving, const LedgerBaseline& b, const std::string& currency);

// `ledger check`'s waste findings (governance::WasteScan, read with the levers' charges) with a
// saving as levers (the others counted in `warnings`); `counted` maps a subject (a host, a
// commitment id) that another lever already saves on to that lever ("idle-schedule i-dev0").
void waste_levers(const std::vector<governance::WasteFinding>& findings, const LedgerBaseline& b,
                  const std::map<std::string, std::string>& counted, std::vector<LeverResult>& out,
                  std::vector<std::string>& warnings);

}  // namespace aicost::optimize::detail
